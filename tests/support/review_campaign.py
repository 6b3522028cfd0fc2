"""A small review campaign on the demo benchmark, for the workbench's
browser tests and screenshots: accounts of every role, settled items with
causes and fixes (some answered blind first), a dispute between two
reviewers, two LLM judges, a published corrected version, and guidelines
in English and Tibetan."""
from __future__ import annotations

import json
from pathlib import Path

import audit
from tests.support.accounts import ADMIN, ensure_account

REVIEWERS = ("Pema Camp", "Dolma Camp")
LEAD = "Lhamo Camp"
BENCH = "demo"


def items(db: Path) -> list[tuple[str, str, str]]:
    """(question_id, key, script) of the demo items, by id."""
    from audit.store import connect

    with connect(db, read_only=True) as con:
        return con.execute("SELECT question_id, answer_key, script FROM questions WHERE benchmark = ? "
                           "ORDER BY question_id", [BENCH]).fetchall()


def other_label(key: str) -> str:
    return "B" if key == "A" else "A"


def build(db: Path, *, judges: bool = True, version: bool = True, guidelines: bool = True) -> dict:
    """Build the campaign in ``db`` (a new file); returns what it made:
    ``disputed`` (a Tibetan item the two reviewers disagree on),
    ``settled`` (items both reviewers agree on), ``tibetan`` (an unreviewed
    Tibetan item)."""
    from audit.demo import build_demo
    from audit.review.blind import record_blind_answer

    build_demo(db)
    ensure_account(ADMIN, "admin", db=db)
    for name in REVIEWERS:
        ensure_account(name, db=db)
    ensure_account(LEAD, "lead", db=db)
    rows = items(db)
    tib = [(q, k) for q, k, s in rows if s == "Tibt"]
    if judges:
        _judges(db, [(q, k) for q, k, _ in rows])
    settled = []
    for i, (q, k, _) in enumerate(rows[:16:2]):
        if i < 4:   # answered blind first (the Dashboards' blind-review figures); one of them changed after
            for who, answer in zip(REVIEWERS, (k if i % 2 == 0 else other_label(k), other_label(k))):
                record_blind_answer(BENCH, q, who, answer, db=db)
        if i % 2:
            for who in REVIEWERS:
                audit.review.add_review(BENCH, q, who, "key_wrong", corrected_answer=other_label(k),
                                        cause="translation", rationale="the translation changed option B",
                                        proposed_fix="Reword option B", db=db)
        else:
            for who in REVIEWERS:
                audit.review.add_review(BENCH, q, who, "key_correct", db=db)
        settled.append(q)
    free = [(q, k) for q, k in tib if q not in settled]
    disputed, dkey = free[0]
    audit.review.add_review(BENCH, disputed, REVIEWERS[0], "key_correct", db=db)
    audit.review.add_review(BENCH, disputed, REVIEWERS[1], "key_wrong", corrected_answer=other_label(dkey),
                            cause="key_slip", db=db)
    if version:
        audit.create_version(BENCH, "1.1", db=db, exports_dir=db.parent / "exports", actor=LEAD)
    if guidelines:
        from audit.review.guidelines import set_guidelines

        set_guidelines("## Before you decide\n\n1. Read the question **yourself** first.\n2. Then look at the models.",
                       language="en", actor=ADMIN, db=db)
        set_guidelines("## ཐག་མ་བཅད་གོང་།\n\n1. སྔོན་ལ་དྲི་བ་ཁྱེད་རང་གིས་ཀློག\n2. དེ་རྗེས་དཔེ་དབྱིབས་ལ་ལྟོས།",
                       language="bo", actor=ADMIN, db=db)
    return {"disputed": disputed, "settled": settled, "tibetan": free[1][0], "tibetan_items": [q for q, _ in free[1:]]}


def _judges(db: Path, rows: list[tuple[str, str]]) -> None:
    """Two LLM judges on every item (one of a judged family)."""
    from audit.judge import import_judge

    ensure_account(ADMIN, "admin", db=db)   # importing verdicts is a lead's or admin's act
    for judge, every in (("gemini-2.5-pro", 3), ("gpt-4o", 4)):
        f = db.parent / f"{judge}.jsonl"
        f.write_text("".join(json.dumps({"loc": q, "llm_validation": {
            "answer_key_correct": i % every != 0,
            "correct_answer": None if i % every else other_label(k)}}) + "\n" for i, (q, k) in enumerate(rows)),
            encoding="utf-8")
        import_judge(f, judge=judge, benchmark=BENCH, db=db, actor=ADMIN)
