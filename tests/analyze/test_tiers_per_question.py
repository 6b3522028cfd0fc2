"""The tiers' per-question figures computed from the cells in NumPy (issue
24) equal DuckDB's aggregation they replaced: ``max({c, f, -ascii(a), a})``
over the non-key answers, with ties on models, families and first letter."""
from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa

from audit.analyze._cells import Cells
from audit.analyze.tiers import _per_question


def test_per_question_matches_duckdb_struct_max():
    rng = np.random.default_rng(7)
    labels = np.array(["A", "B", "C", "D", "Aa", "Ab", "ཀ", "ཁ", "1"], dtype=object)
    rows = []
    for qn in range(1, 400):
        k = rng.integers(1, 6)
        for lab in rng.choice(labels, size=k, replace=False):
            rows.append((qn, lab, bool(rng.random() < 0.3), int(rng.integers(1, 4)), int(rng.integers(1, 3))))
    rows.sort(key=lambda r: (r[0], r[1]))
    qn, ans, is_key, cnt, nfam = map(list, zip(*rows))
    cells = Cells(qn=np.array(qn), y=np.zeros(len(qn), np.int64), answer=pa.array(ans, pa.string()),
                  is_key=np.array(is_key), cnt=np.array(cnt), masks=np.zeros((len(qn), 1)), n_models=3)
    got = _per_question(cells, np.array(nfam)).to_pylist()
    con = duckdb.connect()
    con.register("_agg", pa.table({"qn": qn, "answer": ans, "is_key": is_key, "cnt": cnt, "nfam": nfam}))
    want = con.execute("""
        SELECT qn, sum(cnt)::INTEGER, coalesce(sum(cnt) FILTER (WHERE is_key), 0)::INTEGER, top.a,
               coalesce(top.c, 0)::INTEGER, coalesce(top.f, 0)::INTEGER
        FROM (SELECT qn, cnt, is_key,
                     max({'c': cnt, 'f': nfam, 'l': -ascii(answer), 'a': answer}) FILTER (WHERE NOT is_key)
                       OVER (PARTITION BY qn) AS top FROM _agg)
        GROUP BY qn, top ORDER BY qn""").fetchall()
    assert [tuple(r.values()) for r in got] == want
    assert any(r["top_a"] is None for r in got) and any(r["top_a"] in ("Aa", "Ab") for r in got)
