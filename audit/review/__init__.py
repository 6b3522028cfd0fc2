"""Expert review: append-only verdicts, settings (lead reviewers, required
reviews), settlement, the triage queue, the item view, reviewer agreement
and dashboard data.  The workbench calls these for every query and write.

Modules: ``accounts`` (accounts, roles, sign-in, sessions), ``record`` (add/import/list reviews), ``settings`` (leads, required
reviews), ``status`` (settlement rule in SQL), ``queue`` (queue, progress,
previous/next, pluggable orders), ``item`` (item page), ``agreement``
(Cohen's kappa), ``dashboard`` (heatmap and progress data), ``layout``
(item-ordered predictions).
"""
from audit.review._accounts import (
    ROLES, Account, add_account, authenticate, end_sessions, issue_session, list_accounts, reset_password,
    set_disabled, verify_session,
)
from audit.review._record import add_review, add_reviews, append_reviews, import_reviews, list_reviews
from audit.review._record import review_problems
from audit.review._settings import (
    RequiredReviews, get_leads, get_required_reviews, set_leads, set_required_reviews,
)
from audit.review._settings import UI_LANGUAGES, get_user_language, set_user_language
from audit.review._status import STATUS_LABELS, STATUSES, review_status, settled_verdicts
from audit.review._queue import (
    QUEUE_ORDERS, QUEUE_STATUSES, QueueOrder, QueueProgress, neighbours, queue_progress, register_order,
    review_queue,
)
from audit.review._queue import NEEDS_ME, next_for_reviewer
from audit.review._item import (
    AuditInfo, FamilyAnswers, ItemView, JudgeVerdict, ModelAnswer, OptionCount, ParallelItem, item_view,
)
from audit.review._agreement import ReviewerAgreement, reviewer_agreement
from audit.review._dashboard import list_benchmarks, progress_by_reviewer, tier_by_subject
from audit.review._layout import ClusterSummary, cluster_predictions
from audit.review._judges import agreement_report, bias_vs_accuracy
from audit.review._judges import report_sections as _judge_report_sections

__all__ = [
    # accounts and roles
    "ROLES", "Account", "add_account", "authenticate", "end_sessions", "issue_session", "list_accounts",
    "reset_password", "set_disabled", "verify_session",
    # recording
    "add_review", "add_reviews", "append_reviews", "import_reviews", "list_reviews", "review_problems",
    # settings
    "RequiredReviews", "get_leads", "set_leads", "get_required_reviews", "set_required_reviews",
    "UI_LANGUAGES", "get_user_language", "set_user_language",
    # settlement
    "STATUSES", "STATUS_LABELS", "review_status", "settled_verdicts",
    # queue
    "QUEUE_ORDERS", "QUEUE_STATUSES", "QueueOrder", "QueueProgress", "neighbours", "queue_progress",
    "register_order", "review_queue", "NEEDS_ME", "next_for_reviewer",
    # item page
    "AuditInfo", "FamilyAnswers", "ItemView", "JudgeVerdict", "ModelAnswer", "OptionCount", "ParallelItem",
    "item_view",
    # agreement and dashboards
    "ReviewerAgreement", "reviewer_agreement", "progress_by_reviewer", "tier_by_subject", "list_benchmarks",
    # storage layout
    "ClusterSummary", "cluster_predictions",
    # judges against the experts (judge-stage analyses fed with this stage's verdicts)
    "agreement_report", "bias_vs_accuracy",
]

# Agreement statistics (judges, experts, reviewers) appear in `audit report`
# through the analysis stage's hook.
from audit.analyze import register_report_hook as _register  # noqa: E402

_register(_judge_report_sections)

# Key-error evidence: the combined score, re-ranking after verdicts, reasons in plain words (issue 11).
from audit.review._evidence import (  # noqa: E402
    calibration, evidence_scores, evidence_weights, refresh_evidence, rescore, why_this_item,
)

__all__ += ["calibration", "evidence_scores", "evidence_weights", "refresh_evidence", "rescore", "why_this_item"]

# issue 19: the reasons as sentence keys, rendered in any interface language
from audit.review._evidence import EVIDENCE_WORDS, chance_words, evidence_reasons, render_reason, times_words  # noqa: E402

__all__ += ["EVIDENCE_WORDS", "chance_words", "evidence_reasons", "render_reason", "times_words"]

# One call per command: `audit review status|leads|required`, `audit judge bias`, `audit rescore`.
from audit.review._overview import ReviewOverview, review_overview  # noqa: E402
from audit.review._settings import LeadReviewers, lead_reviewers, required_reviews  # noqa: E402
from audit.review._judges import JudgeBiasSummary, judge_bias_summary  # noqa: E402
from audit.review._rescoring import RescoreSummary, rescore_benchmark  # noqa: E402

__all__ += ["ReviewOverview", "review_overview", "LeadReviewers", "lead_reviewers", "required_reviews",
            "JudgeBiasSummary", "judge_bias_summary", "RescoreSummary", "rescore_benchmark"]

# --- re-exported for other stages (not in __all__); written by t13-privatise.py ---
from audit.review._accounts import account_role, accounts_exist, has_accounts, require_role, verify_password  # noqa: E402,F401,E501
from audit.review._agreement import MIN_KAPPA_ITEMS  # noqa: E402,F401
from audit.review._judges import report_sections  # noqa: E402,F401
from audit.review._summary import REVIEWER_SUMMARY_CTES  # noqa: E402,F401
# --- end of re-exports ---

# Identities and consistent verdicts (issues 21 and 22).
from audit.review._accounts import check_session_key, session_key_path  # noqa: E402
from audit.review._record import CAUSE_VERDICTS, inconsistent_reviews, review_inconsistencies  # noqa: E402

__all__ += ["check_session_key", "session_key_path", "CAUSE_VERDICTS", "inconsistent_reviews",
            "review_inconsistencies"]

# A review campaign set up in the browser (issue 21): queue entry, assignments, progress per subject, roles.
from audit.review._accounts import set_role  # noqa: E402
from audit.review._campaign import (  # noqa: E402
    QueueEntry, assign, get_queue_entry, list_assignments, progress_by_subject, set_queue_entry, unassign,
)

__all__ += ["set_role", "QueueEntry", "assign", "get_queue_entry", "list_assignments", "progress_by_subject",
            "set_queue_entry", "unassign"]
from audit.review._evidence import evidence_reasons_many  # noqa: E402  (the Label Studio push's evidence, batched)

__all__ += ["evidence_reasons_many"]
