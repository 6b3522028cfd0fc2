"""Analysis: per-model accuracy with Wilson intervals, cross-model agreement
tiers, filtering scenarios and model comparisons, Cohen's and Fleiss'
kappa, the key-error score (the probability that an item's key is wrong)
and what wrong keys cost each model."""
from audit.analyze._impact import (
    expected_wrong_keys,
    impact_summary,
    load_impact,
    selection_control,
    wrong_key_cost,
)
from audit.analyze._kappa import (
    FleissResult,
    KappaResult,
    agreement_matrix,
    cohen_kappa,
    fleiss_kappa,
)
from audit.analyze._metrics import (
    DIFFICULTY_BANDS,
    difficulty_band,
    item_difficulty,
    model_metrics,
)
from audit.analyze._report import FORMATS as REPORT_FORMATS
from audit.analyze._report import (
    analysis_report,
    key_error_note,
    records,
    render_report,
    report_frame,
    scenario_note,
    write_report,
)
from audit.analyze._scenarios import SCENARIOS, compare_models, scenario_table
from audit.analyze._stats import significance_stars, wilson_interval
from audit.analyze._tiers import (
    OTHER_BUCKETS,
    TIER_NAMES,
    TIER_NAMES_TLUE4,
    AnalyzeSummary,
    BenchmarkRun,
    analyze_benchmark,
    audit_lint,
    audit_results,
    thresholds,
    tier_counts,
)
from audit.analyze.inputs import (
    CURRENT_AUDIT_SQL,
    QUESTIONS_SQL,
    ModelSet,
    find_latest_run,
    latest_run,
    latest_run_models,
    model_set,
    usable_predictions_sql,
)
from audit.analyze.keyerror import (
    LLR_DUPLICATE_OPTIONS,
    PARALLEL_SENS,
    PARALLEL_SPEC,
    PHI_PRIOR,
    SUBJECT_STRENGTH,
    calibration_table,
    combined_score,
    fit_key_error,
    key_error_params,
    key_error_scores,
    load_inputs,
    load_judge_verdicts,
    phi_band,
    score_inputs,
    write_scores,
)

__all__ = [
    "wilson_interval", "significance_stars", "model_metrics", "item_difficulty", "difficulty_band",
    "DIFFICULTY_BANDS", "analyze_benchmark", "tier_counts", "audit_lint", "audit_results", "AnalyzeSummary",
    "BenchmarkRun", "TIER_NAMES", "TIER_NAMES_TLUE4", "OTHER_BUCKETS", "thresholds", "scenario_table",
    "compare_models", "SCENARIOS",
    "analysis_report", "render_report", "write_report", "report_frame", "records", "REPORT_FORMATS",
    "key_error_note", "scenario_note",
    "KappaResult", "FleissResult", "cohen_kappa", "fleiss_kappa", "agreement_matrix",
    "fit_key_error", "key_error_scores", "key_error_params", "calibration_table",
    "QUESTIONS_SQL", "ModelSet", "model_set", "usable_predictions_sql", "latest_run", "latest_run_models",
    "find_latest_run", "CURRENT_AUDIT_SQL",
    "impact_summary", "expected_wrong_keys", "wrong_key_cost", "selection_control", "load_impact",
    "LLR_DUPLICATE_OPTIONS", "PARALLEL_SENS", "PARALLEL_SPEC", "PHI_PRIOR", "SUBJECT_STRENGTH", "combined_score",
    "phi_band", "load_inputs", "score_inputs", "write_scores", "load_judge_verdicts",
]
