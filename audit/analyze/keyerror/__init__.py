"""The key-error score: for every item, the probability that its answer key
is wrong, from a latent-class model over the models' answers (a one-coin
Dawid–Skene model with the key as a vote), split into a wrong key and a
shared misconception by a level (the benchmark's rate of wrong keys, a
prior learned from expert labels) and an allocation that depends on the
model set, and updated as judge and expert verdicts arrive.

Which function to call when
---------------------------
**Fit** — arrays in, no database:

* :func:`fit_key_error`: the model on the answers in long form (item,
  model, answer) and the items' keys; returns a :class:`KeyErrorFit` (every
  item's score, p_reject and posterior; the models' reliabilities, the
  family weights, the subjects' rates; the split's allocation, level prior
  and the model set's summary).
* :func:`fit_key_error_cells`: the same fit on answers packed as cells
  (one bitmask of models per item and letter), as the analysis reads them.
* :func:`posterior_from_counts`: every item's posterior under a fit's
  parameters, from weighted counts made elsewhere (after a fit on a
  sample); :func:`split_fit` then splits it.

**Split** — the pure functions behind the score (``_split``, ``_modelset``):

* :func:`split`: P(key wrong) from p_reject, the evidence share, whether the
  most accurate model holds the key and the subject's rate, under a
  :class:`SplitPrior` (the shipped one: :data:`SPLIT_PRIOR`); :func:`scores`:
  the same with settled items clamped and a given total; :func:`level_offset`.
* :func:`set_features`: the model set in a few numbers;
  :func:`extrapolation`: the reasons it lies outside the sets the split was
  learned on (:data:`TRAINING_DOMAIN`).
* :func:`fit_split_prior`: how the constants were fitted on labelled model
  sets (offline).

**Score** — a benchmark in the database:

* :func:`score_run`: what ``audit analyze`` calls: read the inputs, fit, add
  the judge runs' evidence, write ``key_error_scores`` and
  ``key_error_params``.
* :func:`load_inputs`, :func:`score_inputs`, :func:`write_scores`: the same
  in three steps, e.g. with settled verdicts clamped (``audit rescore``);
  :func:`load_judge_verdicts` reads the judge runs.
* :func:`key_error_scores`, :func:`key_error_params`: the stored score and
  parameters of a benchmark's latest run.

**Update** — verdicts arrive, no refit (the review stage reads the rows and
writes the result):

* :func:`update_weights`: the weights measured on the settled items (the
  subjects' rates, the parallel source, each judge, the level); then
  :func:`update_scores`: every item's score under them.
* :func:`update_level`, :class:`Level`: the level after the random audit
  sample (``_level``); :func:`count_and_cost`: the report's figures over its
  uncertainty.
* :func:`judge_evidence`: the judge runs weighed from the data, without
  expert labels (used by the fit).

**The random audit sample** (``_sample``): :func:`strata_of`,
:func:`allocate`, :func:`draw_items`, :func:`sampled_count` (the
design-based count with its interval), :func:`effective_sample`.

**Explain** — :func:`agreement_share` (the share of answers on the most
chosen other option); :func:`calibration_table`: predicted against observed
wrong keys per band.

The modules: ``_model`` (the EM on arrays), ``_split`` (the split),
``_modelset`` (the model set), ``_level`` (the level and the report's
figures), ``_sample`` (the audit sample), ``_training`` (the offline fit),
``_prior`` (the evidence priors), ``_judges``, ``_update``, ``_calibration``
(all pure); ``_load`` (the SQL that reads the inputs) and ``_score`` (fit
and store).

Example: fit, then update with other evidence.

>>> import numpy as np
>>> rng = np.random.default_rng(1)
>>> n, J = 300, 5
>>> truth = rng.integers(0, 4, n); key = truth.copy(); key[:10] = (truth[:10] + 2) % 4
>>> Y = np.where(rng.random((n, J)) < 0.85, truth[:, None], rng.integers(0, 4, (n, J)))
>>> i, j = np.nonzero(np.ones((n, J), bool))
>>> fit = fit_key_error(i, j, Y[i, j], np.full(n, 4), key)
>>> top = np.argsort(-fit.score)[:10]
>>> sorted(top.tolist()) == list(range(10))           # the planted wrong keys come first
True
>>> sp = fit.split; s = sp["s_a"] / (sp["s_a"] + sp["s_b"])
>>> more, _ = scores(fit.alloc_wrong, fit.alloc_right, s, float(fit.score.sum()),
...                  evidence_llr=np.r_[np.log(3.0), np.zeros(n - 1)])   # a judge says "wrong" about item 0
>>> bool(more[0] > fit.score[0]), round(float(more.sum()), 6) == round(float(fit.score.sum()), 6)
(True, True)
"""
from audit.analyze.keyerror._calibration import calibration_table
from audit.analyze.keyerror._judges import JudgeEvidence, JudgeVerdicts, judge_evidence
from audit.analyze.keyerror._level import Level, count_and_cost, update_level
from audit.analyze.keyerror._load import (
    SampledCells,
    ScoreInputs,
    load_inputs,
    load_judge_verdicts,
    read_items,
    sampled_answers,
)
from audit.analyze.keyerror._model import (
    SUBJECT_STRENGTH,
    KeyErrorFit,
    fit_key_error,
    fit_key_error_cells,
    posterior_from_counts,
    split_fit,
)
from audit.analyze.keyerror._modelset import REASONS, extrapolation, set_features
from audit.analyze.keyerror._prior import LLR_DUPLICATE_OPTIONS, PARALLEL_SENS, PARALLEL_SPEC, agreement_share
from audit.analyze.keyerror._sample import (
    DESIGNS,
    SCORE_BANDS,
    allocate,
    draw_items,
    effective_sample,
    intervals_disagree,
    sampled_count,
    strata_of,
)
from audit.analyze.keyerror._score import key_error_params, key_error_scores, score_inputs, score_run, write_scores
from audit.analyze.keyerror._split import (
    SPLIT_PRIOR,
    TRAINING_DOMAIN,
    Split,
    SplitPrior,
    allocation,
    evidence_share,
    level_offset,
    scores,
    split,
    top_model_holds,
)
from audit.analyze.keyerror._training import fit_split_prior
from audit.analyze.keyerror._update import (
    JUDGE_TABLE_COLS,
    judge_table,
    misconception_share,
    sample_level,
    update_scores,
    update_weights,
)

__all__ = [
    # fit
    "fit_key_error", "fit_key_error_cells", "posterior_from_counts", "split_fit", "KeyErrorFit",
    # split
    "split", "scores", "Split", "SplitPrior", "SPLIT_PRIOR", "TRAINING_DOMAIN", "allocation", "evidence_share",
    "top_model_holds", "level_offset", "set_features", "extrapolation", "REASONS", "fit_split_prior",
    # score
    "score_run", "load_inputs", "score_inputs", "write_scores", "load_judge_verdicts", "read_items",
    "sampled_answers", "SampledCells", "ScoreInputs", "key_error_scores", "key_error_params",
    # update
    "update_weights", "update_scores", "judge_table", "JUDGE_TABLE_COLS", "misconception_share", "sample_level",
    "update_level", "Level", "count_and_cost", "judge_evidence", "JudgeVerdicts", "JudgeEvidence",
    # the random audit sample
    "strata_of", "allocate", "draw_items", "sampled_count", "effective_sample", "intervals_disagree", "SCORE_BANDS",
    "DESIGNS",
    # explain
    "agreement_share", "calibration_table",
    # the priors
    "SUBJECT_STRENGTH", "LLR_DUPLICATE_OPTIONS", "PARALLEL_SENS", "PARALLEL_SPEC",
]
