"""The key-error score: for every item, the probability that its answer key
is wrong, from a latent-class model over the models' answers (a one-coin
Dawid–Skene model with the key as a vote), split into a wrong key and a
shared misconception by a prior learned from expert labels, and updated as
judge and expert verdicts arrive.

Which function to call when
---------------------------
**Fit** — arrays in, no database:

* :func:`fit_key_error`: the model on the answers in long form (item,
  model, answer) and the items' keys; returns a :class:`KeyErrorFit` (every
  item's score, p_reject and posterior; the models' reliabilities, the
  family weights, the subjects' rates).
* :func:`fit_key_error_cells`: the same fit on answers packed as cells
  (one bitmask of models per item and letter), as the analysis reads them.
* :func:`posterior_from_counts`: every item's posterior under a fit's
  parameters, from weighted counts made elsewhere (after a fit on a sample).

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
  subjects' rates, the parallel source, each judge, the misconception split);
  then :func:`update_scores`: the combined score of any items under them.
* :func:`misconception_split`: φ per agreement band after the settled verdicts.
* :func:`combined_score`: an item's score from its stored parts and other
  evidence λ.
* :func:`judge_evidence`, :func:`judge_offset`: the judge runs weighed from
  the data, without expert labels (used by the fit).

**Explain** — what the numbers mean and how good they are:

* :func:`phi_band`, :func:`agreement_share`: an item's misconception band;
  :func:`belief_inputs`: how other evidence enters the EM.
* :func:`calibration_table`: predicted against observed wrong keys per band.
* :func:`fit_misconception_prior_bands`, :func:`fit_misconception_prior`,
  :func:`fit_misconception_strength`: how the φ prior was fitted on expert
  labels (MMLU-Redux), and what it is worth on another benchmark.

The modules: ``_model`` (the EM on arrays), ``_prior`` (the misconception
split, the evidence priors), ``_judges``, ``_update``, ``_calibration`` (all
pure); ``_load`` (the SQL that reads the inputs) and ``_score`` (fit and store).

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
>>> more, _ = combined_score(fit.prior_logit, fit.llr_models, np.log(3.0), fit.phi)   # a judge says "wrong"
>>> bool(np.all(more >= fit.score))
True
"""
from audit.analyze.keyerror._calibration import calibration_table
from audit.analyze.keyerror._judges import JudgeEvidence, JudgeVerdicts, judge_evidence, judge_offset
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
)
from audit.analyze.keyerror._prior import (
    LLR_DUPLICATE_OPTIONS,
    PARALLEL_SENS,
    PARALLEL_SPEC,
    PHI_BANDS,
    PHI_PRIOR,
    PHI_PRIOR_MEAN,
    PHI_STRENGTH,
    agreement_share,
    belief_inputs,
    combined_score,
    fit_misconception_prior,
    fit_misconception_prior_bands,
    fit_misconception_strength,
    phi_band,
)
from audit.analyze.keyerror._score import key_error_params, key_error_scores, score_inputs, score_run, write_scores
from audit.analyze.keyerror._update import (
    JUDGE_TABLE_COLS,
    judge_table,
    misconception_split,
    update_scores,
    update_weights,
)

__all__ = [
    # fit
    "fit_key_error", "fit_key_error_cells", "posterior_from_counts", "KeyErrorFit",
    # score
    "score_run", "load_inputs", "score_inputs", "write_scores", "load_judge_verdicts", "read_items",
    "sampled_answers", "SampledCells", "ScoreInputs", "key_error_scores", "key_error_params",
    # update
    "update_weights", "update_scores", "misconception_split", "judge_table", "JUDGE_TABLE_COLS", "combined_score",
    "judge_evidence", "judge_offset", "JudgeVerdicts", "JudgeEvidence",
    # explain
    "phi_band", "agreement_share", "belief_inputs", "calibration_table", "fit_misconception_prior",
    "fit_misconception_prior_bands", "fit_misconception_strength",
    # the priors
    "PHI_BANDS", "PHI_PRIOR", "PHI_PRIOR_MEAN", "PHI_STRENGTH", "SUBJECT_STRENGTH", "LLR_DUPLICATE_OPTIONS",
    "PARALLEL_SENS", "PARALLEL_SPEC",
]
