"""Expert review: append-only verdicts, settlement, the triage queue, the
item view, the campaign (queue entry, assignments), reviewer agreement,
dashboard data and the key-error evidence that verdicts update."""
from audit.review._agreement import MIN_KAPPA_ITEMS, ReviewerAgreement, reviewer_agreement
from audit.review._campaign import QueueEntry, assign, get_queue_entry, list_assignments, set_queue_entry, unassign
from audit.review._dashboard import list_benchmarks, progress_by_reviewer, progress_by_subject, tier_by_subject
from audit.review._evidence import calibration, evidence_scores, evidence_weights, refresh_evidence, rescore
from audit.review._item import (
    AuditInfo,
    FamilyAnswers,
    ItemView,
    JudgeVerdict,
    ModelAnswer,
    OptionCount,
    ParallelItem,
    item_view,
)
from audit.review._judges import (
    JudgeBiasSummary,
    agreement_report,
    bias_vs_accuracy,
    judge_bias_summary,
    report_sections,
)
from audit.review._layout import ClusterSummary, cluster_predictions
from audit.review._overview import ReviewOverview, review_overview
from audit.review._queue import (
    NEEDS_ME,
    QUEUE_ORDERS,
    QUEUE_STATUSES,
    QueueOrder,
    QueueProgress,
    neighbours,
    next_for_reviewer,
    queue_progress,
    register_order,
    review_queue,
)
from audit.review._reasons import (
    chance_words,
    evidence_reasons,
    evidence_reasons_many,
    render_reason,
    times_words,
    why_this_item,
)
from audit.review._record import (
    CAUSE_VERDICTS,
    add_review,
    add_reviews,
    append_reviews,
    import_reviews,
    inconsistent_reviews,
    list_reviews,
    review_inconsistencies,
    review_problems,
)
from audit.review._rescoring import RescoreSummary, rescore_benchmark
from audit.review._settings import RequiredReviews, get_required_reviews, required_reviews, set_required_reviews
from audit.review._status import STATUSES, review_status, settled_verdicts
from audit.review.summary import REVIEWER_SUMMARY_CTES

__all__ = [
    "add_review", "add_reviews", "append_reviews", "import_reviews", "list_reviews", "review_problems",
    "CAUSE_VERDICTS", "inconsistent_reviews", "review_inconsistencies",
    "RequiredReviews", "get_required_reviews", "set_required_reviews", "required_reviews",
    "STATUSES", "review_status", "settled_verdicts",
    "QUEUE_ORDERS", "QUEUE_STATUSES", "QueueOrder", "QueueProgress", "neighbours", "queue_progress",
    "register_order", "review_queue", "NEEDS_ME", "next_for_reviewer",
    "AuditInfo", "FamilyAnswers", "ItemView", "JudgeVerdict", "ModelAnswer", "OptionCount", "ParallelItem",
    "item_view",
    "ReviewerAgreement", "reviewer_agreement", "MIN_KAPPA_ITEMS", "progress_by_reviewer", "tier_by_subject",
    "list_benchmarks", "progress_by_subject", "QueueEntry", "assign", "get_queue_entry", "list_assignments",
    "set_queue_entry", "unassign",
    "ClusterSummary", "cluster_predictions",
    "agreement_report", "bias_vs_accuracy", "JudgeBiasSummary", "judge_bias_summary", "report_sections",
    "calibration", "evidence_scores", "evidence_weights", "refresh_evidence", "rescore", "why_this_item",
    "chance_words", "evidence_reasons", "evidence_reasons_many", "render_reason", "times_words",
    "ReviewOverview", "review_overview", "RescoreSummary", "rescore_benchmark", "REVIEWER_SUMMARY_CTES",
]
