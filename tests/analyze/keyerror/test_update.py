"""The verdict-driven update (audit.analyze.keyerror._update) on toy
DataFrames, no database: each weight it measures on settled items checked
by hand, the level (moved by the audit sample only, bounded by the wrong
keys found) and the scores it gives."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from audit.analyze.keyerror import SPLIT_PRIOR, allocation, misconception_share, scores, update_scores, update_weights

NO_JUDGES = pd.DataFrame({"question_id": pd.Series(dtype=object), "judge": pd.Series(dtype=object),
                          "answer_key_correct": pd.Series(dtype=bool)})
SPLIT = {"pi_a": 1.386, "pi_b": 58.614, "s_a": 15.68, "s_b": 4.32, "accuracy": 0.5}


def _items(n: int, **cols) -> pd.DataFrame:
    """The fit's stored parts of ``n`` items (as the review stage reads
    them); ``cols`` override the defaults: one subject, p_reject 0.5, no
    parallel source, no lint, no judges, no audit sample."""
    base = {"question_id": [f"q{i}" for i in range(n)], "subject": ["s"] * n, "score": [0.1] * n,
            "p_reject": [0.5] * n, "prior_logit": [math.log(0.02 / 0.98)] * n, "evidence_share": [0.5] * n,
            "top_holds": [0.0] * n, "llr_models": [1.0] * n, "llr_parallel": [0.0] * n, "llr_lint": [0.0] * n,
            "fixed_reason": [None] * n, "has_parallel": [False] * n, "par_mismatch": [False] * n,
            "fit_llr_judges": [0.0] * n, "fit_n_judges": [0] * n}
    base.update(cols)
    return pd.DataFrame(base)


def _many(n: int = 200, n_rejected: int = 10, **cols) -> pd.DataFrame:
    """``n`` items, the first ``n_rejected`` rejected by the models."""
    rej = np.arange(n) < n_rejected
    return _items(n, p_reject=np.where(rej, 0.95, 0.01), llr_models=np.where(rej, 5.0, -2.0),
                  evidence_share=np.where(rej, 0.8, -0.5), top_holds=np.where(rej, 0.0, 1.0),
                  score=np.where(rej, 0.3, 0.002), **cols)


def test_no_verdict_keeps_the_level():
    ke = _many()
    w = update_weights(ke, pd.Series(dtype=object), NO_JUDGES, [], 0.02, SPLIT)
    assert (w["level"].a, w["level"].b) == (SPLIT["pi_a"], SPLIT["pi_b"])
    out = update_scores(ke, pd.Series(dtype=object), w, NO_JUDGES, 1)
    assert out["score"].sum() == pytest.approx(200 * 1.386 / 60, rel=1e-9)      # n·π


def test_a_wrong_key_found_leaves_fewer_for_the_rest():
    """The level does not move with a verdict from the queue; the item is
    clamped to 1 and the other items share n·π − 1."""
    ke = _many()
    settled = pd.Series({"q0": "key_wrong", "q1": "key_correct"})
    w = update_weights(ke, settled, NO_JUDGES, [], 0.02, SPLIT)
    assert (w["level"].a, w["level"].b) == (SPLIT["pi_a"], SPLIT["pi_b"])
    out = update_scores(ke, settled, w, NO_JUDGES, 1)
    total = 200 * w["level"].mean
    assert out.loc[0, "score"] == 1.0 and out.loc[1, "score"] == 0.0
    assert out["score"].iloc[2:].sum() == pytest.approx(total - 1.0, rel=1e-9)
    before = update_scores(ke, pd.Series(dtype=object), update_weights(ke, pd.Series(dtype=object), NO_JUDGES, [],
                                                                        0.02, SPLIT), NO_JUDGES, 1)
    assert out["score"].iloc[2:].sum() < before["score"].iloc[2:].sum()


def test_a_campaign_that_found_the_whole_level_keeps_the_rest_in_order():
    """Ten wrong keys found among 200 items (the level expects 4.6): the rest
    keep REST_MIN between them, in the order of their odds."""
    from audit.analyze.keyerror._split import REST_MIN

    ke = _many()
    settled = pd.Series({f"q{i}": "key_wrong" for i in range(10)})
    w = update_weights(ke, settled, NO_JUDGES, [], 0.02, SPLIT)
    out = update_scores(ke, settled, w, NO_JUDGES, 1)
    assert out["score"].iloc[10:].sum() == pytest.approx(REST_MIN, rel=1e-9)
    assert out["score"].iloc[10:].min() > 0


def test_the_audit_sample_moves_the_level_by_hand():
    """One stratum (none), 100 of 200 items drawn and settled right: the
    design-based rate is 0 on 100 items, so π ~ Beta(1.386, 58.614 + 100)."""
    ke = _many(sample_stratum=["all"] * 200, sampled=np.arange(200) >= 100)
    settled = pd.Series({f"q{i}": "key_correct" for i in range(100, 200)})
    w = update_weights(ke, settled, NO_JUDGES, [], 0.02, SPLIT)
    assert w["level"].a == pytest.approx(1.386) and w["level"].b == pytest.approx(158.614)
    # the same verdicts outside the sample (from the queue) leave the level alone
    w2 = update_weights(ke.assign(sampled=False), settled, NO_JUDGES, [], 0.02, SPLIT)
    assert (w2["level"].a, w2["level"].b) == (SPLIT["pi_a"], SPLIT["pi_b"])


def test_a_key_settled_right_can_still_be_a_misconception():
    """P(B ≠ key | answers, key right) = (p − q)/(1 − q): 0.95 rejected, 0.3
    wrong → 0.65/0.7."""
    assert misconception_share([0.95], [0.3])[0] == pytest.approx(0.65 / 0.7)
    ke = _many()
    settled = pd.Series({"q1": "key_correct"})
    w = update_weights(ke, settled, NO_JUDGES, [], 0.02, SPLIT)
    out = update_scores(ke, settled, w, NO_JUDGES, 1)
    assert out.loc[1, "p_reject"] == pytest.approx(0.65 / 0.7)


def test_unsettled_scores_follow_the_split():
    """No verdict: every score is :func:`scores` on the allocation rebuilt
    from the stored parts, at the level's total."""
    ke = _many()
    w = update_weights(ke, pd.Series(dtype=object), NO_JUDGES, [], 0.02, SPLIT)
    out = update_scores(ke, pd.Series(dtype=object), w, NO_JUDGES, 1)
    eps = w["subject_rate"]["s"]
    p = 1 / (1 + np.exp(-(math.log(eps / (1 - eps)) + ke["llr_models"].to_numpy())))
    h1, h0 = allocation(p, ke["evidence_share"], ke["top_holds"], np.full(200, eps), SPLIT_PRIOR, 0.5)
    want, _ = scores(h1, h0, 15.68 / 20, 200 * w["level"].mean)
    np.testing.assert_allclose(out["score"], want, rtol=1e-12)
    np.testing.assert_allclose(out["alloc_wrong"], h1, rtol=1e-12)


def test_a_settled_item_moves_its_subjects_rate_by_one_em_step():
    """Subject s: two unsettled items (p_reject 0.5, 0.1) and one settled
    wrong key: (0.5 + 0.1 + 1 + 100·0.02) / (3 + 100).  Subject t has no
    settled item: (0.3 + 100·0.02) / (1 + 100)."""
    ke = _items(4, subject=["s", "s", "s", "t"], p_reject=[0.5, 0.1, 0.9, 0.3])
    w = update_weights(ke, pd.Series({"q2": "key_wrong"}), NO_JUDGES, [], 0.02, SPLIT)
    assert w["subject_rate"]["s"] == pytest.approx(3.6 / 103)
    assert w["subject_rate"]["t"] == pytest.approx(2.3 / 101)
    assert w["n_settled"] == 1


def test_parallel_source_measured_on_settled_items():
    """Two settled wrong keys, one where the parallel key differs; three
    confirmed keys, all matching.  With the priors Beta(2, 2) and Beta(9, 1):
    sensitivity (1 + 2) / (2 + 4) = 0.5, specificity (3 + 9) / (3 + 10)."""
    ke = _items(6, has_parallel=[True] * 5 + [False], par_mismatch=[True, False, False, False, False, True])
    settled = pd.Series({"q0": "key_wrong", "q1": "key_wrong", "q2": "key_correct", "q3": "key_correct",
                         "q4": "key_correct"})
    w = update_weights(ke, settled, NO_JUDGES, [], 0.02, SPLIT)
    assert w["parallel"]["sens"] == pytest.approx(0.5)
    assert w["parallel"]["spec"] == pytest.approx(12 / 13)
    assert w["parallel"]["n_settled"] == 5
    out = update_scores(ke, pd.Series(dtype=object), w, NO_JUDGES, 7)
    # an unsettled item with a differing parallel key gets log(sens / (1 − spec)); q5 has none
    assert out.loc[0, "llr_parallel"] == pytest.approx(math.log(0.5 / (1 / 13)))
    assert out.loc[2, "llr_parallel"] == pytest.approx(math.log(0.5 / (12 / 13)))
    assert out.loc[5, "llr_parallel"] == 0.0


def test_judges_measured_on_settled_items():
    """Judge j1 said "wrong" on the settled wrong key and "right" on the
    confirmed one: sensitivity (1 + 3) / (1 + 5), specificity (1 + 8) / (1 +
    10) (priors Beta(3, 2) and Beta(8, 2)); j2 judged no settled item and
    keeps its priors' means, 0.6 and 0.8."""
    ke = _items(3)
    jv = pd.DataFrame({"question_id": ["q0", "q1", "q2", "q2"], "judge": ["j1", "j1", "j1", "j2"],
                       "answer_key_correct": [False, True, False, False]})
    settled = pd.Series({"q0": "key_wrong", "q1": "key_correct"})
    w = update_weights(ke, settled, jv, ["j1", "j2"], 0.02, SPLIT)
    jt = w["judges"].set_index("judge")
    assert jt.loc["j1", "sens"] == pytest.approx(4 / 6) and jt.loc["j1", "spec"] == pytest.approx(9 / 11)
    assert jt.loc["j1", "llr_wrong"] == pytest.approx(math.log((4 / 6) / (2 / 11)))
    assert jt.loc["j2", "sens"] == pytest.approx(0.6) and jt.loc["j2", "spec"] == pytest.approx(0.8)
    assert jt.loc["j1", ["tp", "tn", "fp", "fn"]].tolist() == [1, 1, 0, 0]
    out = update_scores(ke, settled, w, jv, 7).set_index("question_id")
    # q2: both judges say "key wrong": their log LRs add up
    want = jt.loc["j1", "llr_wrong"] + jt.loc["j2", "llr_wrong"]
    assert out.loc["q2", "llr_judges"] == pytest.approx(want) and out.loc["q2", "n_judges"] == 2


def test_items_outside_the_model_keep_their_fixed_score():
    ke = _items(2, llr_models=[np.nan, 1.0], score=[1.0, 0.1], p_reject=[1.0, 0.5],
                fixed_reason=["key_not_in_options", None])
    w = update_weights(ke, pd.Series(dtype=object), NO_JUDGES, [], 0.02, SPLIT)
    out = update_scores(ke, pd.Series(dtype=object), w, NO_JUDGES, 1)
    assert out.loc[0, "score"] == 1.0 and out.loc[0, "p_reject"] == 1.0
    assert out.loc[1, "score"] == pytest.approx(1 * w["level"].mean)     # the one scored item holds n·π


def test_the_fits_judge_evidence_is_kept():
    """An item whose judge runs the fit weighed keeps the fit's λ and count
    rather than the verdicts' measured weights."""
    ke = _items(2, fit_llr_judges=[2.5, 0.0], fit_n_judges=[3, 0])
    jv = pd.DataFrame({"question_id": ["q0", "q1"], "judge": ["j1", "j1"], "answer_key_correct": [False, False]})
    w = update_weights(ke, pd.Series(dtype=object), jv, ["j1"], 0.02, SPLIT)
    out = update_scores(ke, pd.Series(dtype=object), w, jv, 1)
    assert out.loc[0, "llr_judges"] == 2.5 and out.loc[0, "n_judges"] == 3
    assert out.loc[1, "llr_judges"] == pytest.approx(w["judges"].set_index("judge").loc["j1", "llr_wrong"])
