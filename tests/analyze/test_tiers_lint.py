"""The duplicate-option lint's whitespace rule (the one-pass rewrite made its candidate
filter cheaper): option texts equal after collapsing runs of space, tab,
newline, carriage return and form feed are duplicates; other characters
(a vertical tab, case) still tell options apart.  Checked against an
independent Python rule."""
from __future__ import annotations

import re

from audit.analyze import analyze_benchmark, audit_lint
from tests.support.analyze_data import make_benchmark

TEXTS = {
    "q00": ["a b", "a\tb", "c", "d"],            # tab vs space
    "q01": ["x\ny", "x y", "x  y", "z"],         # newline, double space: three the same
    "q02": ["p\rq", "p\fq", "pq", "r"],          # CR vs FF; 'pq' differs (no whitespace at all)
    "q03": ["m\vn", "m n", "o", "s"],            # vertical tab is not whitespace here
    "q04": [" lead", "lead ", "Lead", "t"],       # trimmed; case differs
    "q05": ["one", "two", "three", "four"],       # no duplicates
    "q06": ["u\t\tv", "u \n v", "w", "w\t"],      # two pairs
}


def _expected() -> dict[str, str]:
    out = {}
    for qid, texts in TEXTS.items():
        groups: dict[str, list[str]] = {}
        for label, t in zip("ABCD", texts):
            groups.setdefault(re.sub(r"[ \t\n\r\f]+", " ", t).strip(), []).append(label)
        dups = sorted(" = ".join(ls) for ls in groups.values() if len(ls) > 1)
        if dups:
            out[qid] = "; ".join(f"options {d} have the same text" for d in dups)
    return out


def test_duplicate_options_whitespace_rule(tmp_path):
    db = tmp_path / "w.duckdb"
    questions = [(q, 4, "A") for q in TEXTS]
    preds = {(q, m): "A" for q in TEXTS for m in ("m1", "m2")}
    make_benchmark(db, "w", questions, {"m1": "f1", "m2": "f2"}, preds, option_texts=TEXTS)
    analyze_benchmark("w", db=db)
    lint = audit_lint("w", db=db)
    got = dict(lint[lint["kind"] == "duplicate_options"][["question_id", "detail"]].itertuples(index=False))
    assert got == _expected()
    assert set(got) == {"q00", "q01", "q02", "q04", "q06"}
