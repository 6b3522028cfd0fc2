"""How far a campaign trusts its reviewers: the settings an admin sets, and
the SQL the settlement rule and the queue embed to read each reviewer's
record on the known-answer items.

Settings (review setting ``trust``, JSON; changing them is an admin's act):

* ``rule`` — the settlement rule of the review status and the queue:
  ``count`` (the required number of agreeing verdicts, see
  :mod:`audit.review.settings`) or ``weighted`` (the reliability-weighted
  posterior, :mod:`audit.review.weighted`).  An export names its own rule
  through its policy (``audit export create --policy weighted``).
* ``threshold`` / ``lone_threshold`` / ``allow_lone`` / ``careful`` — the
  weighted rule: the posterior agreeing verdicts need; the posterior one
  verdict needs to settle alone, whether the admin allows that at all, and
  the estimated accuracy from which a reviewer counts as careful.
* ``flag_below`` — a reviewer is flagged when the upper end of the 95%
  Wilson interval of their accuracy on known-answer items is below this
  (default 0.8), once they answered at least ``flag_min_gold`` of them
  (default 5: one wrong first answer, 0 of 1, has an upper end of 0.79 and
  would flag anyone); ``second_review_flagged`` — under the count rule, a
  verdict a reviewer gave while flagged does not count toward the required
  number (another reviewer must agree).
* ``gold_rate`` — the share of known-answer items in each reviewer's flow
  (:mod:`audit.review.gold`).

A reviewer's *answer* to a known-answer item is their first verdict on it
after the item was marked (``gold_items.after_review_id``): the one given
before anyone's verdict on it could be seen.  Its right answer is
``key_correct`` when the known answer is the key, else ``key_wrong`` with
the known answer as the corrected answer.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields

from audit.accounts import require_role
from audit.errors import InputError
from audit.review.weighted import accuracy_sql
from audit.store import DbPath, connect, transaction
from audit.store.settings import read_setting, write_setting

TRUST_SETTING = "trust"
RULES = ("count", "weighted")
#: z of the two-sided 95% interval (scipy.stats.norm.ppf(0.975)).
Z95 = 1.959963984540054


@dataclass(frozen=True)
class TrustSettings:
    """See the module docstring."""

    rule: str = "count"
    threshold: float = 0.8
    lone_threshold: float = 0.95
    allow_lone: bool = False
    careful: float = 0.85
    flag_below: float = 0.8
    flag_min_gold: int = 5
    second_review_flagged: bool = False
    gold_rate: float = 0.1

    def check(self) -> "TrustSettings":
        if self.rule not in RULES:
            raise InputError(f"unknown settlement rule '{self.rule}' (use one of: {', '.join(RULES)})")
        for name in ("threshold", "lone_threshold", "careful", "flag_below", "gold_rate"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or math.isnan(v) or not 0.0 <= v <= 1.0:
                raise InputError(f"{name.replace('_', ' ')} is a probability between 0 and 1, not {v!r}")
        if isinstance(self.flag_min_gold, bool) or not isinstance(self.flag_min_gold, int) or self.flag_min_gold < 1:
            raise InputError(f"flag min gold is a whole number from 1, not {self.flag_min_gold!r}")
        if self.threshold < 0.5 or self.lone_threshold < 0.5:
            raise InputError("a settlement threshold below 0.5 would settle an opinion less likely right than wrong")
        return self


def trust_from(con) -> TrustSettings:
    """The stored settings (defaults where none are stored)."""
    raw = read_setting(con, TRUST_SETTING)
    known = {f.name for f in fields(TrustSettings)}
    return TrustSettings(**{k: v for k, v in (raw or {}).items() if k in known})


def get_trust(*, db: DbPath = None) -> TrustSettings:
    """The campaign's trust settings."""
    with connect(db, read_only=True) as con:
        return trust_from(con)


def set_trust(*, actor: str | None = None, db: DbPath = None, **changes) -> TrustSettings:
    """Change some of the trust settings (the others keep their value); an
    admin's act once the database has accounts.

    >>> import tempfile, os
    >>> db = os.path.join(tempfile.mkdtemp(), "t.duckdb")
    >>> set_trust(rule="weighted", allow_lone=True, db=db).rule
    'weighted'
    >>> set_trust(threshold=1.5, db=db)
    Traceback (most recent call last):
    ...
    audit.errors.InputError: threshold is a probability between 0 and 1, not 1.5
    """
    known = {f.name for f in fields(TrustSettings)}
    bad = sorted(set(changes) - known)
    if bad:
        raise InputError(f"unknown trust setting(s): {', '.join(bad)}")
    with connect(db) as con, transaction(con):
        require_role(con, actor, "admin", "changing how the campaign weighs its reviewers")
        cur = trust_from(con)
        new = TrustSettings(**{**asdict(cur), **{k: v for k, v in changes.items() if v is not None}})
        for name in ("threshold", "lone_threshold", "careful", "flag_below", "gold_rate"):
            v = getattr(new, name)
            if isinstance(v, int) and not isinstance(v, bool):
                new = TrustSettings(**{**asdict(new), name: float(v)})
        new.check()
        write_setting(con, TRUST_SETTING, asdict(new))
    return new


def trust_settings(*, actor: str | None = None, db: DbPath = None, **changes) -> TrustSettings:
    """The trust settings (``audit review settlement``); with changes (values
    not None), set them first (:func:`set_trust`, an admin's act)."""
    given = {k: v for k, v in changes.items() if v is not None}
    if given:
        return set_trust(actor=actor, db=db, **given)
    return get_trust(db=db)


def trust_params(con) -> dict:
    """The SQL parameters of :data:`GOLD_RECORD_CTES` and of the weighted
    rule, from the stored settings."""
    s = trust_from(con)
    return {"rule": s.rule, "w_threshold": s.threshold, "w_lone_threshold": s.lone_threshold,
            "w_allow_lone": s.allow_lone, "w_careful": s.careful, "flag_below": s.flag_below,
            "flag_min_gold": s.flag_min_gold, "second_review_flagged": s.second_review_flagged}


def wilson_upper_sql(k: str, n: str) -> str:
    """The upper end of the 95% Wilson interval of ``k`` successes in ``n``
    trials, in SQL (NULL when ``n`` is 0) — the formula of
    :func:`audit.analyze.wilson_interval` (a test checks both agree)."""
    z2 = Z95 * Z95
    p = f"({k}::DOUBLE / nullif({n}, 0))"
    return (f"(({p} + {z2!r} / (2 * {n})) + {Z95!r} * sqrt({p} * (1 - {p}) / {n} + {z2!r} / (4 * {n} * {n})))"
            f" / (1 + {z2!r} / {n})")


#: Relations for ``$benchmark``: ``gold`` (each known-answer item, its known
#: answer as an opinion ``verdict[:answer]`` and when it was marked),
#: ``gold_answers`` (each reviewer's first verdict on it since:
#: ``reviewer, question_id, review_id, is_right``) and ``gold_record``
#: (``reviewer, n_gold, n_right``).
GOLD_RECORD_CTES = """
gold AS (
    SELECT g.question_id, g.answer, g.after_review_id,
           CASE WHEN g.answer = q.answer_key THEN 'key_correct' ELSE 'key_wrong:' || g.answer END AS gold_opinion
    FROM gold_items g JOIN questions q ON q.benchmark = g.benchmark AND q.question_id = g.question_id
    WHERE g.benchmark = $benchmark
),
gold_answers AS (
    SELECT r.reviewer, r.question_id, r.review_id,
           (r.verdict || coalesce(':' || r.corrected_answer, '')) = g.gold_opinion AS is_right
    FROM reviews r JOIN gold g ON g.question_id = r.question_id
    WHERE r.benchmark = $benchmark AND r.review_id > g.after_review_id AND r.verdict <> 'skip'
      AND NOT r.is_adjudication
    QUALIFY row_number() OVER (PARTITION BY r.question_id, r.reviewer ORDER BY r.review_id) = 1
),
gold_record AS (
    SELECT reviewer, count(*) AS n_gold, count(*) FILTER (WHERE is_right) AS n_right
    FROM gold_answers GROUP BY reviewer
)"""

#: After :data:`GOLD_RECORD_CTES`: ``reviewer_weight`` (``reviewer,
#: accuracy, flagged``: the accuracy the weighted rule counts a verdict
#: with, and the flag at ``$flag_below`` from ``$flag_min_gold`` answers).
REVIEWER_WEIGHT_CTE = f"""
reviewer_weight AS (
    SELECT reviewer, {accuracy_sql('n_right', 'n_gold')} AS accuracy,
           n_gold >= $flag_min_gold AND coalesce({wilson_upper_sql('n_right', 'n_gold')} < $flag_below, false)
               AS flagged
    FROM gold_record
)"""

#: After :data:`GOLD_RECORD_CTES`: ``gold_running`` (``reviewer, review_id,
#: flagged``: whether the reviewer was flagged right after each of their
#: answers to a known-answer item), for an ASOF join on ``review_id``.
GOLD_RUNNING_CTE = f"""
gold_running AS (
    SELECT reviewer, review_id,
           n >= $flag_min_gold AND coalesce({wilson_upper_sql('k', 'n')} < $flag_below, false) AS flagged
    FROM (SELECT reviewer, review_id,
                 count(*) FILTER (WHERE is_right) OVER w AS k, count(*) OVER w AS n
          FROM gold_answers WINDOW w AS (PARTITION BY reviewer ORDER BY review_id))
)"""


__all__ = [
    "TRUST_SETTING", "RULES", "Z95", "TrustSettings", "trust_from", "get_trust", "set_trust", "trust_settings",
    "trust_params",
    "wilson_upper_sql", "GOLD_RECORD_CTES", "REVIEWER_WEIGHT_CTE", "GOLD_RUNNING_CTE",
]
