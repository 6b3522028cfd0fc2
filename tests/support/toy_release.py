"""A small generic benchmark with models and settled verdicts, built through
the library (``import_questions``, ``import_predictions``, ``add_review``),
for the tests of export versions, scores and reports.

Ten items: plain arithmetic, a formula-looking subject and stem, Tibetan and
Arabic-script text, an HTML payload; three models; verdicts that settle
every case of the default policy:

==== ========================================== =====================
id   reviews                                    default policy
==== ========================================== =====================
t01  none                                       unchanged (key A)
t02  two agreeing key_wrong → B                 corrected A → B
t03  two disagreeing key_wrong                  unchanged (key B)
t04  adjudicated key_wrong → D                  corrected C → D
t05  one ambiguous                              excluded (ambiguous)
t06  one defective                              excluded (defective)
t07  key_correct                                unchanged (key C)
t08  one key_wrong → C (single reviewer)        corrected A → C
t09  none (Arabic script)                       unchanged (key B)
t10  none (HTML payload)                        unchanged (key D)
==== ========================================== =====================
"""
from __future__ import annotations

import csv
from pathlib import Path

BENCH = "toy"
MODELS = ["m-alpha", "m-beta", "m-gamma"]
# id -> (subject, question, options, key)
ITEMS = {
    "t01": ("math", "-5 + 3 = ?", ["-2", "2", "8", "-8"], "A"),
    "t02": ("math", "2 + 2 = ?", ["3", "4", "5", "6"], "A"),
    "t03": ("math", "3 + 3 = ?", ["6", "7", "8", "9"], "B"),
    "t04": ("=cmd", "@SUM(1)", ["=1+1", "+b", "-c", "@d"], "C"),
    "t05": ("lang", "བོད་ཡིག་ ཀ ཁ", ["ཀ", "ཁ", "ག", "ང"], "A"),
    "t06": ("lang", "Broken item", ["x", "y", "z", "w"], "B"),
    "t07": ("lang", "All fine", ["x", "y", "z", "w"], "C"),
    "t08": ("math", "1 + 0 = ?", ["0", "2", "1", "3"], "A"),
    "t09": ("lang", "ئۇيغۇرچە سوئال", ["ئا", "ب", "ت", "ج"], "B"),
    "t10": ("lang", "<script>alert(1)</script> | `x`", ["<b>a</b>", "b", "c", "d"], "D"),
}
# model -> one answer per item, in ITEMS order
ANSWERS = {
    "m-alpha": "ABBDACCCBD",
    "m-beta": "BBCDBBCCBA",
    "m-gamma": "ABBCAACCBD",
}
#: What the default policy derives: id -> (action, key in the version).
EXPECTED_DEFAULT = {
    "t01": ("unchanged", "A"), "t02": ("corrected", "B"), "t03": ("unchanged", "B"), "t04": ("corrected", "D"),
    "t05": ("excluded", "A"), "t06": ("excluded", "B"), "t07": ("unchanged", "C"), "t08": ("corrected", "C"),
    "t09": ("unchanged", "B"), "t10": ("unchanged", "D"),
}


def write_questions(path: Path) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["id", "subject", "question", "A", "B", "C", "D", "answer"])
        w.writeheader()
        for qid, (subject, q, opts, key) in ITEMS.items():
            w.writerow({"id": qid, "subject": subject, "question": q, "answer": key, **dict(zip("ABCD", opts))})
    return path


def write_predictions(path: Path) -> Path:
    lines = ["question_id," + ",".join(MODELS)]
    for i, qid in enumerate(ITEMS):
        lines.append(qid + "," + ",".join(ANSWERS[m][i] for m in MODELS))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


REVIEWS = [
    dict(question_id="t02", reviewer="alice", verdict="key_wrong", corrected_answer="B", cause="key_slip",
         rationale="=2+2 is 4"),
    dict(question_id="t02", reviewer="bob", verdict="key_wrong", corrected_answer="B", cause="key_slip",
         rationale="four | `x`"),
    dict(question_id="t03", reviewer="alice", verdict="key_wrong", corrected_answer="C", cause="key_slip"),
    dict(question_id="t03", reviewer="bob", verdict="key_wrong", corrected_answer="D", cause="key_slip"),
    dict(question_id="t04", reviewer="carol", verdict="key_wrong", corrected_answer="D", cause="translation",
         is_adjudication=True, rationale="<img src=x onerror=alert(1)>"),
    dict(question_id="t05", reviewer="alice", verdict="ambiguous", cause="translation"),
    dict(question_id="t06", reviewer="bob", verdict="defective", cause="source_error"),
    dict(question_id="t07", reviewer="alice", verdict="key_correct"),
    dict(question_id="t08", reviewer="bob", verdict="key_wrong", corrected_answer="C", cause="formatting"),
]


def add_toy_reviews(db) -> None:
    """The verdicts of the table above, in one transaction (``add_reviews``)."""
    from audit.review import add_reviews

    add_reviews(BENCH, [dict(r) for r in REVIEWS], db=db)


def build_toy(db, work: Path, *, predictions: bool = True, reviews: bool = True) -> Path:
    """Fill the migrated database *db* with the toy benchmark (files written in *work*)."""
    from audit.ingest import import_predictions, import_questions

    work.mkdir(parents=True, exist_ok=True)
    import_questions(write_questions(work / "questions.csv"), benchmark=BENCH, db=db)
    if predictions:
        import_predictions(write_predictions(work / "predictions.csv"), benchmark=BENCH, layout="wide", db=db)
    if reviews:
        add_toy_reviews(db)
    return Path(db)


def toy_db(folder: Path, template: Path, **kw) -> Path:
    """A copy of the migrated *template* in *folder*, filled by :func:`build_toy`
    (for module-scoped fixtures, which cannot use the per-test ``db_path``)."""
    import shutil

    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "toy.duckdb"
    shutil.copyfile(template, db)
    return build_toy(db, folder / "in", **kw)


def hand_accuracy(keys: dict[str, str], included: set[str], model: str) -> tuple[int, int]:
    """(correct, items) of *model* against *keys* on the *included* items,
    counted by hand from :data:`ANSWERS`."""
    answers = dict(zip(ITEMS, ANSWERS[model]))
    return sum(answers[q] == keys[q] for q in included), len(included)
