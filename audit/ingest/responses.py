"""Stored raw responses read again: the contract between importing and
re-extracting.

The rows of ``predictions`` that carry a raw response and were extracted
(method not 'given'), with their items' option texts; the letters a method
gives them, per option count; and the letters written back.  An import with
method 'final' uses it to settle by option text what the letters left open
(:func:`answer_by_option_text`); the predict stage's re-extraction
(``audit predictions reextract``) reads and writes through it.  Reading and
writing are set-based SQL; the letters are extracted in bulk in Python (the
rules are Python).
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any

import pandas as pd
import pyarrow as pa

from audit._util.sql import unregister
from audit.ingest.extract import extract_answers
from audit.options import MAX_OPTIONS, MIN_OPTIONS

__all__ = ["stored_responses", "extract_rows", "write_letters", "answer_by_option_text"]


def stored_responses(con: Any, where: str, params: list) -> pd.DataFrame:
    """The extracted predictions matching ``where`` (SQL over ``p``, the
    predictions, and ``q``, the questions) that carry a raw response, in
    benchmark order per (model, run): question_id, model, run, response,
    answer, method, options (the option texts), stem and opts (the options)."""
    return con.execute(
        "SELECT p.question_id, p.model, p.run, p.response, p.answer, p.method, "
        "list_transform(q.options, lambda o: o.text) AS options, q.stem, q.options AS opts "
        "FROM predictions p JOIN questions q USING (benchmark, question_id) "
        f"WHERE p.response IS NOT NULL AND p.method <> 'given' AND {where} ORDER BY p.model, p.run, q.seq",
        params).df()


def extract_rows(df: pd.DataFrame, method: str) -> list[str | None]:
    """Letters for the rows of ``df`` (response, options), grouped by option count.

    >>> df = pd.DataFrame({"response": ["Answer: B", "Paris"], "options": [["x", "y"], ["Rome", "Paris", "Oslo"]]})
    >>> extract_rows(df, "final")
    ['B', 'B']
    """
    out: list[str | None] = [None] * len(df)
    groups: dict[int, list[int]] = defaultdict(list)
    opts = df["options"].tolist()
    for i, o in enumerate(opts):
        if o is not None and MIN_OPTIONS <= len(o) <= MAX_OPTIONS:
            groups[len(o)].append(i)
    texts = df["response"].tolist()
    for k, idx in groups.items():
        got = extract_answers([texts[i] for i in idx], k, method, options=[list(opts[i]) for i in idx])
        for i, letter in zip(idx, got):
            out[i] = letter
    return out


def write_letters(con: Any, benchmark: str, df: pd.DataFrame, letters: list[str | None], method: str) -> None:
    """Set answer, valid and method of the predictions of ``df`` (question_id,
    model, run) to ``letters``, in the caller's transaction."""
    table = pa.table({"question_id": pa.array(df["question_id"].tolist(), pa.string()),
                      "model": pa.array(df["model"].tolist(), pa.string()),
                      "run": pa.array(df["run"].tolist(), pa.string()),
                      "letter": pa.array(letters, pa.string())})
    con.register("_reext", table)
    try:
        con.execute(
            "UPDATE predictions p SET answer = r.letter, valid = r.letter IS NOT NULL, method = ? FROM _reext r "
            "WHERE p.benchmark = ? AND p.question_id = r.question_id AND p.model = r.model AND p.run = r.run",
            [method, benchmark])
    finally:
        unregister(con, "_reext")


def answer_by_option_text(con: Any, benchmark: str, pairs: str) -> int:
    """After an import with method 'final': the responses of the (model, run)
    pairs in table ``pairs`` that the letters left unanswered, extracted
    again with the items' option texts (an answer given by its text, a first
    line that is an option).  Returns how many got an answer.  Runs in the
    caller's transaction."""
    df = stored_responses(con, f"p.benchmark = ? AND p.answer IS NULL AND p.method = 'final' "
                               f"AND (p.model, p.run) IN (SELECT (model, run) FROM {pairs})", [benchmark])
    if df.empty:
        return 0
    letters = extract_rows(df, "final")
    keep = [i for i, x in enumerate(letters) if x is not None]
    if keep:
        write_letters(con, benchmark, df.iloc[keep], [letters[i] for i in keep], "final")
    return len(keep)
