"""LLM judges: prompt, strict reply parsing, runs through litellm, storage,
import of methodology judge files and published detector verdicts, bias
analysis and judge panels."""
from audit.judge._bias import (
    AccuracyReport,
    BiasReport,
    bias_vs_accuracy,
    judge_bias,
    ratio_test,
    render_reading,
    render_readings,
)
from audit.judge._detectors import DetectorImportSummary, import_detectors, judge_reliability
from audit.judge._import import JudgeImportSummary, import_judge
from audit.judge._panel import (
    REPORT_TITLE_KEYS,
    JudgeAgreement,
    JudgeSets,
    PanelResult,
    agreement_report,
    judge_agreement,
    judge_scenarios,
    panel_verdict,
    report_sections,
    run_panel,
    save_panel,
)
from audit.judge._parse import ParsedVerdict, parse_reply
from audit.judge._prompt import JudgePrompt, default_prompt, load_prompt, prompt_version
from audit.judge._run import JudgeRunSummary, arun_judge, run_judge
from audit.judge._store import disputed_ids, list_judges, list_runs, load_verdicts, unparsed_replies

__all__ = [
    "BiasReport", "AccuracyReport", "judge_bias", "bias_vs_accuracy", "ratio_test", "render_reading",
    "render_readings", "JudgeImportSummary", "import_judge", "DetectorImportSummary", "import_detectors",
    "judge_reliability", "ParsedVerdict", "parse_reply", "JudgePrompt", "default_prompt", "load_prompt",
    "prompt_version", "JudgeRunSummary", "run_judge", "arun_judge", "JudgeAgreement", "JudgeSets",
    "judge_agreement", "panel_verdict", "save_panel", "judge_scenarios", "agreement_report", "report_sections",
    "REPORT_TITLE_KEYS", "PanelResult", "run_panel", "load_verdicts", "disputed_ids", "list_judges", "list_runs",
    "unparsed_replies",
]
