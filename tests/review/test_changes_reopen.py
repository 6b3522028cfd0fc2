"""A settled key that new models strongly reject is reopened — its verdict
stands — and only when the evidence crossed the threshold after the
settlement (the demo: six keys settled right where the models were split,
then four new models answering the alternative)."""
from __future__ import annotations

import duckdb
import pytest

from audit.review import settled_verdicts
from audit.review.changes import REOPEN_THRESHOLD, against_settled_key, review_changes
from tests.support.living import build_living

pytestmark = [pytest.mark.slow, pytest.mark.shared_data]


def test_reopened_items_are_exactly_those_whose_settled_key_crossed(tmp_path):
    from tests.conftest import shared_path

    shared = shared_path("tlue_subset670").parent
    db = tmp_path / "w.duckdb"
    out = build_living(db, shared, tmp_path)
    con = duckdb.connect(str(db), read_only=True)
    runs = [r[0] for r in con.execute("SELECT run_id FROM audit_runs WHERE benchmark = 'demo' ORDER BY run_id")
            .fetchall()]
    settled = con.execute("SELECT r.question_id, r.verdict, r.corrected_answer, q.answer_key FROM reviews r "
                          "JOIN questions q USING (benchmark, question_id) WHERE r.benchmark = 'demo'").fetchall()
    want = set()
    for qid, verdict, fix, key in settled:
        vals = []
        for run in (runs[0], runs[-1]):
            p_reject, alt, p_alt = con.execute(
                "SELECT coalesce(p_reject, score), alternative, p_alternative FROM key_error_scores "
                "WHERE run_id = ? AND question_id = ?", [run, qid]).fetchone()
            vals.append(against_settled_key(fix or key, key, p_reject, alt, p_alt))
        if vals[1] >= REOPEN_THRESHOLD > vals[0]:
            want.add(qid)
    con.close()
    assert want and set(out["reopened"]) == want
    ch = review_changes("demo", db=db, lang="zh-Hans")
    r = ch[ch["change"] == "reopened"].iloc[0]
    assert "已定论" in r["reason"] and r["settled_verdict"] == "key_correct"
    s = settled_verdicts("demo", db=db).set_index("question_id")
    assert all(s.loc[q, "verdict"] == "key_correct" for q in want)      # the verdict stands
