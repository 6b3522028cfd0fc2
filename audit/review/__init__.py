"""Expert review: append-only verdicts, settlement, the triage queue, the
item page's data, reviewer agreement, and the key-error evidence that
verdicts keep up to date.

The names below are what a notebook calls.  The workbench, the CLI and the
later stages also use the public modules: :mod:`audit.review.record`
(recording verdicts and their checks), :mod:`audit.review.queue` (orders,
progress, previous and next), :mod:`audit.review.campaign` (which items
enter the queue, assignments), :mod:`audit.review.item` (the item page's
records), :mod:`audit.review.blind` (evidence-blind review: the blind
answer first, then the evidence), :mod:`audit.review.guidelines` (the
campaign's guidelines, versioned), :mod:`audit.review.dispute` (who may
settle a dispute), :mod:`audit.review.dashboard`, :mod:`audit.review.agreement`,
:mod:`audit.review.evidence` (the stored score, refreshed as verdicts
arrive), :mod:`audit.review.reasons` (why an item is in the queue),
:mod:`audit.review.settings` (required reviews), :mod:`audit.review.judges`
(judges against the experts), :mod:`audit.review.sample` (the random audit
sample and its count), :mod:`audit.review.overview`,
:mod:`audit.review.rescoring` and :mod:`audit.review.summary` (the SQL the
export embeds); for a campaign that weighs its reviewers,
:mod:`audit.review.gold` (known-answer items), :mod:`audit.review.reliability`
(each reviewer's record), :mod:`audit.review.dawid_skene`,
:mod:`audit.review.weighted` (the weighted settlement rule, what a second
review is worth), :mod:`audit.review.trust` (its settings) and
:mod:`audit.review.reports` (error reports from readers)."""
from audit.review._status import review_status, settled_verdicts
from audit.review.agreement import reviewer_agreement
from audit.review.blind import item_for_review
from audit.review.evidence import calibration, evidence_scores, rescore
from audit.review.gold import add_gold
from audit.review.item import item_view
from audit.review.judges import agreement_report, bias_vs_accuracy, report_sections
from audit.review.queue import register_order, review_queue
from audit.review.reasons import why_this_item
from audit.review.record import add_review, add_reviews, import_reviews, list_reviews
from audit.review.reliability import reviewer_reliability
from audit.review.reports import report_error
from audit.review.sample import draw_sample
from audit.review.settings import get_required_reviews, set_required_reviews

__all__ = [
    "add_review",
    "add_reviews",
    "import_reviews",
    "list_reviews",
    "review_status",
    "settled_verdicts",
    "review_queue",
    "register_order",
    "item_view",
    "item_for_review",
    "why_this_item",
    "reviewer_agreement",
    "get_required_reviews",
    "set_required_reviews",
    "evidence_scores",
    "rescore",
    "calibration",
    "bias_vs_accuracy",
    "agreement_report",
    "report_sections",
    "draw_sample",
    "add_gold",
    "reviewer_reliability",
    "report_error",
]
