"""``audit ls …``: Label Studio sync commands (thin layer over ``audit.sync``,
imported by each command so that ``audit --help`` does not load the stage)."""
from __future__ import annotations

from dataclasses import asdict, is_dataclass
from typing import Annotated, List, Optional

import typer

from audit.cli._common import AsOption, BenchmarkOption, DbOption, Passwords, PasswordStdinOption, acting_account, echo
from audit.options import label_at

UrlOption = Annotated[Optional[str], typer.Option("--url", help="Label Studio URL (default: $LABEL_STUDIO_URL).")]
KeyOption = Annotated[
    Optional[str],
    typer.Option(
        "--api-key",
        help="API token (default: $LABEL_STUDIO_API_KEY; prefer the variable: flags end up in shell history).",
    ),
]
ProjectOption = Annotated[Optional[int], typer.Option("--project", help="Project id (default: the last connected).")]
TierOption = Annotated[
    Optional[List[int]], typer.Option("--tier", "-t", help="Tier to push (repeatable; default 1 and 2).")
]
AllTiersOption = Annotated[bool, typer.Option("--all-tiers", help="Push every item of the benchmark.")]
QuestionOption = Annotated[
    Optional[List[str]], typer.Option("--question", "-q", help="Push these question ids (repeatable).")
]
BatchOption = Annotated[int, typer.Option("--batch-size", min=1, help="Tasks per import request.")]
SubjectOption = Annotated[Optional[List[str]], typer.Option("--subject", help="Queue filter: subject (repeatable).")]
StatusOption = Annotated[Optional[List[str]], typer.Option(
    "--status", help="Queue filter: unreviewed / needs_second_review / disputed / done (repeatable).")]
SuspectOption = Annotated[Optional[bool], typer.Option(
    "--structure-suspect/--no-structure-suspect", help="Queue filter: structure-suspect items only (or none).")]
MismatchOption = Annotated[Optional[bool], typer.Option(
    "--parallel-mismatch/--no-parallel-mismatch", help="Queue filter: parallel-key mismatch only (or none).")]
LanguageOption = Annotated[str, typer.Option(
    "--language", help="Language of the tasks' plain-words evidence: en, zh-Hans or bo (the workbench's).")]


def _tiers(tier, all_tiers):
    if all_tiers:
        return None
    return tuple(tier) if tier else (1, 2)


def _filters(subject, status, suspect, mismatch) -> dict:
    out = {"subjects": subject or None, "status": status or None,
           "structure_suspect": suspect, "parallel_mismatch": mismatch}
    return {k: v for k, v in out.items() if v is not None}


def _print(obj) -> None:
    for key, value in (asdict(obj) if is_dataclass(obj) and not isinstance(obj, type) else obj).items():
        if isinstance(value, dict):
            echo(f"{key}:")
            for k, v in value.items():
                echo(f"  {k}: {v}")
        elif key != "projects":
            echo(f"{key}: {value}")


def register(app: typer.Typer, import_app: typer.Typer) -> None:
    ls = typer.Typer(help="Two-way sync with a Label Studio project.", no_args_is_help=True)
    app.add_typer(ls, name="ls")

    @ls.command("connect")
    def connect_cmd(
        url: UrlOption = None,
        api_key: KeyOption = None,
        project: ProjectOption = None,
        title: Annotated[Optional[str], typer.Option("--title", help="Project title to find or create.")] = None,
        benchmark: BenchmarkOption = None,
        as_: AsOption = None,
        password_stdin: PasswordStdinOption = False,
        db: DbOption = None,
    ) -> None:
        """Check the connection and create (or find) the project with a labeling config generated from the items.

        Once the database has accounts this is for admins: name yours with --as NAME."""
        from audit.sync import ls_connect

        actor = acting_account(as_, Passwords(password_stdin), db)
        s = ls_connect(url, api_key, title=title, project_id=project, benchmark=benchmark, db=db, actor=actor)
        echo(f"{'created' if s.created else 'connected'} project {s.project_id} '{s.title}' at {s.url} "
             f"(as {s.user}; options up to {label_at(s.n_options)})")

    @ls.command("push")
    def push_cmd(benchmark: BenchmarkOption = None, tier: TierOption = None, all_tiers: AllTiersOption = False,
                 question: QuestionOption = None, subject: SubjectOption = None, status: StatusOption = None,
                 structure_suspect: SuspectOption = None, parallel_mismatch: MismatchOption = None,
                 no_verdicts: Annotated[bool, typer.Option("--no-verdicts", help="Push tasks only.")] = False,
                 batch_size: BatchOption = 500, url: UrlOption = None, api_key: KeyOption = None,
                 project: ProjectOption = None, language: LanguageOption = "en", db: DbOption = None) -> None:
        """Push items as tasks (chosen like the review queue: Tier 1–2 of the benchmark by default) and workbench
        verdicts as annotations."""
        from audit.sync import ls_push

        s = ls_push(benchmark, tiers=_tiers(tier, all_tiers), question_ids=question, verdicts=not no_verdicts,
                    url=url, api_key=api_key, project_id=project, batch_size=batch_size, db=db, language=language,
                    **_filters(subject, status, structure_suspect, parallel_mismatch))
        _print(s)

    @ls.command("pull")
    def pull_cmd(url: UrlOption = None, api_key: KeyOption = None, project: ProjectOption = None,
                 db: DbOption = None) -> None:
        """Append new Label Studio annotations as reviews (a second pull appends nothing)."""
        from audit.sync import ls_pull

        _print(ls_pull(url=url, api_key=api_key, project_id=project, db=db))

    @ls.command("sync")
    def sync_cmd(benchmark: BenchmarkOption = None, tier: TierOption = None, all_tiers: AllTiersOption = False,
                 question: QuestionOption = None, subject: SubjectOption = None, status: StatusOption = None,
                 structure_suspect: SuspectOption = None, parallel_mismatch: MismatchOption = None,
                 batch_size: BatchOption = 500, url: UrlOption = None,
                 api_key: KeyOption = None, project: ProjectOption = None, language: LanguageOption = "en",
                 db: DbOption = None) -> None:
        """Pull, then push tasks and verdicts (without --benchmark: refresh the tasks already pushed)."""
        from audit.sync import ls_sync

        s = ls_sync(benchmark, tiers=_tiers(tier, all_tiers), question_ids=question, url=url, api_key=api_key,
                    project_id=project, batch_size=batch_size, db=db, language=language,
                    **_filters(subject, status, structure_suspect, parallel_mismatch))
        echo("pull:")
        _print({k: v for k, v in s.pull.__dict__.items()})
        echo("push:")
        _print({k: v for k, v in s.push.__dict__.items()})

    @ls.command("status")
    def status_cmd(
        url: UrlOption = None,
        project: ProjectOption = None,
        remote: Annotated[bool, typer.Option("--remote", help="Also ask the server for its counts.")] = False,
        api_key: KeyOption = None,
        db: DbOption = None,
    ) -> None:
        """Show the connected project and the sync state (the token is never shown)."""
        from audit.sync import ls_status

        st = ls_status(url, project_id=project, remote=remote, api_key=api_key, db=db)
        if st.url is None:
            echo("no Label Studio project connected; run 'audit ls connect'")
            return
        _print(st)

    @ls.command("rejected")
    def rejected_cmd(project: ProjectOption = None, db: DbOption = None) -> None:
        """List the Label Studio annotations a pull refused, with the reason (fix them in Label
        Studio and pull again)."""
        from audit.sync import ls_rejected

        df = ls_rejected(project_id=project, db=db)
        if df.empty:
            echo("no rejected annotations")
            return
        echo(df.to_string(index=False))

    @ls.command("webhook")
    def webhook_cmd(
        port: Annotated[int, typer.Option("--port", help="Loopback port to listen on.")] = 8765,
        secret: Annotated[
            Optional[str],
            typer.Option(
                "--secret", help="Require this X-Audit-Webhook-Secret header (default: $AUDIT_WEBHOOK_SECRET)."
            ),
        ] = None,
        url: UrlOption = None,
        api_key: KeyOption = None,
        project: ProjectOption = None,
        db: DbOption = None,
    ) -> None:
        """Listen on 127.0.0.1:PORT for Label Studio webhooks and pull on annotation events."""
        from audit.sync import serve_webhook

        echo(f"listening on http://127.0.0.1:{port}/ (Ctrl-C to stop)")
        serve_webhook(port=port, url=url, api_key=api_key, project_id=project, db=db, secret=secret)
