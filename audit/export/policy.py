"""Named export policies: how settled expert verdicts become a key version.

A policy never decides *whether* an item is settled — that is the review
stage's settlement rule (``audit.review.settled_verdicts``: the latest
adjudication wins; otherwise the latest non-skip verdicts of the required
number of distinct reviewers must all agree, and for ``key_wrong`` name the
same corrected answer).  It only names which of the review stage's rules
applies (``rule``: ``count``, the rule above, or ``weighted``, where
agreeing verdicts settle when their reliability-weighted posterior passes
the campaign's threshold, :mod:`audit.review.weighted`); the CHANGELOG says
which rule settled each item.  A policy says what a *settled* verdict does to
the item in the exported version:

* ``key_wrong``  → the key is replaced by the agreed corrected answer
  (when ``correct`` is on);
* a verdict listed in ``exclude`` → the item goes to the exclusion list named
  after that verdict (``excluded-ambiguous.txt``, ...); the item stays in the
  native files with its original key, and scores drop it;
* anything else — ``key_correct``, unreviewed, disputed, not enough reviews
  yet, or a settlement the policy does not accept — keeps the original key.

Every version is derived from the *original* keys plus all verdicts settled
at export time (not from its parent's files), so a version is a pure function
of the database state and the policy.

Register more with :func:`register_policy`.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from audit.errors import InputError

#: Verdicts a policy may send to an exclusion list.
EXCLUDABLE = ("ambiguous", "defective")


@dataclass(frozen=True)
class Policy:
    """One named export policy.

    ``correct``: apply settled ``key_wrong`` corrections.
    ``exclude``: settled verdicts whose items go to an exclusion list (one
    list per verdict).  ``adjudicated_only``: only adjudicated settlements
    count.  ``min_reviewers``: a settlement counts only when at least this
    many distinct reviewers reviewed the item (adjudications always count).
    ``rule``: the review stage's settlement rule (``count`` or ``weighted``).
    """

    name: str
    description: str
    correct: bool = True
    exclude: tuple[str, ...] = EXCLUDABLE
    adjudicated_only: bool = False
    min_reviewers: int = 1
    params: dict = field(default_factory=dict, compare=False, repr=False)
    rule: str = "count"

    def __post_init__(self):
        bad = [v for v in self.exclude if v not in EXCLUDABLE]
        if bad:
            raise ValueError(f"policy {self.name!r}: cannot exclude verdicts {bad}; allowed: {list(EXCLUDABLE)}")
        if self.min_reviewers < 1:
            raise ValueError("min_reviewers must be at least 1")
        if self.rule not in ("count", "weighted"):
            raise ValueError(f"policy {self.name!r}: unknown settlement rule {self.rule!r} (count or weighted)")

    def as_dict(self) -> dict:
        """JSON-ready description (goes into manifest.json)."""
        d = asdict(self)
        d.pop("params", None)
        d["exclude"] = list(self.exclude)
        return d


ORIGINAL = Policy(
    name="original",
    description="The original keys, unchanged: no correction, no exclusion (version 1.0).",
    correct=False,
    exclude=(),
)

POLICIES: dict[str, Policy] = {}


def register_policy(policy: Policy) -> Policy:
    """Add *policy* to the registry (a name can be registered once)."""
    if policy.name in POLICIES:
        raise ValueError(f"an export policy named {policy.name!r} is already registered")
    POLICIES[policy.name] = policy
    return policy


register_policy(Policy(
    name="default",
    description=(
        "Apply a correction only when the item's reviews (after adjudication) agree the key is wrong and "
        "name the same corrected answer; items settled as ambiguous or defective go to an exclusion list; "
        "unreviewed or unsettled items keep the original key."
    ),
))
register_policy(ORIGINAL)
register_policy(Policy(
    name="corrections-only",
    description="Like default, but ambiguous and defective items are kept (original key, not excluded).",
    exclude=(),
))
register_policy(Policy(
    name="double-reviewed",
    description=(
        "Like default, but a settlement counts only when at least two distinct reviewers reviewed the item "
        "or a lead adjudicated it (single-review settlements of low-tier items keep the original key)."
    ),
    min_reviewers=2,
))
register_policy(Policy(
    name="adjudicated-only",
    description="Like default, but only adjudicated verdicts change the release.",
    adjudicated_only=True,
))
register_policy(Policy(
    name="weighted",
    description=(
        "Like default, but items are settled by the reliability-weighted rule: agreeing verdicts settle when "
        "the posterior that they are right, given the evidence and each reviewer's accuracy on known-answer "
        "items, passes the campaign's threshold; one careful reviewer's verdict that the evidence supports "
        "settles alone only when the admin allows it."
    ),
    rule="weighted",
))


def get_policy(name: str | Policy) -> Policy:
    """The registered policy called *name* (a Policy passes through).

    >>> get_policy("default").exclude
    ('ambiguous', 'defective')
    >>> get_policy("nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    audit.errors.InputError: unknown export policy 'nope'; choose one of: adjudicated-only, ..., weighted
    """
    if isinstance(name, Policy):
        return name
    try:
        return POLICIES[name]
    except KeyError:
        raise InputError(f"unknown export policy {name!r}; choose one of: {', '.join(sorted(POLICIES))}") from None


def list_policies():
    """DataFrame[name, description, correct, exclude, adjudicated_only, min_reviewers, rule]."""
    import pandas as pd

    rows = [p.as_dict() for p in sorted(POLICIES.values(), key=lambda p: p.name)]
    for r in rows:
        r["exclude"] = ",".join(r["exclude"])
    return pd.DataFrame(rows, columns=["name", "description", "correct", "exclude", "adjudicated_only", "min_reviewers",
                                       "rule"])


__all__ = ["EXCLUDABLE", "Policy", "ORIGINAL", "POLICIES", "register_policy", "get_policy", "list_policies"]
