"""Tiny benchmarks written through the public importers: a question CSV and
a long prediction CSV in a scratch folder, imported into a DuckDB file (for
unit tests that need real rows, far smaller than the demo)."""
from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd


def write_questions(path: Path, items: list[tuple[str, str, list[str], str]], **extra) -> Path:
    """A question CSV: items are (id, stem, option texts, key letter)."""
    width = max(len(o) for _, _, o, _ in items)
    rows = []
    for qid, stem, opts, key in items:
        row = {"id": qid, "question": stem, "answer": key}
        row.update({chr(65 + i): (opts[i] if i < len(opts) else "") for i in range(width)})
        row.update(extra)
        rows.append(row)
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def tiny_benchmark(db: Path, work: Path, *, name: str = "tiny", n: int = 6, answers: dict | None = None) -> list[str]:
    """``n`` four-option items (keys A, B, C, D, A, …) in benchmark ``name``,
    and, when ``answers`` is given ({model: [letter per item]}), those
    predictions.  Returns the question ids."""
    from audit.ingest import import_predictions, import_questions

    items = [(f"q{i + 1}", f"Question {i + 1}?", [f"opt {i + 1}{c}" for c in "abcd"], "ABCD"[i % 4])
             for i in range(n)]
    work.mkdir(parents=True, exist_ok=True)
    import_questions(write_questions(work / f"{name}_questions.csv", items), benchmark=name, db=db)
    if answers:
        rows = [(qid, m, a) for m, letters in answers.items() for (qid, *_), a in zip(items, letters)]
        f = work / f"{name}_predictions.csv"
        pd.DataFrame(rows, columns=["question_id", "model", "answer"]).to_csv(f, index=False)
        import_predictions(f, benchmark=name, db=db)
    return [qid for qid, *_ in items]


def query(db: Path, sql: str, params=()) -> pd.DataFrame:
    """One read-only query of the file, as a DataFrame."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, list(params)).df()
    finally:
        con.close()


def rows(db: Path, sql: str, params=()) -> list[tuple]:
    """One read-only query of the file, as plain tuples (NULL is None)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, list(params)).fetchall()
    finally:
        con.close()


# Answers of four models on the 12 items of tiny_benchmark(n=12) (keys ABCD ABCD ABCD): two items where
# most models give another answer (q9: B, q12: A), one where one model strays.
ANSWERS = {"gpt-4o": "ABCDABCDBBCD", "llama-3-70b": "ABCDABCDBBCA", "qwen2.5-72b": "ABCDABCABBCA",
           "claude-3-opus": "ABCDBBCDBBCA"}


def analysed_tiny(template: Path, work: Path) -> Path:
    """A copy of the migrated ``template`` in ``work`` holding 'tiny' (12
    items, the four models of :data:`ANSWERS`), analysed."""
    import shutil

    from audit.analyze import analyze_benchmark

    db = work / "tiny.duckdb"
    shutil.copyfile(template, db)
    tiny_benchmark(db, work, n=12, answers=ANSWERS)
    analyze_benchmark("tiny", db=db)
    return db
