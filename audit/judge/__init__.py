"""LLM judges: prompt, strict reply parsing, runs through litellm, storage,
import of methodology judge files, bias analysis and judge panels."""
from audit.judge._bias import AccuracyReport, BiasReport, bias_vs_accuracy, judge_bias, ratio_test
from audit.judge._importer import JudgeImportSummary, import_judge
from audit.judge._parse import ParsedVerdict, parse_reply
from audit.judge._prompt import JudgePrompt, default_prompt, load_prompt, prompt_version
from audit.judge._run import JudgeRunSummary, arun_judge, run_judge
from audit.judge._panel import (JudgeAgreement, JudgeSets, agreement_report, judge_agreement, judge_scenarios,
                               panel_verdict, report_sections, save_panel)
from audit.judge._store import disputed_ids, list_judges, list_runs, load_verdicts, unparsed_replies

__all__ = [
    # bias_vs_accuracy and agreement_report need expert verdicts: `audit.bias_vs_accuracy`
    # and `audit.agreement_report` are the review stage's (audit.review._judges), which read them.
    "BiasReport", "AccuracyReport", "judge_bias", "ratio_test",
    "JudgeImportSummary", "import_judge",
    "ParsedVerdict", "parse_reply",
    "JudgePrompt", "default_prompt", "load_prompt", "prompt_version",
    "JudgeRunSummary", "run_judge", "arun_judge",
    "JudgeAgreement", "JudgeSets", "judge_agreement", "panel_verdict", "save_panel", "judge_scenarios",
    "load_verdicts", "disputed_ids", "list_judges", "list_runs", "unparsed_replies",
]

# Agreement statistics appear in `audit report` through the analysis stage's
# hook, registered by the review stage (audit.review._judges), which adds the
# expert tables.

# One call per command: `audit judge panel`.
from audit.judge._panel import PanelResult, run_panel  # noqa: E402

__all__ += ["PanelResult", "run_panel"]

# --- re-exported for other stages (not in __all__); written by t13-privatise.py ---
from audit.judge._store import verdict_summary_sql  # noqa: E402,F401
# --- end of re-exports ---

# Published detector verdicts (issue 25), recognised by `audit import auto`.
from audit.judge._detectors import DetectorImportSummary, import_detectors, judge_reliability  # noqa: E402
from audit.ingest import LATER_IMPORTERS as _LATER  # noqa: E402

_LATER.setdefault("judge-detectors", import_detectors)
_LATER.setdefault("judge-verdicts", import_detectors)
__all__ += ["DetectorImportSummary", "import_detectors", "judge_reliability"]

# --- the judge stage's sentences of reading in a translatable form (issue 21)
from audit.judge._bias import render_reading, render_readings  # noqa: E402
from audit.judge._panel import REPORT_TITLE_KEYS  # noqa: E402
__all__ += ["render_reading", "render_readings", "REPORT_TITLE_KEYS"]
