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
    import_app.command("reports")(import_reports_cmd)



def _show(df, empty: str) -> None:
    import pandas as pd

    if df.empty:
        echo(empty)
        return
    with pd.option_context("display.width", 200, "display.max_rows", None, "display.max_columns", None):
        echo(table_text(df))   # an empty cell, never NaN; long texts cut


@review_app.command("add")
def add_cmd(
    question: Annotated[str, typer.Option("--question", "-q", help="Question id.")],
    verdict: Annotated[
        str, typer.Option("--verdict", "-v", help="key_correct | key_wrong | ambiguous | defective | skip.")
    ],
    reviewer: Annotated[
        Optional[str],
        typer.Option(
            "--reviewer", "-r", help="Whose verdict it is (default: the --as account; every verdict is attributed)."
        ),
    ] = None,
    benchmark: BenchmarkOption = None,
    answer: Annotated[
        Optional[str], typer.Option("--answer", "-a", help="Corrected answer (with key_wrong), e.g. C or ག.")
    ] = None,
    cause: Annotated[
        Optional[str],
        typer.Option(
            "--cause",
            help="key_slip | translation | cultural | source_error | formatting | other "
            "(with key_wrong, ambiguous or defective).",
        ),
    ] = None,
    rationale: Annotated[Optional[str], typer.Option("--rationale", help="Why (free text).")] = None,
    fix: Annotated[Optional[str], typer.Option("--fix", help="Proposed text fix (optional).")] = None,
    adjudicate: Annotated[bool, typer.Option("--adjudicate", help="Record as the lead's adjudicated verdict.")] = False,
    revise: Annotated[
        bool,
        typer.Option(
            "--revise", help="Revise your earlier verdict on this item (a second verdict is refused without it)."
        ),
    ] = False,
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
    path: Annotated[
        Path,
        typer.Argument(
            readable=False, help="CSV or JSONL: question_id, reviewer, verdict, corrected_answer, cause, rationale."
        ),
    ],
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
    fmt: Annotated[str, typer.Option("--format", help="table (lines of text) or json.")] = "table",
    db: DbOption = None,
) -> None:
    """Review progress, items per status, disputed items, reviewer agreement and, in an
    evidence-blind campaign, each reviewer's blind agreement with the settled keys."""
    import json

    from audit.errors import InputError
    from audit.review.overview import review_overview

    if fmt not in ("table", "json"):
        raise InputError(f"unknown format '{fmt}' (choose table or json)")
    overview = review_overview(benchmark, all_tiers=all_tiers, db=db)
    if fmt == "json":
        echo(json.dumps(overview.as_dict(), ensure_ascii=False, indent=2))
        return
    for line in overview.lines():
        echo(line)


@review_app.command("leads")
def leads_cmd(
    set_: Annotated[
        Optional[str], typer.Option("--set", help="Replace the stored leads (comma-separated names; '' clears).")
    ] = None,
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
    status: Annotated[
        Optional[str], typer.Option("--status", help="unreviewed | needs_second_review | disputed | done.")
    ] = None,
    all_tiers: Annotated[bool, typer.Option("--all-tiers", help="Every item, not only Tier 1–2.")] = False,
    limit: Annotated[int, typer.Option("--limit", help="Rows to show.")] = 30,
    db: DbOption = None,
) -> None:
    """The next items to review: the key most likely wrong first (order 'evidence')."""
    from audit.review import review_queue

    df = review_queue(benchmark, tiers=None if all_tiers else (1, 2), status=status, limit=limit, db=db)
    df["p_wrong_key"] = df["key_error"].round(3)
    _show(
        df[
            [
                "position",
                "question_id",
                "subject",
                "tier",
                "p_wrong_key",
                "answer_key",
                "top_answer",
                "agreement_count",
                "status",
                "n_verdicts",
                "required",
            ]
        ],
        "no items match",
    )


@review_app.command("sample")
def sample_cmd(
    size: Annotated[int, typer.Option("--size", "-n", help="How many items to draw.")],
    benchmark: BenchmarkOption = None,
    seed: Annotated[Optional[int], typer.Option("--seed", help="Repeat a draw (default: a new seed, stored).")] = None,
    by: Annotated[str, typer.Option("--by", help="Strata: band (key-error score bands, the likely wrong ones drawn "
                                                 "more) | subject | none.")] = "band",
    fmt: Annotated[str, typer.Option("--format", "-f", help="table | json.")] = "table",
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Draw a random audit sample: items at random, each stored with its inclusion probability.
    They enter every reviewer's queue like any other item; their settled verdicts give a count of
    wrong keys that does not rest on the models (shown by audit report).  Once accounts exist,
    drawing is an admin's act (--as NAME).  JSON: a list of {"question_id", "inclusion_probability"}."""
    import json

    from audit.errors import InputError
    from audit.review import draw_sample

    if fmt not in ("table", "json"):
        raise InputError(f"unknown format '{fmt}' (choose table or json)")
    actor = acting_account(as_, Passwords(password_stdin), db, required_for="drawing a random audit sample")
    rows = draw_sample(benchmark, size, seed=seed, by=by, actor=actor, db=db)
    if fmt == "json":
        echo(json.dumps(rows, ensure_ascii=False))
        return
    for r in rows:
        echo(f"{r['question_id']}\t{r['inclusion_probability']:.4f}")
    echo(f"{len(rows)} item(s) drawn ({by}); they are in every reviewer's queue")


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
    since: Annotated[
        Optional[str],
        typer.Option(
            "--since",
            help="The version to compare with (default: the latest exported version; none: the previous analysis).",
        ),
    ] = None,
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


# ---------------------------------------------------------------- a campaign that weighs its reviewers

FormatOption = Annotated[str, typer.Option("--format", "-f", help="table | json")]


def _emit(df, fmt: str, empty: str) -> None:
    from audit.errors import InputError

    if fmt not in ("table", "json"):
        raise InputError(f"unknown format '{fmt}' (choose table or json)")
    if fmt == "json":
        echo(df.to_json(orient="records", indent=2, date_format="iso", force_ascii=False))
        return
    _show(df, empty)


@review_app.command("gold")
def gold_cmd(
    benchmark: BenchmarkOption = None,
    add: Annotated[Optional[str], typer.Option("--add", help="Mark this item (its id) a known-answer item.")] = None,
    answer: Annotated[Optional[str], typer.Option("--answer", "-a",
                                                  help="Its known answer (with --add), e.g. C or ག.")] = None,
    from_settled: Annotated[bool, typer.Option("--from-settled", help="Mark every settled item whose verdict names "
                                                                      "an answer.")] = False,
    rate: Annotated[Optional[float], typer.Option("--rate", help="Share of known-answer items in each reviewer's "
                                                                 "flow, 0 to 1 (an admin's setting).")] = None,
    list_: Annotated[bool, typer.Option("--list", help="List the known-answer items (the default).")] = False,
    fmt: FormatOption = "table",
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Known-answer items: items whose answer a lead knows, mixed into each reviewer's flow to
    measure them.  Their verdicts count for the reviewer's reliability and never change the key.

    --add Q --answer X marks one (a lead), --from-settled marks the settled items (a lead),
    --rate R sets the share mixed in (an admin), --list lists them."""
    from audit.errors import InputError
    from audit.review import add_gold
    from audit.review.gold import gold_from_settled, list_gold, set_gold_rate

    if sum([add is not None, from_settled, rate is not None]) > 1:
        raise InputError("one of --add, --from-settled and --rate at a time")
    if add is not None:
        if answer is None:
            raise InputError("--add needs the known answer: --answer X")
        actor = acting_account(as_, Passwords(password_stdin), db, required_for="marking known-answer items")
        g = add_gold(benchmark, add, answer, actor=actor, db=db)
        echo(f"{g.benchmark}/{g.question_id} is a known-answer item (answer {g.answer})")
        return
    if from_settled:
        actor = acting_account(as_, Passwords(password_stdin), db, required_for="marking known-answer items")
        n = gold_from_settled(benchmark, actor=actor, db=db)
        echo(f"{n} settled item(s) marked as known-answer items")
        return
    if rate is not None:
        actor = acting_account(as_, Passwords(password_stdin), db,
                               required_for="setting the rate of known-answer items")
        echo(f"known-answer items in each reviewer's flow: {set_gold_rate(rate, actor=actor, db=db):.0%}")
        return
    _emit(list_gold(benchmark, db=db), fmt, "no known-answer items yet")


@review_app.command("reliability")
def reliability_cmd(
    benchmark: BenchmarkOption = None,
    by: Annotated[Optional[str], typer.Option("--by", help="Per language or subject (where there are enough "
                                                           "known-answer items).")] = None,
    fmt: FormatOption = "table",
    db: DbOption = None,
) -> None:
    """Each reviewer's reliability: accuracy on known-answer items with its 95% Wilson interval,
    agreement with settled verdicts, the Dawid–Skene estimate from everyone's verdicts, and
    whether they are flagged (the interval's upper end below the campaign's threshold)."""
    from audit.review import reviewer_reliability
    from audit.review.reliability import reliability_by

    if by is not None:
        _emit(reliability_by(benchmark, by, db=db), fmt, "no verdicts yet")
        return
    _emit(reviewer_reliability(benchmark, db=db), fmt, "no verdicts yet")


@review_app.command("settlement")
def settlement_cmd(
    rule: Annotated[Optional[str], typer.Option(
        "--rule", help="count (the required number of agreeing verdicts) "
                       "| weighted (the reliability-weighted posterior).")] = None,
    threshold: Annotated[Optional[float], typer.Option("--threshold", help="Weighted: posterior that settles "
                                                                           "agreeing verdicts.")] = None,
    lone_threshold: Annotated[Optional[float], typer.Option(
        "--lone-threshold", help="Weighted: posterior that settles one verdict alone.")] = None,
    allow_lone: Annotated[Optional[bool], typer.Option("--allow-lone/--no-allow-lone", help="Weighted: may one "
                          "careful reviewer's verdict that the evidence supports settle alone.")] = None,
    careful: Annotated[Optional[float], typer.Option("--careful", help="Weighted: estimated accuracy from which a "
                                                                       "reviewer counts as careful.")] = None,
    flag_below: Annotated[Optional[float], typer.Option("--flag-below", help="Flag a reviewer when the upper end of "
                          "their 95% interval on known-answer items is below this.")] = None,
    second_review_flagged: Annotated[Optional[bool], typer.Option(
        "--second-review-flagged/--no-second-review-flagged",
        help="A flagged reviewer's new verdicts need another reviewer (count rule).")] = None,
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Show (or set, an admin's act) how the campaign weighs its reviewers: the settlement rule,
    its thresholds, and when a reviewer is flagged."""
    from audit.review.trust import trust_settings

    changes = {"rule": rule, "threshold": threshold, "lone_threshold": lone_threshold, "allow_lone": allow_lone,
               "careful": careful, "flag_below": flag_below, "second_review_flagged": second_review_flagged}
    setting = any(v is not None for v in changes.values())
    actor = acting_account(as_, Passwords(password_stdin), db,
                           required_for="changing how the campaign weighs its reviewers") if setting else None
    s = trust_settings(actor=actor, db=db, **changes)
    for k, v in s.__dict__.items():
        echo(f"{k}: {v}")


@review_app.command("report-error")
def report_error_cmd(
    question: Annotated[str, typer.Option("--question", "-q", help="The item's id.")],
    text: Annotated[str, typer.Option("--text", "-t", help="What is wrong with it.")],
    benchmark: BenchmarkOption = None,
    answer: Annotated[Optional[str], typer.Option("--answer", "-a",
                                                  help="The answer you suggest (an option label).")] = None,
    name: Annotated[Optional[str], typer.Option("--name", help="The name to credit you under (optional).")] = None,
    contact: Annotated[Optional[str], typer.Option("--contact", help="How a lead may reach you (optional; only "
                                                                     "leads see it).")] = None,
    db: DbOption = None,
) -> None:
    """Report an error in an item, as a reader outside the team (no account needed).  A report
    is never a verdict: a lead reads it, and an accepted report is credited in the next version."""
    from audit.review import report_error

    r = report_error(benchmark, question, text, answer=answer, name=name, contact=contact, channel="cli", db=db)
    echo(f"thank you: report {r.report_id} received; a lead reviewer will read it")


@review_app.command("reports")
def reports_cmd(
    benchmark: BenchmarkOption = None,
    accept: Annotated[Optional[str], typer.Option("--accept", help="Accept this report (its id).")] = None,
    dismiss: Annotated[Optional[str], typer.Option("--dismiss", help="Dismiss this report (its id).")] = None,
    status: Annotated[Optional[str], typer.Option("--status", help="Only reports that are open | accepted | "
                                                                   "dismissed.")] = None,
    fmt: FormatOption = "table",
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Readers' error reports, for a lead: list them, or --accept ID / --dismiss ID (with --as LEAD
    once the database has accounts).  An accepted report's author is credited, under the name they
    gave, in the next version's CHANGELOG and DATASHEET."""
    from audit.review.reports import reports_command

    actor = acting_account(as_, Passwords(password_stdin), db, required_for="reading or triaging error reports")
    out = reports_command(benchmark, accept=accept, dismiss=dismiss, status=status, actor=actor, db=db)
    if isinstance(out, str):
        echo(f"report {accept or dismiss} {out}")
        return
    _emit(out, fmt, "no error reports")


def import_reports_cmd(
    path: Annotated[Path, typer.Argument(readable=False, help="CSV or JSON(L): question_id, text, and optionally "
                                                              "answer, name, contact.")],
    benchmark: BenchmarkOption = None,
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Import readers' error reports from a file (e.g. exported issue threads; all or nothing, errors
    name file:line).  A lead's act: --as NAME once the database has accounts."""
    from audit.review.reports import import_reports

    actor = acting_account(as_, Passwords(password_stdin), db, required_for="importing error reports")
    n = import_reports(path, benchmark=benchmark, actor=actor, db=db)
    echo(f"{n} error report(s) imported from {path}")
