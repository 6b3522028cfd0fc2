"""``audit review …``: record and inspect expert verdicts without the app.

Every command goes through the same functions as the workbench
(:mod:`audit.review`), with the same validation; bad input prints one line
and exits 1 with nothing appended.  Once the database has accounts, every
command that records verdicts or changes settings names the acting account
with ``--as NAME`` and proves it with its password (a prompt, or
``--password-stdin``), as ``audit export create`` does."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from audit.cli._common import (
    AsOption,
    BenchmarkOption,
    DbOption,
    Passwords,
    PasswordStdinOption,
    acting_account,
    echo,
    json_out,
    table_text,
)

review_app = typer.Typer(help="Record, import and inspect expert verdicts on answer keys.", no_args_is_help=True)


def register(app: typer.Typer, import_app: typer.Typer) -> None:
    app.add_typer(review_app, name="review")



def _show(df, empty: str) -> None:
    import pandas as pd

    if df.empty:
        echo(empty)
        return
    with pd.option_context("display.max_colwidth", 60, "display.width", 200, "display.max_rows", None,
                           "display.max_columns", None):
        echo(table_text(df))


@review_app.command("add")
def add_cmd(
    question: Annotated[str, typer.Option("--question", "-q", help="Question id.")],
    verdict: Annotated[str, typer.Option("--verdict", "-v", help="key_correct | key_wrong | ambiguous | defective | skip.")],
    reviewer: Annotated[Optional[str], typer.Option(
        "--reviewer", "-r", help="Whose verdict it is (default: the --as account; every verdict is attributed).")] = None,
    benchmark: BenchmarkOption = None,
    answer: Annotated[Optional[str], typer.Option("--answer", "-a", help="Corrected answer (with key_wrong), e.g. C or ག.")] = None,
    cause: Annotated[Optional[str], typer.Option("--cause", help="key_slip | translation | cultural | source_error | formatting | other (with key_wrong, ambiguous or defective).")] = None,
    rationale: Annotated[Optional[str], typer.Option("--rationale", help="Why (free text).")] = None,
    fix: Annotated[Optional[str], typer.Option("--fix", help="Proposed text fix (optional).")] = None,
    adjudicate: Annotated[bool, typer.Option("--adjudicate", help="Record as the lead's adjudicated verdict.")] = False,
    revise: Annotated[bool, typer.Option("--revise", help="Revise your earlier verdict on this item (a second verdict "
                                                          "is refused without it).")] = False,
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Append one verdict on an item (nothing is ever overwritten).

    Once the database has accounts, sign in with --as NAME (password at a prompt or with
    --password-stdin): the verdict is yours, an adjudication needs a lead."""
    from audit.errors import InputError
    from audit.review import add_review

    actor = acting_account(as_, Passwords(password_stdin), db, required_for="recording a verdict")
    who = reviewer if reviewer is not None else actor
    if who is None:
        raise InputError("say whose verdict this is: --as NAME (or --reviewer NAME on a database without accounts)")
    r = add_review(benchmark, question, who, verdict, corrected_answer=answer, cause=cause, rationale=rationale,
                   proposed_fix=fix, is_adjudication=adjudicate, source="cli", revision=revise, actor=actor, db=db)
    what = r.verdict + (f" → {r.corrected_answer}" if r.corrected_answer else "")
    echo(f"review {r.review_id} saved: {r.benchmark}/{r.question_id} {what} by {r.reviewer}"
         + (" (adjudication)" if r.is_adjudication else "") + (" (revision)" if r.is_revision else "")
         + f" at {r.created_at:%Y-%m-%d %H:%M:%S} UTC")


@review_app.command("import")
def import_cmd(
    path: Annotated[Path, typer.Argument(readable=False, help="CSV or JSONL: question_id, reviewer, verdict, corrected_answer, cause, rationale.")],
    benchmark: BenchmarkOption = None,
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Append the verdicts of a spreadsheet (all or nothing; errors name file:line).

    Once the database has accounts an import is a lead's or admin's act: --as NAME."""
    from audit.review import import_reviews

    actor = acting_account(as_, Passwords(password_stdin), db, required_for="importing verdicts")
    rows = import_reviews(path, benchmark=benchmark, actor=actor, db=db)
    b = rows[0].benchmark if rows else benchmark
    echo(f"{len(rows)} review(s) imported into {b} from {path}" + (f" by {actor}" if actor else ""))


@review_app.command("list")
def list_cmd(
    benchmark: BenchmarkOption = None,
    question: Annotated[Optional[str], typer.Option("--question", "-q", help="Only this item's history.")] = None,
    reviewer: Annotated[Optional[str], typer.Option("--reviewer", "-r", help="Only this reviewer's rows.")] = None,
    db: DbOption = None,
) -> None:
    """The review history (every row, oldest first)."""
    from audit.review import list_reviews

    df = list_reviews(benchmark, question, reviewer=reviewer, db=db)
    cols = ["review_id", "question_id", "reviewer", "created_at", "verdict", "corrected_answer", "cause",
            "is_adjudication", "is_revision", "source", "recorded_by", "rationale"]
    _show(df[cols], "no reviews yet" + (f" of {question}" if question else ""))


@review_app.command("status")
def status_cmd(
    benchmark: BenchmarkOption = None,
    all_tiers: Annotated[bool, typer.Option("--all-tiers", help="Every item, not only Tier 1–2.")] = False,
    db: DbOption = None,
) -> None:
    """Review progress, items per status, disputed items and reviewer agreement."""
    from audit.review.overview import review_overview

    for line in review_overview(benchmark, all_tiers=all_tiers, db=db).lines():
        echo(line)


@review_app.command("leads")
def leads_cmd(
    set_: Annotated[Optional[str], typer.Option("--set", help="Replace the stored leads (comma-separated names; '' clears).")] = None,
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Show (or set) the lead reviewers who may adjudicate.  Without accounts $WORKBENCH_LEADS adds
    to them; once accounts exist, setting them is an admin's act (--as NAME)."""
    from audit.accounts import lead_reviewers

    actor = acting_account(as_, Passwords(password_stdin), db,
                           required_for="changing the lead reviewers") if set_ is not None else None
    echo(lead_reviewers(set_, actor=actor, db=db).line())


@review_app.command("required")
def required_cmd(
    flagged: Annotated[Optional[int], typer.Option("--flagged", help="Reviews needed for Tier 1–2 items.")] = None,
    other: Annotated[Optional[int], typer.Option("--other", help="Reviews needed for other items.")] = None,
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Show (or set, 1 to 20) how many independent reviews settle an item.  Once accounts exist,
    setting them is an admin's act (--as NAME)."""
    from audit.review.settings import required_reviews

    setting = flagged is not None or other is not None
    actor = acting_account(as_, Passwords(password_stdin), db,
                           required_for="changing the required reviews") if setting else None
    req = required_reviews(flagged, other, actor=actor, db=db)
    echo(f"independent reviews required: Tier 1–2: {req.flagged}, other items: {req.other}")


@review_app.command("queue")
def queue_cmd(
    benchmark: BenchmarkOption = None,
    status: Annotated[Optional[str], typer.Option("--status", help="unreviewed | needs_second_review | disputed | done.")] = None,
    all_tiers: Annotated[bool, typer.Option("--all-tiers", help="Every item, not only Tier 1–2.")] = False,
    limit: Annotated[int, typer.Option("--limit", help="Rows to show.")] = 30,
    db: DbOption = None,
) -> None:
    """The next items to review: the key most likely wrong first (order 'evidence')."""
    from audit.review import review_queue

    df = review_queue(benchmark, tiers=None if all_tiers else (1, 2), status=status, limit=limit, db=db)
    df["p_wrong_key"] = df["key_error"].round(3)
    _show(df[["position", "question_id", "subject", "tier", "p_wrong_key", "answer_key", "top_answer", "agreement_count",
              "status", "n_verdicts", "required"]], "no items match")


@review_app.command("optimize")
def optimize_cmd(db: DbOption = None) -> None:
    """Store predictions in item order so the item page reads one item without
    scanning all (run once after importing predictions; ~45 s for 10 M rows)."""
    from audit.store.layout import cluster_predictions

    s = cluster_predictions(db=db)
    echo(f"{s.rows:,} predictions stored in item order in {s.seconds:.1f} s "
         f"(row groups read per item: {s.row_groups_per_item_before:.1f} → {s.row_groups_per_item_after:.1f})")


@review_app.command("changes")
def changes_cmd(
    benchmark: BenchmarkOption = None,
    since: Annotated[Optional[str], typer.Option("--since", help="The version to compare with (default: the latest "
                                                                 "exported version; none: the previous analysis).")] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="table | json")] = "table",
    db: DbOption = None,
) -> None:
    """Items whose evidence moved since a version: settled keys the new models now strongly
    reject (reopened; the settled verdict stands), and unsettled items that entered or left the
    queue.  Run after importing or predicting new models' answers and 'audit analyze'."""

    from audit.errors import InputError
    from audit.review.changes import JSON_COLUMNS, review_changes

    if fmt not in ("table", "json"):
        raise InputError(f"unknown format '{fmt}' (choose table or json)")
    df = review_changes(benchmark, since=since, db=db)
    if fmt == "json":
        rows = df[JSON_COLUMNS].to_dict("records")
        echo(json_out(rows, indent=2))
        return
    _show(df[["question_id", "change", "reason"]], "no item's evidence crossed a threshold")
