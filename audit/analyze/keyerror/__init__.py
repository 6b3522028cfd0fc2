"""The key-error score: for every item, the probability that its answer key
is wrong (see :mod:`audit.analyze.keyerror._model` for the model)."""
from audit.analyze.keyerror._calibration import calibration_table
from audit.analyze.keyerror._judges import (
    JudgeEvidence,
    JudgeVerdicts,
    judge_evidence,
    judge_offset,
)
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
from audit.analyze.keyerror._score import (
    key_error_params,
    key_error_scores,
    score_inputs,
    score_run,
    write_scores,
)
from audit.analyze.keyerror._update import (
    JUDGE_TABLE_COLS,
    judge_table,
    misconception_split,
    update_scores,
    update_weights,
)

__all__ = [
    "fit_key_error", "fit_key_error_cells", "KeyErrorFit", "posterior_from_counts",
    "PHI_BANDS", "PHI_PRIOR", "PHI_PRIOR_MEAN", "PHI_STRENGTH", "SUBJECT_STRENGTH", "LLR_DUPLICATE_OPTIONS",
    "PARALLEL_SENS", "PARALLEL_SPEC", "phi_band", "agreement_share", "belief_inputs", "combined_score",
    "fit_misconception_prior", "fit_misconception_prior_bands", "fit_misconception_strength", "calibration_table",
    "JudgeVerdicts", "JudgeEvidence", "judge_evidence", "judge_offset",
    "SampledCells", "ScoreInputs", "read_items", "sampled_answers", "load_inputs", "load_judge_verdicts",
    "score_inputs", "write_scores", "score_run", "key_error_scores", "key_error_params",
    "misconception_split", "update_weights", "update_scores", "judge_table", "JUDGE_TABLE_COLS",
]
