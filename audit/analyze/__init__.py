__all__: list[str] = []

# Metrics, agreement tiers, scenarios and the report (analyze-C).
from audit.analyze._stats import significance_stars, wilson_interval  # noqa: E402
from audit.analyze._metrics import DIFFICULTY_BANDS, difficulty_band, item_difficulty, model_metrics  # noqa: E402
from audit.analyze._tiers import (  # noqa: E402
    TIER_NAMES, AnalyzeSummary, BenchmarkRun, analyze_benchmark, audit_lint, audit_results, tier_counts,
)
from audit.analyze._tiers import analyze  # noqa: E402,F401  (deprecated name of analyze_benchmark; not in __all__)
from audit.analyze._scenarios import SCENARIOS, compare_models, scenario_table  # noqa: E402
# The report function is `build_report`: a function named `report` would hide
# the module `audit.analyze._report`.
from audit.analyze._report import benchmark_report, build_report, render_report, write_report  # noqa: E402

__all__ += [
    "wilson_interval", "significance_stars", "model_metrics", "item_difficulty", "difficulty_band",
    "DIFFICULTY_BANDS", "analyze_benchmark", "tier_counts", "audit_lint", "audit_results", "AnalyzeSummary",
    "BenchmarkRun", "TIER_NAMES", "scenario_table", "compare_models", "SCENARIOS",
    "build_report", "benchmark_report", "render_report", "write_report",
]

# Agreement statistics (judge-G): Cohen's / Fleiss' kappa, pairwise matrices.
from audit.analyze._agreement import FleissResult, KappaResult, agreement_matrix, cohen_kappa, fleiss_kappa  # noqa: E402

__all__ += ["KappaResult", "FleissResult", "cohen_kappa", "fleiss_kappa", "agreement_matrix"]

# Accuracy on the original vs the expert-corrected keys needs the review
# stage's verdicts and the export policies: it lives in audit.export._corrected
# (imports follow the data flow).

# Key-error score: latent-class model over the models' answers, stored per audit run (issue 11).
from audit.analyze._keyerror import calibration_table, fit_key_error, key_error_params, key_error_scores  # noqa: E402
from audit.analyze._tiers import thresholds  # noqa: E402,F401  (not in __all__: a generic name)

__all__ += ["fit_key_error", "key_error_scores", "key_error_params", "calibration_table"]

# The analysis stage's shared reads, used by the later stages (judge bias and
# panels, review evidence) and the CLI: which benchmark, which models and
# runs, one usable answer per (question, model).
from audit.analyze._base import (  # noqa: E402
    QUESTIONS_SQL, ModelSet, all_benchmarks, model_set, resolve_benchmark, usable_predictions_sql,
)

__all__ += ["QUESTIONS_SQL", "ModelSet", "all_benchmarks", "model_set", "resolve_benchmark", "usable_predictions_sql"]

# --- re-exported for other stages (not in __all__); written by t13-privatise.py ---
from audit.analyze._keyerror import LLR_DUPLICATE_OPTIONS, PARALLEL_SENS, PARALLEL_SPEC, SUBJECT_STRENGTH, load_inputs, score_inputs, write_scores  # noqa: E402,F401
from audit.analyze._report import register_report_hook  # noqa: E402,F401
from audit.analyze._runs import CURRENT_AUDIT_SQL, find_latest_run, latest_run_models  # noqa: E402,F401
from audit.analyze._tiers import OTHER_BUCKETS, TIER_NAMES_TLUE4, latest_run  # noqa: E402,F401
from audit.analyze._keyerror import PHI_PRIOR, combined_score, phi_band  # noqa: E402,F401
# --- end of re-exports ---

# What wrong keys cost (issue 19): expected wrong keys with posterior
# intervals, accuracy on right keys, the scenarios' selection control.
from audit.analyze._impact import expected_wrong_keys, impact_summary, load_impact, selection_control, wrong_key_cost  # noqa: E402
from audit.analyze._report import key_error_note, scenario_note  # noqa: E402

__all__ += ["impact_summary", "expected_wrong_keys", "wrong_key_cost", "selection_control", "load_impact",
            "key_error_note", "scenario_note"]

# Judge runs' verdicts for the key-error fit (issue 25), for the review stage's refit.
from audit.analyze._keyerror import load_judge_verdicts  # noqa: E402,F401
