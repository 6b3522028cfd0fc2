"""Builders shared by the review tests: a small benchmark written straight
into a real DuckDB file (questions, models, predictions, a current audit run
with chosen tiers, an optional parallel link), independent of the importers
and of the analysis code so these tests pin the review logic only."""
from __future__ import annotations

import json

from audit.store import connect, transaction

SUBJECTS = ("history", "grammar", "medicine")


def make_bench(db, *, benchmark="bench", n=12, tiers=None, models=None, scripts=None, stems=None):
    """``n`` items q01..qNN with 4 options, key 'A', subjects cycling over
    SUBJECTS; ``tiers`` maps question_id → tier (default: q01–q04 tier 1,
    q05–q06 tier 2, the rest tier 5); ``models`` maps model → family;
    every model answers 'B' on tier-1/2 items and 'A' otherwise."""
    ids = [f"q{i:02d}" for i in range(1, n + 1)]
    tiers = tiers or {q: (1 if i < 4 else 2 if i < 6 else 5) for i, q in enumerate(ids)}
    models = models or {"claude-x": "anthropic", "gemini-y": "google", "gpt-z": "openai"}
    with connect(db) as con, transaction(con):
        con.execute("INSERT INTO benchmarks (name, source) VALUES (?, 'test') ON CONFLICT DO NOTHING", [benchmark])
        for i, q in enumerate(ids):
            con.execute(
                "INSERT INTO questions (benchmark, question_id, seq, subject, language, script, stem, options, "
                "answer_key, structure_suspect, structure_reason, flags) "
                "VALUES (?, ?, ?, ?, 'bo', 'Tibt', ?, ?, 'A', ?, ?, ?)",
                [
                    benchmark,
                    q,
                    i,
                    SUBJECTS[i % len(SUBJECTS)],
                    (stems or {}).get(q, f"stem of {q}"),
                    [{"label": l, "text": f"option {l} of {q}"} for l in "ABCD"],
                    i == 2,
                    "options merged" if i == 2 else None,
                    ["structure_suspect"] if i == 2 else [],
                ],
            )
        for m, fam in models.items():
            con.execute("INSERT INTO models (name, family) VALUES (?, ?) ON CONFLICT DO NOTHING", [m, fam])
        for q in ids:
            ans = "B" if tiers.get(q) in (1, 2) else "A"
            for m in models:
                con.execute(
                    "INSERT INTO predictions (benchmark, question_id, model, response, answer, method, valid) "
                    "VALUES (?, ?, ?, ?, ?, 'caa', true)", [benchmark, q, m, f"The answer is {ans}.", ans])
        run_id = con.execute(
            "INSERT INTO audit_runs (run_id, benchmark, config, models) "
            "VALUES (nextval('audit_run_seq'), ?, ?, ?) RETURNING run_id",
            [benchmark, json.dumps({"t1": 3}), sorted(models)]).fetchone()[0]
        for i, q in enumerate(ids):
            t = tiers.get(q)
            flagged = t in (1, 2)
            con.execute(
                "INSERT INTO audit_results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [run_id, benchmark, q, t, f"tier{t}" if t is not None else "incomplete",
                 "B" if flagged else None, len(models) - (i % 2 if flagged else 0) if flagged else 0,
                 len(set(models.values())) if flagged else 0, len(models), len(models),
                 0 if flagged else len(models)])
    return ids


def link_parallel(db, benchmark, question_id, *, key="A", key_match=True):
    with connect(db) as con:
        con.execute(
            "INSERT INTO parallel_links VALUES (?, ?, 'cmmlu', ?, 'zh', ?, ?, ?, ?)",
            [benchmark, question_id, f"agronomy.csv:{question_id}", f"中文 {question_id}",
             [{"label": l, "text": f"选项{l}"} for l in "ABCD"], key, key_match])


_TEMPLATES: dict = {}


def bench_copy(tmp_path, name="test.duckdb", **kwargs):
    """A fresh copy of a migrated database holding ``make_bench(**kwargs)``
    (built once per test session; copying a file is much faster than
    migrating and filling a new one for every test)."""
    import shutil
    import tempfile
    from pathlib import Path

    from audit.store import init_db

    key = repr(sorted(kwargs.items()))
    if key not in _TEMPLATES:
        path = Path(tempfile.mkdtemp(prefix="review-template-")) / "template.duckdb"
        init_db(path)
        make_bench(path, **kwargs)
        _TEMPLATES[key] = path
    dest = Path(tmp_path) / name
    shutil.copyfile(_TEMPLATES[key], dest)
    return dest
