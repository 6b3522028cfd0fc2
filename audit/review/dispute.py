"""Who may not settle an item: the parties to it.

An adjudication judges the reviewers' verdicts, so a reviewer whose own
verdict is among them may not record it: every reviewer with a verdict on
the item is a party, with one exception.  A lead who adds a plain verdict
to an item that is *already* disputed takes no part in how the dispute
began, and stays free to record the deciding verdict afterwards, as long
as the others' verdicts still disagree among themselves.  (Before this rule such a lead lost the adjudication
for good, without warning, and with one lead only an administrator could
settle the item.)  Once the others agree (a revision brought their verdicts
together), the dispute hinges on the lead's verdict, and the lead is a party.

The history is replayed in insertion order with the settlement rule's
current verdicts (:mod:`audit.review._status`): each reviewer's latest
non-skip, non-adjudication verdict; two agree when they have the same
verdict and, for ``key_wrong``, the same corrected answer.

>>> rows = [(1, "Pema", "key_correct", None, False), (2, "Dolma", "key_wrong", "B", False),
...          (3, "Lhamo", "key_wrong", "C", False)]
>>> sorted(dispute_parties(rows))        # Lhamo joined an existing dispute
['dolma', 'pema']
>>> sorted(dispute_parties([(1, "Pema", "key_correct", None, False), (2, "Lhamo", "key_wrong", "B", False)]))
['lhamo', 'pema']
>>> sorted(dispute_parties([(1, "Lhamo", "key_correct", None, False)]))   # the only verdict: no self-settling
['lhamo']
>>> sorted(dispute_parties(rows + [(4, "Dolma", "key_correct", None, False)]))  # now Lhamo alone disagrees
['dolma', 'lhamo', 'pema']
"""
from __future__ import annotations

from typing import Iterable, Sequence

__all__ = ["dispute_parties"]


def dispute_parties(rows: Iterable[Sequence]) -> set[str]:
    """The case-folded names of the reviewers who may not adjudicate the
    item (see the module).  ``rows``: ``(review_id, reviewer, verdict,
    corrected_answer, is_adjudication)`` of one item, in any order."""
    current: dict[str, str] = {}
    joiners: set[str] = set()
    for _, reviewer, verdict, answer, adjudication in sorted(rows, key=lambda r: r[0]):
        if adjudication or verdict == "skip":
            continue
        name = str(reviewer).casefold()
        before = len(set(current.values())) > 1
        first = name not in current
        current[name] = f"{verdict}:{answer or ''}"
        now = len(set(current.values())) > 1
        if first and before and now:
            joiners.add(name)
        elif not now:
            joiners.clear()
    others = {v for k, v in current.items() if k not in joiners}
    if len(others) < 2:     # the disagreement now hinges on a joiner's verdict: a party after all
        joiners.clear()
    return set(current) - joiners
