"""Analysis: per-model accuracy with Wilson intervals, cross-model agreement
tiers, filtering scenarios and model comparisons, Cohen's and Fleiss'
kappa, the key-error score (the probability that an item's key is wrong)
and what wrong keys cost each model.

The names below are what a notebook calls.  The later stages, the CLI and
the workbench also read the public modules: :mod:`audit.analyze.inputs`
(the model set, the usable predictions, the latest audit run),
:mod:`audit.analyze.keyerror` (the key-error model: fit, score, update,
explain), :mod:`audit.analyze.tiers` (tier names and thresholds),
:mod:`audit.analyze.scenarios`, :mod:`audit.analyze.kappa` (the agreement
results) and :mod:`audit.analyze.reporting` (the report's sections and how
they are rendered)."""
from audit.analyze._impact import expected_wrong_keys, impact_summary, wrong_key_cost
from audit.analyze._metrics import item_difficulty, model_metrics
from audit.analyze._stats import wilson_interval
from audit.analyze.kappa import agreement_matrix, cohen_kappa, fleiss_kappa
from audit.analyze.keyerror import fit_key_error, key_error_scores
from audit.analyze.reporting import analysis_report
from audit.analyze.scenarios import compare_models, scenario_table
from audit.analyze.tiers import analyze_benchmark, audit_lint, audit_results, tier_counts

__all__ = [
    "analyze_benchmark", "tier_counts", "audit_results", "audit_lint", "model_metrics", "item_difficulty",
    "wilson_interval", "scenario_table", "compare_models", "cohen_kappa", "fleiss_kappa", "agreement_matrix",
    "fit_key_error", "key_error_scores", "impact_summary", "expected_wrong_keys", "wrong_key_cost", "analysis_report",
]
