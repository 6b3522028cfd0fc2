"""Label Studio users ↔ reviewer names (table ``ls_users``), checked against
the server's current user list on every pull.

The rule (migration 004): the reviewer of a Label Studio user is the user's
email, unless the account was linked to a workbench reviewer (the account a
push created for that reviewer, recorded as ``(ls_user_id, email,
reviewer)``).  A user id is only an identity for as long as it names the
same account: after Label Studio is restored from an older backup it hands
out ids again, so user 5 may now be another person.  Hence a link counts
only while the email Label Studio reports for the id is still the email
recorded; otherwise the id is **re-resolved by its current email** (the
reviewer recorded for that email under any id, else the email itself) and
the link is rewritten to the account it now names (``relinked``).  An id
the server no longer lists keeps its recorded link (nothing else can be
said about it) or, unlinked, becomes ``label-studio-user-<id>``.
"""
from __future__ import annotations

import logging

import pandas as pd

from audit._util.sql import unregister

log = logging.getLogger("audit.sync")

USER_COLUMNS = ["ls_user_id", "email", "reviewer", "linked_email", "linked_reviewer", "relinked"]

_RESOLVE_SQL = """
WITH cur AS (
    SELECT ls_user_id::BIGINT AS ls_user_id, nullif(trim(email), '') AS email FROM _ls_users_now
),
link AS (
    SELECT ls_user_id, email AS linked_email, reviewer AS linked_reviewer FROM ls_users WHERE url = $url
),
by_email AS (   -- the reviewer recorded for an email, under whichever id
    SELECT lower(trim(email)) AS e, reviewer FROM ls_users WHERE url = $url
    QUALIFY row_number() OVER (PARTITION BY lower(trim(email)) ORDER BY ls_user_id DESC) = 1
)
SELECT ls_user_id, c.email,
       CASE WHEN c.email IS NULL THEN coalesce(l.linked_reviewer, 'label-studio-user-' || ls_user_id)
            WHEN lower(trim(l.linked_email)) = lower(c.email) THEN l.linked_reviewer
            ELSE coalesce(b.reviewer, c.email) END AS reviewer,
       l.linked_email, l.linked_reviewer,
       coalesce(c.email IS NOT NULL AND l.linked_email IS NOT NULL
                AND lower(trim(l.linked_email)) <> lower(c.email), false) AS relinked
FROM cur c
FULL JOIN link l USING (ls_user_id)
LEFT JOIN by_email b ON b.e = lower(c.email)
ORDER BY ls_user_id
"""


def resolve_users(con, url: str, users: pd.DataFrame) -> pd.DataFrame:
    """The reviewer of each Label Studio user id, by the rule in the module
    doc.  ``users``: the server's users now (``ls_user_id, email``, as
    :func:`audit.sync._remote.list_users` returns them).  Returns columns
    ``USER_COLUMNS``: ``relinked`` is true where the recorded link names
    another email than the server reports for the id (the id was reused,
    e.g. after a restore), and ``reviewer`` is then resolved by email.

    >>> import duckdb
    >>> con = duckdb.connect()
    >>> _ = con.execute("CREATE TABLE ls_users (url VARCHAR, ls_user_id BIGINT, email VARCHAR, reviewer VARCHAR)")
    >>> _ = con.execute("INSERT INTO ls_users VALUES ('u', 5, 'pema@reviewers.audit.invalid', 'Pema'), "
    ...                 "('u', 6, 'dawa@example.org', 'Dawa')")
    >>> now = pd.DataFrame({"ls_user_id": [5, 6, 7], "email": ["tashi@example.org", "dawa@example.org", ""]})
    >>> resolve_users(con, "u", now)[["ls_user_id", "reviewer", "relinked"]].values.tolist()
    [[5, 'tashi@example.org', True], [6, 'Dawa', False], [7, 'label-studio-user-7', False]]
    """
    con.register("_ls_users_now", users[["ls_user_id", "email"]])
    try:
        return con.execute(_RESOLVE_SQL, {"url": url}).df()
    finally:
        unregister(con, "_ls_users_now")


def relink_users(con, url: str, resolved: pd.DataFrame) -> int:
    """Rewrite the links whose user id now names another account (rows of
    :func:`resolve_users` with ``relinked``): the id is linked to the
    account's current email and the reviewer resolved for it, so neither a
    pull nor a push attributes it to the old reviewer again.  Inside the
    caller's transaction; logs each change; returns how many."""
    stale = resolved[resolved["relinked"]]
    for r in stale.itertuples(index=False):
        log.warning("Label Studio user %s was %s (reviewer %r) and is now %s: its annotations are attributed "
                    "to %r (the id was reused, e.g. after a restore)", r.ls_user_id, r.linked_email,
                    r.linked_reviewer, r.email, r.reviewer)
    if len(stale):
        con.executemany(
            "UPDATE ls_users SET email = ?, reviewer = ? WHERE url = ? AND ls_user_id = ?",
            [(str(r.email), str(r.reviewer), url, int(r.ls_user_id)) for r in stale.itertuples(index=False)],
        )
    return len(stale)
