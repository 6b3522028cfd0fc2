"""The one aggregation analyze reads the predictions with:
``usable_cells`` and its bitmask arithmetic, checked against a plain pandas
computation over the same predictions, with more models than one mask word
(52) and more families than one family word (64)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from audit.analyze._cells import usable_cells
from audit.analyze.inputs import MASK_BITS, mask_words, model_set
from audit.errors import InputError
from audit.store import connect

N_Q, N_M, N_F = 150, 130, 70


def _fill(con, *, duplicate: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(7)
    con.execute("INSERT INTO benchmarks (name, source) VALUES ('b', 'test')")
    k = rng.integers(2, 6, N_Q)
    con.register("_tq", pa.table({
        "question_id": [f"q{i}" for i in range(N_Q)], "seq": pa.array(range(N_Q), pa.int32()),
        "options": [[{"label": "ABCDEF"[j], "text": f"t{j}"} for j in range(k[i])] for i in range(N_Q)],
        "key": ["ABCDEF"[rng.integers(0, k[i])] for i in range(N_Q)],
    }))
    con.execute("INSERT INTO questions (benchmark, question_id, seq, stem, options, answer_key) "
                "SELECT 'b', question_id, seq, 's', options, key FROM _tq")
    models = [f"m{j:03d}" for j in range(N_M)]
    con.executemany(
        "INSERT INTO models (name, family) VALUES (?, ?)", [(m, f"f{j % N_F:02d}") for j, m in enumerate(models)]
    )
    qi, mj = np.nonzero(rng.random((N_Q, N_M)) < 0.8)
    ans = np.array(list("ABCDEFG"))[rng.integers(0, 7, len(qi))]       # some outside the options
    valid = rng.random(len(qi)) < 0.95
    df = pd.DataFrame({"question_id": [f"q{i}" for i in qi], "model": [models[j] for j in mj], "answer": ans,
                       "valid": valid, "qi": qi, "mj": mj})
    if duplicate:
        df = pd.concat([df, df.iloc[[5]]])
    con.register("_tp", pa.Table.from_pandas(df[["question_id", "model", "answer", "valid"]], preserve_index=False))
    con.execute("INSERT INTO predictions (benchmark, question_id, model, run, answer, method, valid) "
                "SELECT 'b', question_id, model, 'default', answer, 'given', valid FROM _tp")
    df["n_options"] = k[df["qi"]]
    return df


def test_cells_match_a_plain_computation(db_path):
    assert mask_words(N_M) == 3 and N_M > 2 * MASK_BITS
    with connect(db_path) as con:
        df = _fill(con)
        ms = model_set(con, "b")
        con.register("_ms", ms.arrow())
        cells = usable_cells(con, "b", ms.n)
    usable = df[df["valid"] & (df["answer"].map("ABCDEF".find) < df["n_options"]) & (df["answer"] != "G")]
    fam = ms.fam_ids()
    want = usable.assign(fam=fam[usable["mj"]]).groupby(["qi", "answer"]).agg(
        cnt=("mj", "size"), nfam=("fam", "nunique"), models=("mj", lambda s: sorted(s))).reset_index()
    assert len(cells) == len(want)
    assert (cells.qn - 1).tolist() == want["qi"].tolist()          # sorted by (question, option)
    assert cells.answer.to_pylist() == want["answer"].tolist()
    assert cells.cnt.tolist() == want["cnt"].tolist()
    assert cells.family_counts(fam).tolist() == want["nfam"].tolist()
    bits = cells.bits()
    assert [np.flatnonzero(b).tolist() for b in bits] == want["models"].tolist()
    w = np.random.default_rng(1).random(N_M)
    (got_w,) = cells.weighted(w)
    assert np.allclose(got_w, [w[m].sum() for m in want["models"]], rtol=1e-12, atol=0)
    answers, per_model = cells.model_answer_counts()
    plain = usable.groupby(["mj", "answer"]).size()
    for (j, a), n in plain.items():
        assert per_model[j, list(answers).index(a)] == n
    assert per_model.sum() == len(usable)


def test_a_model_answering_twice_is_refused(db_path):
    with connect(db_path) as con:
        _fill(con, duplicate=True)
        ms = model_set(con, "b")
        con.register("_ms", ms.arrow())
        with pytest.raises(InputError, match="two predictions for one question"):
            usable_cells(con, "b", ms.n)
