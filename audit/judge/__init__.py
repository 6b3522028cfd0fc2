"""LLM judges: running a judge over a benchmark through litellm (strict reply
parsing, every reply stored), importing methodology judge files and
published detector verdicts, judge bias (does a judge side with its own
model family?), agreement between judges and the cross-family panel.

Beside the names below, :mod:`audit.judge.bias` and :mod:`audit.judge.panel`
hold the results' types, the readings' wording and the versions that take
the expert tables as arguments (the review stage passes them:
:func:`audit.review.bias_vs_accuracy`, :func:`audit.review.report_sections`);
:mod:`audit.judge.summary` is the SQL the export embeds."""
from audit.judge._detectors import import_detectors, judge_reliability
from audit.judge._import import import_judge
from audit.judge._prompt import load_prompt
from audit.judge._run import run_judge
from audit.judge._store import disputed_ids, list_judges, list_runs, load_verdicts, unparsed_replies
from audit.judge.bias import judge_bias
from audit.judge.panel import judge_agreement, judge_scenarios, panel_verdict, run_panel, save_panel

__all__ = [
    "run_judge", "import_judge", "import_detectors", "judge_reliability", "judge_bias", "judge_agreement",
    "judge_scenarios", "panel_verdict", "save_panel", "run_panel", "load_prompt", "list_judges", "list_runs",
    "load_verdicts", "disputed_ids", "unparsed_replies",
]
