"""``audit export create|diff|list|policies|publish``: corrected answer-key versions."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from audit.cli._common import AsOption, DbOption, Passwords, PasswordStdinOption, acting_account, echo
from audit.cli._common import emit_frame as _emit

ExportsDirOption = Annotated[
    Optional[Path],
    typer.Option("--exports-dir", help="Exports folder (default: $AUDIT_EXPORTS or exports/ in the checkout).",
                 show_default=False),
]
FormatOption = Annotated[str, typer.Option("--format", "-f", help="table | csv")]
OutputOption = Annotated[Optional[Path], typer.Option("--output", "-o", help="Write to this file instead of stdout.")]


def register(app: typer.Typer, import_app: typer.Typer) -> None:
    export_app = typer.Typer(help="Corrected answer-key versions: create, diff, list, publish.", no_args_is_help=True)
    export_app.command("create")(create_cmd)
    export_app.command("diff")(diff_cmd)
    export_app.command("list")(list_cmd)
    export_app.command("policies")(policies_cmd)
    export_app.command("publish")(publish_cmd)
    app.add_typer(export_app, name="export")


def create_cmd(
    benchmark: Annotated[str, typer.Option("--benchmark", "-b", help="Benchmark name.")],
    version: Annotated[str, typer.Option("--version", "-v", help="New version, e.g. 1.1 (1.0 = the original keys).")],
    policy: Annotated[
        str, typer.Option("--policy", "-p", help="Export policy (see 'audit export policies').")
    ] = "default",
    exports_dir: ExportsDirOption = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would change; write nothing.")] = False,
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Derive a new, immutable answer-key version from the settled expert verdicts.

    Creating a version is for lead reviewers: once the database has accounts, name yours with
    --as NAME (its password is asked, or read from stdin with --password-stdin).

    Writes exports/BENCHMARK/VERSION/: the benchmark in its native format, Parquet,
    CHANGELOG.csv, excluded*.txt, manifest.json and DATASHEET.md, and hf/ (the Hugging
    Face datasets layout: dataset card README.md, croissant.json, CITATION.cff and
    data/<split>.parquet).  Version 1.0 (the original keys) is created first when it does
    not exist yet.
    """
    from audit.export import create_version, preview_version

    if dry_run:
        df = preview_version(benchmark, policy=policy, db=db, version=version)
        c = df.attrs["counts"]
        echo(f"{benchmark} {version} under policy '{policy}' would have {c['corrected']} corrected, "
             f"{c['excluded']} excluded, {c['unchanged']} unchanged, {c['reviewed']} reviewed of {c['items']} "
             "items (nothing written)")
        _emit(df, "table", None)
        return
    actor = acting_account(as_, Passwords(password_stdin), db)
    echo(str(create_version(benchmark, version, policy=policy, db=db, exports_dir=exports_dir,
                            progress=sys.stderr.isatty(), actor=actor)))


def diff_cmd(
    benchmark: Annotated[str, typer.Argument(help="Benchmark name.")],
    a: Annotated[str, typer.Argument(help="Older version, e.g. 1.0.")],
    b: Annotated[str, typer.Argument(help="Newer version, e.g. 1.1.")],
    fmt: FormatOption = "table",
    output: OutputOption = None,
    db: DbOption = None,
) -> None:
    """Items whose key or inclusion changed between two versions."""
    from audit.export import diff_versions

    _emit(diff_versions(benchmark, a, b, db=db), fmt, output)


def list_cmd(
    benchmark: Annotated[str, typer.Argument(help="Benchmark name.")],
    verify: Annotated[bool, typer.Option("--verify", help="Check every file against its manifest sha256 and the "
                                                          "database's record; no extra file, folder or link.")] = False,
    fmt: FormatOption = "table",
    output: OutputOption = None,
    db: DbOption = None,
) -> None:
    """A benchmark's versions with parent, policy and counts."""
    from audit.export import list_versions

    df = list_versions(benchmark, db=db, verify=verify)
    if verify:
        problems = df.attrs.get("problems", {})
        df["problem"] = [problems.get(v, "") for v in df["version"]]
    if fmt == "table":
        df = df.drop(columns=["data_sha256"]).assign(created_at=df["created_at"].dt.strftime("%Y-%m-%d %H:%M:%S"))
    _emit(df, fmt, output)


def publish_cmd(
    benchmark: Annotated[str, typer.Option("--benchmark", "-b", help="Benchmark name.")],
    version: Annotated[str, typer.Option("--version", "-v", help="The exported version to publish, e.g. 1.1.")],
    repo: Annotated[str, typer.Option("--repo", help="Hugging Face dataset repository, ORG/NAME (created when "
                                                     "missing).")],
    private: Annotated[bool, typer.Option("--private", help="Create the repository as private.")] = False,
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Push a version's hf/ folder to a Hugging Face dataset repository in one commit and tag
    it vVERSION.

    The token is read from the environment variable HF_TOKEN only (never an option, never
    stored).  A version already tagged in the repository is refused: a version is published
    once.  HF_ENDPOINT points the push at another Hub.  Publishing is for lead reviewers, as
    creating a version is (--as NAME once the database has accounts)."""
    from audit.export.publish import publish_version

    actor = acting_account(as_, Passwords(password_stdin), db)
    echo(str(publish_version(benchmark, version, repo, db=db, private=private, actor=actor)))


def policies_cmd() -> None:
    """The named export policies."""
    from audit.export import list_policies

    for p in list_policies().itertuples():
        echo(f"{p.name}: {p.description}")
