"""End to end on the real TLUE subset with its CMMLU parallel: a Tibetan
verdict recorded, the item page in Tibetan with its Chinese counterpart, the
parallel-mismatch queue filter against the links table."""
from __future__ import annotations

import pytest

from audit.review import add_review, item_view, list_reviews, review_queue, settled_verdicts
from audit.store import connect

pytestmark = pytest.mark.shared_data


@pytest.mark.slow
def test_tlue_review_round(tlue_dir, cmmlu_dir, db_path):
    from audit.ingest import import_parallel, import_tlue

    import_tlue(tlue_dir, db=db_path)
    import_parallel(cmmlu_dir, benchmark="tlue", source="cmmlu", db=db_path)
    with connect(db_path, read_only=True) as con:
        qid, key, labels = con.execute(
            "SELECT question_id, answer_key, [o.label FOR o IN options] FROM questions q "
            "WHERE benchmark = 'tlue' AND NOT structure_suspect AND len(options) = 4 "
            "AND question_id IN (SELECT question_id FROM parallel_links) ORDER BY seq LIMIT 1").fetchall()[0]
        mismatched = {r[0] for r in con.execute(
            "SELECT question_id FROM parallel_links WHERE benchmark = 'tlue' AND NOT key_match").fetchall()}
    other = next(l for l in labels if l != key)
    tibetan = {"A": "ཀ", "B": "ཁ", "C": "ག", "D": "ང"}[other]
    add_review("tlue", qid, "བསོད་ནམས།", "key_wrong", corrected_answer=tibetan, cause="translation",
               rationale="ལན་ནོར་འདུག", db=db_path)
    add_review("tlue", qid, "Dolma", "key_wrong", corrected_answer=other, cause="key_slip", db=db_path)
    v = item_view("tlue", qid, reviewer="Dolma", db=db_path)
    assert v.question.script == "Tibt" and any("\u0f00" <= ch <= "\u0fff" for ch in v.question.stem)
    assert v.parallel is not None and v.parallel.source == "cmmlu"
    assert any("\u4e00" <= ch <= "\u9fff" for ch in v.parallel.stem)
    assert [r.reviewer for r in v.history] == ["བསོད་ནམས།", "Dolma"] and not v.history_hidden
    s = settled_verdicts("tlue", db=db_path)
    assert s[["question_id", "verdict", "corrected_answer"]].values.tolist() == [[qid, "key_wrong", other]]
    assert list_reviews("tlue", qid, db=db_path)["rationale"].iloc[0] == "ལན་ནོར་འདུག"
    # no audit run yet: filter over all items
    got = set(review_queue("tlue", tiers=None, parallel_mismatch=True, db=db_path)["question_id"])
    assert got == mismatched
    rest = review_queue("tlue", tiers=None, parallel_mismatch=False, db=db_path)
    assert len(rest) + len(got) == len(review_queue("tlue", tiers=None, db=db_path)) > 600
