"""In-memory Label Studio listings, as :func:`audit.sync._remote.list_annotations`
and :func:`audit.sync._remote.list_users` return them, for the tests of a
pull's bookkeeping without a server."""
from __future__ import annotations

import pandas as pd

URL = "http://ls.invalid:8080"


def annotation(annotation_id: int, question_id: str, user: int, verdict: str | None, *, answer=None, cause=None,
               rationale=None, fix=None, updated_at: str = "2026-01-01T00:00:00.000000Z", task_id: int | None = None,
               benchmark: str = "toy", author: int | None = None, cancelled: bool = False) -> dict:
    from audit.sync._config import verdict_hash

    return {"annotation_id": annotation_id, "updated_at": updated_at,
            "task_id": task_id if task_id is not None else 100 + int(question_id.lstrip("t") or 0),
            "benchmark": benchmark, "question_id": question_id, "ls_user_id": user, "was_cancelled": cancelled,
            "verdict": verdict, "corrected_answer": answer, "cause": cause, "rationale": rationale,
            "proposed_fix": fix, "content_hash": verdict_hash(verdict, answer, cause, rationale, fix),
            "author_id": author if author is not None else user}


def listing(*rows: dict, listed_at=None) -> pd.DataFrame:
    from audit.sync._remote import ANNOTATION_COLUMNS

    df = pd.DataFrame(list(rows), columns=ANNOTATION_COLUMNS)
    if listed_at is not None:
        df.attrs["listed_at"] = listed_at
    return df


def users(**emails: str) -> pd.DataFrame:
    """``users(u1="a@x.org", u2="b@x.org")`` → ids 1 and 2."""
    return pd.DataFrame({"ls_user_id": [int(k.lstrip("u")) for k in emails], "email": list(emails.values())})
