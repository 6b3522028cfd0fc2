"""Judge runs' verdicts in the key-error score, each run's weight
estimated from the data (audit.analyze.keyerror.judge_evidence)."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from audit.analyze.keyerror import judge_evidence, scores
from tests.conftest import shared_path
from tests.support.cli_process import run_audit


def _ap(score, y) -> float:
    """Average precision, ties taken together (independent of the bench's)."""
    s, y = np.asarray(score, float), np.asarray(y, bool)
    ap, tp, fp = 0.0, 0, 0
    for t in sorted(set(s), reverse=True):
        m = s == t
        tp_new, fp_new = tp + int(y[m].sum()), fp + int((~y[m]).sum())
        ap += (tp_new - tp) / y.sum() * tp_new / (tp_new + fp_new)
        tp, fp = tp_new, fp_new
    return ap


def _simulate(seed=0, n=2000):
    rng = np.random.default_rng(seed)
    wrong = rng.random(n) < 0.05
    q = np.clip(np.where(wrong, rng.beta(2, 4, n), rng.beta(1, 12, n)), 0, 1)
    # family 0: three runs sharing errors (a common noise term); family 1: one independent run; run 4: chance
    common = rng.random(n) < 0.15
    fam0 = [np.where(wrong, rng.random(n) < 0.7, common & (rng.random(n) < 0.8) | (rng.random(n) < 0.03))
            for _ in range(3)]
    fam1 = np.where(wrong, rng.random(n) < 0.6, rng.random(n) < 0.1)
    coin = rng.random(n) < 0.3
    v = np.column_stack(fam0 + [fam1, coin]).astype(float)
    v[rng.random(v.shape) < 0.1] = np.nan
    return v, q, np.array([0, 0, 0, 1, 2]), wrong


def test_rates_and_weights_match_an_independent_computation():
    v, q, fam, _ = _simulate()
    ev = judge_evidence(v, q, fam)
    for r in range(v.shape[1]):
        has = ~np.isnan(v[:, r])
        sw = v[has, r] == 1
        sens = (np.sum(q[has][sw]) + 1) / (np.sum(q[has]) + 2)
        spec = (np.sum(1 - q[has][~sw]) + 1) / (np.sum(1 - q[has]) + 2)
        assert ev.sensitivity[r] == pytest.approx(sens) and ev.specificity[r] == pytest.approx(spec)
    # residual correlations with pandas, then the two-level Kish design effect by hand
    E = pd.DataFrame(
        np.where(np.isnan(v), np.nan, v - (q[:, None] * ev.sensitivity + (1 - q[:, None]) * (1 - ev.specificity)))
    )
    C = E.corr(min_periods=10).to_numpy()
    rho0 = max(np.mean([C[a, b] for a, b in itertools.combinations(range(3), 2)]), 0)
    rho_b = max(np.mean([C[a, b] for a, b in itertools.combinations(range(5), 2) if fam[a] != fam[b]]), 0)
    assert ev.rho[0] == pytest.approx(rho0) and rho0 > 0.1          # the shared noise is seen
    w = np.array([1 / (1 + 2 * rho0)] * 3 + [1.0, 1.0])
    useful = ev.sensitivity + ev.specificity > 1
    w = w / (1 + (w[useful].sum() - 1) * rho_b)
    assert np.allclose(ev.weight, w)
    lw, lr = np.log(ev.sensitivity / (1 - ev.specificity)), np.log((1 - ev.sensitivity) / ev.specificity)
    manual = np.nansum(np.where(v == 1, lw, lr) * np.where(useful, 1, 0) * w * (~np.isnan(v)), axis=1)
    assert np.allclose(ev.llr, manual)


def test_judge_no_better_than_chance_adds_nothing():
    v, q, fam, _ = _simulate(1)
    anti = np.where(q > 0.5, 0.0, (np.random.default_rng(3).random(len(q)) < 0.2).astype(float))
    ev = judge_evidence(np.column_stack([v[:, :1], anti]), q, [0, 1])
    assert ev.sensitivity[1] + ev.specificity[1] < 1
    assert ev.llr_wrong[1] == 0 and ev.llr_right[1] == 0
    only = judge_evidence(v[:, :1], q, [0])
    assert np.allclose(ev.llr, only.llr)      # the chance run changes no item's evidence


def test_judges_help_ranking_and_the_level_keeps_the_expected_count():
    v, q, fam, wrong = _simulate(2)
    ev = judge_evidence(v, q, fam)
    mask = ev.n_runs > 0
    # the judges' λ added at the same level: every item's odds q/(1 − q) times e^λ, the level offset
    # solved again so that the expected count stays Σ q
    odds = q / (1 - q)
    s, _ = scores(odds, np.zeros(len(q)), 1.0, float(q.sum()), evidence_llr=np.where(mask, ev.llr, 0.0))
    assert s.sum() == pytest.approx(q.sum(), rel=1e-9)
    assert _ap(s, wrong) > _ap(q, wrong) + 0.05


@pytest.fixture(scope="module")
def redux(tmp_path_factory):
    from audit.analyze import analyze_benchmark, key_error_scores
    from audit.ingest import import_mmlu_redux
    from audit.judge import import_detectors
    from audit.store import connect

    dev, det = shared_path("mmlu_redux_dev"), shared_path("mmlu_redux_detectors")
    db = tmp_path_factory.mktemp("redux") / "x.duckdb"
    import_mmlu_redux(dev, db=db)
    analyze_benchmark("mmlu-redux", db=db)
    before = key_error_scores("mmlu-redux", db=db)
    import_detectors(det, benchmark="mmlu-redux", db=db, skip_unmatched=True)
    analyze_benchmark("mmlu-redux", db=db)
    after = key_error_scores("mmlu-redux", db=db)
    with connect(db, read_only=True) as con:
        lab = con.execute("SELECT question_id, value = 'wrong_groundtruth' AS y FROM reference_labels "
                          "WHERE benchmark = 'mmlu-redux'").df()
        share = con.execute("SELECT question_id, avg((NOT answer_key_correct)::DOUBLE) AS share "
                            "FROM judge_verdicts GROUP BY question_id").df()
    m = before.merge(after, on="question_id", suffixes=("_0", "_1")).merge(lab, on="question_id")
    m = m.merge(share, on="question_id", how="left")
    return db, m


@pytest.mark.slow
def test_real_detectors_lift_the_score_above_both(redux):
    _, m = redux
    assert (m["llr_judges_0"] == 0).all() and (m["n_judges_0"] == 0).all()
    five = m["n_judges_1"] > 0
    assert five.sum() >= 495
    y = m["y"].to_numpy()
    f = five.to_numpy()
    without, alone, with_ = (_ap(m[c].to_numpy()[f], y[f]) for c in ("score_0", "share", "score_1"))
    assert with_ >= max(without, alone) + 0.05, (without, alone, with_)
    assert _ap(m["score_1"], y) >= _ap(m["score_0"], y)                 # whole dev set: does not fall
    # calibration: the expected number of wrong keys moves by less than 5%
    assert abs(m["score_1"].sum() / m["score_0"].sum() - 1) < 0.05
    # items without judges keep their score
    assert np.allclose(m.loc[~five, "score_0"], m.loc[~five, "score_1"])


@pytest.mark.slow
def test_reliability_listing(redux):
    from audit.judge import judge_reliability

    db, _ = redux
    rel = judge_reliability("mmlu-redux", db=db)
    assert len(rel) == 20 and rel["run"].str.startswith(("gpt4 ", "gpt-4-turbo ", "llama ", "claude ")).all()
    assert ((rel["weight"] > 0) & (rel["weight"] <= 1)).all()
    # runs of one judge model share one weight (their family's discount)
    fam = rel["run"].str.split(" ").str[0]
    assert (rel.groupby(fam)["weight"].nunique() == 1).all()
    r = run_audit(["judge", "reliability", "--benchmark", "mmlu-redux",
                   "--db", str(db), "--format", "json"], module="audit")
    assert r.returncode == 0, r.stderr
    assert len(pd.read_json(__import__("io").StringIO(r.stdout))) == 20


@pytest.mark.slow
def test_review_combination_keeps_the_fits_judge_weights(redux):
    """The review stage's combined score (what the queue shows once verdicts
    arrive) uses the fit's estimated judge evidence, not a second weighting:
    with no settled verdict it equals the fit's score."""
    from audit.review import evidence_scores

    db, m = redux
    ev = evidence_scores("mmlu-redux", db=db).merge(m[["question_id", "score_1", "llr_judges_1", "n_judges_1"]],
                                                    on="question_id")
    judged = ev["n_judges_1"] > 0
    assert np.allclose(ev.loc[judged, "llr_judges"], ev.loc[judged, "llr_judges_1"])
    d = (ev["score"] - ev["score_1"]).abs()
    # the review stage rounds φ to 3 decimals; strong judge evidence magnifies that to ~1e-3
    assert d[~judged].max() < 1e-5 and d[judged].max() < 0.005
