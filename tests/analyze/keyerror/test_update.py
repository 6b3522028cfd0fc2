"""The verdict-driven update (audit.analyze.keyerror._update) on toy
DataFrames, no database: each weight it measures on settled items checked
by hand, and the scores it gives."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from audit.analyze.keyerror import (
    PHI_PRIOR,
    PHI_PRIOR_MEAN,
    combined_score,
    misconception_split,
    update_scores,
    update_weights,
)

NO_JUDGES = pd.DataFrame({"question_id": pd.Series(dtype=object), "judge": pd.Series(dtype=object),
                          "answer_key_correct": pd.Series(dtype=bool)})


def _items(n: int, **cols) -> pd.DataFrame:
    """The fit's stored parts of ``n`` items (as the review stage reads
    them); ``cols`` override the defaults: one subject, p_reject 0.5 at
    agreement 0.95 (the top band), no parallel source, no lint, no judges."""
    base = {"question_id": [f"q{i}" for i in range(n)], "subject": ["s"] * n, "score": [0.1] * n,
            "p_reject": [0.5] * n, "agreement_share": [0.95] * n, "prior_logit": [math.log(0.02 / 0.98)] * n,
            "llr_models": [1.0] * n, "llr_parallel": [0.0] * n, "llr_lint": [0.0] * n, "fixed_reason": [None] * n,
            "has_parallel": [False] * n, "par_mismatch": [False] * n, "fit_llr_judges": [0.0] * n,
            "fit_n_judges": [0] * n}
    base.update(cols)
    return pd.DataFrame(base)


def test_no_verdict_keeps_the_prior():
    r = misconception_split(_items(4), pd.Series(dtype=object))
    assert r["phi"].tolist() == list(PHI_PRIOR_MEAN)
    assert np.allclose(r["alpha"] + r["beta"], [a + b for a, b in PHI_PRIOR])


def test_one_wrong_key_by_hand():
    """One settled wrong key that the models reject (p_reject 1, top band).
    Expected wrong keys under the prior 0.32, observed 1; the prior's mean
    pseudo-count s = mean(6·0.24, 6·0.24, 6·0.32) = 1.6, so every band's
    mean is scaled by (1.6 + 1) / (1.6 + 0.32) = 1.3542: 0.325, 0.325,
    0.4333.  Then the top band's Beta(6·0.4333 + 1, 6·0.5667) has mean
    3.6 / 7 = 0.514."""
    ke = _items(2, p_reject=[1.0, 0.3])
    r = misconception_split(ke, pd.Series({"q0": "key_wrong"}))
    assert r["phi"].tolist() == [0.325, 0.325, 0.514]
    assert r["alpha"].tolist() == pytest.approx([1.95, 1.95, 3.6])
    assert r["beta"].tolist() == pytest.approx([4.05, 4.05, 3.4])


def test_confirmed_keys_lower_the_split_step_by_step():
    """Each further key confirmed on an item the models reject lowers φ in
    every band (never raises it)."""
    ke = _items(6, p_reject=[1.0] * 6)
    phis = [misconception_split(ke, pd.Series({f"q{i}": "key_correct" for i in range(k)}))["phi"]
            for k in range(6)]
    assert all(np.all(b <= a) and np.any(b < a) for a, b in zip(phis, phis[1:]))


def test_a_settled_item_moves_its_subjects_rate_by_one_em_step():
    """Subject s: two unsettled items (p_reject 0.5, 0.1) and one settled
    wrong key: (0.5 + 0.1 + 1 + 100·0.02) / (3 + 100).  Subject t has no
    settled item: (0.3 + 100·0.02) / (1 + 100)."""
    ke = _items(4, subject=["s", "s", "s", "t"], p_reject=[0.5, 0.1, 0.9, 0.3])
    w = update_weights(ke, pd.Series({"q2": "key_wrong"}), NO_JUDGES, [], 0.02)
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
    w = update_weights(ke, settled, NO_JUDGES, [], 0.02)
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
    w = update_weights(ke, settled, jv, ["j1", "j2"], 0.02)
    jt = w["judges"].set_index("judge")
    assert jt.loc["j1", "sens"] == pytest.approx(4 / 6) and jt.loc["j1", "spec"] == pytest.approx(9 / 11)
    assert jt.loc["j1", "llr_wrong"] == pytest.approx(math.log((4 / 6) / (2 / 11)))
    assert jt.loc["j2", "sens"] == pytest.approx(0.6) and jt.loc["j2", "spec"] == pytest.approx(0.8)
    assert jt.loc["j1", ["tp", "tn", "fp", "fn"]].tolist() == [1, 1, 0, 0]
    out = update_scores(ke, settled, w, jv, 7).set_index("question_id")
    # q2: both judges say "key wrong": their log LRs add up
    want = jt.loc["j1", "llr_wrong"] + jt.loc["j2", "llr_wrong"]
    assert out.loc["q2", "llr_judges"] == pytest.approx(want) and out.loc["q2", "n_judges"] == 2


def test_scores_of_settled_and_unsettled_items():
    ke = _items(4, p_reject=[0.9, 0.9, 0.9, 0.9], llr_models=[3.0, 3.0, 3.0, 1.0],
                fixed_reason=[None, None, None, None])
    settled = pd.Series({"q0": "key_wrong", "q1": "key_correct"})
    w = update_weights(ke, settled, NO_JUDGES, [], 0.02)
    out = update_scores(ke, settled, w, NO_JUDGES, 7)
    assert out["run_id"].tolist() == [7] * 4
    assert out.loc[0, ["score", "p_reject"]].tolist() == [1.0, 1.0]
    assert out.loc[1, "score"] == 0.0
    phi = w["phi"][2]                          # every item in the top band
    prior = out.loc[2, "prior_logit"]
    assert prior == pytest.approx(math.log(w["subject_rate"]["s"] / (1 - w["subject_rate"]["s"])))
    # a key settled right may still be a shared misconception: σ(prior + llr + log(1 − φ))
    assert out.loc[1, "p_reject"] == pytest.approx(1 / (1 + math.exp(-(prior + 3.0 + math.log(1 - phi)))))
    s2, b2 = combined_score(prior, 3.0, 0.0, phi)
    assert out.loc[2, "score"] == pytest.approx(float(s2)) and out.loc[2, "p_reject"] == pytest.approx(float(b2))
    assert out.loc[3, "score"] < out.loc[2, "score"]          # weaker evidence from the models
    assert out["settled_verdict"].tolist() == ["key_wrong", "key_correct", None, None]


def test_items_outside_the_model_keep_their_fixed_score():
    ke = _items(2, llr_models=[np.nan, 1.0], score=[1.0, 0.1], p_reject=[1.0, 0.5],
                fixed_reason=["key_not_in_options", None])
    w = update_weights(ke, pd.Series(dtype=object), NO_JUDGES, [], 0.02)
    out = update_scores(ke, pd.Series(dtype=object), w, NO_JUDGES, 1)
    assert out.loc[0, "score"] == 1.0 and out.loc[0, "p_reject"] == 1.0


def test_the_fits_judge_evidence_is_kept():
    """An item whose judge runs the fit weighed keeps the fit's λ and count
    rather than the verdicts' measured weights."""
    ke = _items(2, fit_llr_judges=[2.5, 0.0], fit_n_judges=[3, 0])
    jv = pd.DataFrame({"question_id": ["q0", "q1"], "judge": ["j1", "j1"], "answer_key_correct": [False, False]})
    w = update_weights(ke, pd.Series(dtype=object), jv, ["j1"], 0.02)
    out = update_scores(ke, pd.Series(dtype=object), w, jv, 1)
    assert out.loc[0, "llr_judges"] == 2.5 and out.loc[0, "n_judges"] == 3
    assert out.loc[1, "llr_judges"] == pytest.approx(w["judges"].set_index("judge").loc["j1", "llr_wrong"])
