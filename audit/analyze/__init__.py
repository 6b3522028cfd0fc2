"""Analysis: per-model accuracy with Wilson intervals, cross-model agreement
tiers, filtering scenarios and model comparisons, Cohen's and Fleiss'
kappa, the key-error score (the probability that an item's key is wrong)
and what wrong keys cost each model.

What the later stages read is here or in two contract modules:
:mod:`audit.analyze.inputs` (the model set, the usable predictions, the
latest audit run) and :mod:`audit.analyze.keyerror` (the key-error model:
fit, score, update, explain)."""
from audit.analyze._impact import expected_wrong_keys, impact_summary, load_impact, selection_control, wrong_key_cost
from audit.analyze._kappa import FleissResult, KappaResult, agreement_matrix, cohen_kappa, fleiss_kappa
from audit.analyze._metrics import DIFFICULTY_BANDS, difficulty_band, item_difficulty, model_metrics
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
from audit.analyze._scenarios import SCENARIOS, compare_models, scenario_summary, scenario_table
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
    KeyErrorFit,
    calibration_table,
    combined_score,
    fit_key_error,
    key_error_params,
    key_error_scores,
    load_inputs,
    phi_band,
    score_inputs,
)

__all__ = [
    # run an analysis, read its tiers
    "analyze_benchmark", "AnalyzeSummary", "BenchmarkRun", "tier_counts", "audit_lint", "audit_results",
    "thresholds", "TIER_NAMES", "TIER_NAMES_TLUE4", "OTHER_BUCKETS",
    # accuracy, difficulty, scenarios, comparisons
    "model_metrics", "item_difficulty", "difficulty_band", "DIFFICULTY_BANDS", "wilson_interval",
    "significance_stars", "scenario_table", "scenario_summary", "compare_models", "SCENARIOS",
    # agreement between raters
    "KappaResult", "FleissResult", "cohen_kappa", "fleiss_kappa", "agreement_matrix",
    # the key-error score (the whole model: audit.analyze.keyerror)
    "fit_key_error", "KeyErrorFit", "key_error_scores", "key_error_params", "calibration_table", "combined_score",
    "phi_band", "load_inputs", "score_inputs",
    # what wrong keys cost
    "impact_summary", "expected_wrong_keys", "wrong_key_cost", "selection_control", "load_impact",
    # the report
    "analysis_report", "render_report", "write_report", "report_frame", "records", "REPORT_FORMATS",
    "key_error_note", "scenario_note",
    # what later stages read (audit.analyze.inputs)
    "QUESTIONS_SQL", "ModelSet", "model_set", "usable_predictions_sql", "latest_run", "latest_run_models",
    "find_latest_run", "CURRENT_AUDIT_SQL",
]
