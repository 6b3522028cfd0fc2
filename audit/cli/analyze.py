"""``audit analyze`` (agreement tiers) and ``audit report`` (with ``report
scores`` and ``report compare``)."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, List, Optional

import typer

from audit.cli._common import (
    AsOption,
    BenchmarkOption,
    DbOption,
    Passwords,
    PasswordStdinOption,
    acting_account,
    echo,
    terminal_text,
)


def register(app: typer.Typer, import_app: typer.Typer) -> None:
    app.command("analyze")(analyze_cmd)
    # `audit report --benchmark B` is the full report of one benchmark (the group's own options);
    # `audit report scores` and `audit report compare` are its subcommands.
    report_app = typer.Typer(invoke_without_command=True, no_args_is_help=False)
    report_app.callback()(report_cmd)
    report_app.command("scores")(scores_cmd)
    report_app.command("compare")(compare_cmd)
    app.add_typer(report_app, name="report")
    app.command("rescore")(rescore_cmd)


def analyze_cmd(
    benchmark: Annotated[
        Optional[str],
        typer.Option("--benchmark", "-b", help="Benchmark name (default: every benchmark with predictions)."),
    ] = None,
    models: Annotated[
        Optional[str],
        typer.Option("--models", help="Comma-separated model names (default: every model with predictions)."),
    ] = None,
    preset: Annotated[
        Optional[str],
        typer.Option(
            "--preset",
            help="Threshold rule: 'shares' (default; scales with the number of models N), "
            "'tlue4' (the methodology's four-model rule: N, N - 1, 2) or 'tlue8' (its 8-model run: N - 1, N - 2, 2).",
        ),
    ] = None,
    t1: Annotated[
        Optional[int], typer.Option("--t1", help="Models that must agree for Tier 1 (overrides the preset).")
    ] = None,
    t2: Annotated[
        Optional[int], typer.Option("--t2", help="Models that must agree for Tier 2 (overrides the preset).")
    ] = None,
    t3: Annotated[
        Optional[int], typer.Option("--t3", help="Models that must agree for Tier 3/4 (overrides the preset).")
    ] = None,
    s1: Annotated[
        Optional[float], typer.Option("--s1", help="Share of the models for Tier 1 (preset shares; default 0.9).")
    ] = None,
    s2: Annotated[
        Optional[float], typer.Option("--s2", help="Share of the models for Tier 2 (preset shares; default 0.75).")
    ] = None,
    s3: Annotated[
        Optional[float], typer.Option("--s3", help="Share of the models for Tier 3/4 (preset shares; default 0.2).")
    ] = None,
    no_score: Annotated[bool, typer.Option("--no-score", help="Skip the key-error score (tiers only).")] = False,
    incomplete: Annotated[
        str,
        typer.Option(
            "--incomplete",
            help="'tier': tier by the valid predictions; 'separate': questions with any invalid or missing "
            "prediction go to their own bucket.",
        ),
    ] = "tier",
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Assign every question to a cross-model agreement tier, fit the key-error
    score, and print the counts.

    Tier 1: >= t1 models agree on the same non-key answer; Tier 2: >= t2 agree;
    Tier 3: >= t3 models of >= 2 families agree; Tier 4: >= t3 of one family;
    Tier 5: non-key answers but fewer than t3 agree; Tier 0: key consensus.
    Default thresholds (preset 'shares'): t1 = 90%, t2 = 80%, t3 = 20% of
    the models, never fewer than 2; Tiers 1-4 also need the models' shared answer to be more
    likely than the key given the models' accuracy (else Tier 5).  The key-error score is the probability that
    the key is wrong (see the documentation: how-to/key-error-score.md, "How to
    read a tier and a score").
    """
    from audit.analyze import analyze_benchmark
    from audit.analyze.tiers import OTHER_BUCKETS, TIER_NAMES, TIER_NAMES_TLUE4

    actor = acting_account(as_, Passwords(password_stdin), db, required_for="analysing (it rewrites the tiers)")
    summary = analyze_benchmark(
        benchmark,
        db=db,
        models=models,
        preset=preset,
        t1=t1,
        t2=t2,
        t3=t3,
        s1=s1,
        s2=s2,
        s3=s3,
        incomplete=incomplete,
        score=not no_score,
        progress=sys.stderr.isatty(),
        actor=actor,
    )
    for run in summary.runs:
        echo(
            f"{run.benchmark}: audit run {run.run_id} — {run.n_questions} questions, {run.n_models} models, "
            f"t1={run.t1}, t2={run.t2}, incomplete={run.incomplete}, t3={run.t3}, preset {run.preset}"
        )
        names = TIER_NAMES if run.preset == "shares" else TIER_NAMES_TLUE4
        for bucket, n in run.counts.items():
            if bucket == "incomplete":
                if run.incomplete == "separate":
                    echo(f"  incomplete  {n:>7}  any invalid or missing prediction")
                continue
            if bucket in OTHER_BUCKETS:
                if n:
                    echo(f"  {bucket.replace('_', ' ')}  {n:>7}  {OTHER_BUCKETS[bucket]}")
                continue
            tier = int(bucket[4:])
            echo(f"  Tier {tier}  {n:>9}  {names[tier]}")
        if run.n_lint:
            echo(f"  lint: {run.n_lint} finding(s); see 'audit report --benchmark {run.benchmark}'")
    for name in summary.skipped:
        echo(f"{name}: skipped (no predictions)")


def report_cmd(
    ctx: typer.Context,
    benchmark: BenchmarkOption = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="table | json | csv | markdown")] = "table",
    output: Annotated[
        Optional[Path], typer.Option("--output", "-o", help="Write to this file instead of stdout.")
    ] = None,
    db: DbOption = None,
) -> None:
    """Report of the latest audit run: tiers, per-model metrics with Wilson 95% CIs,
    filtering scenarios, pairwise tests (z-test, McNemar exact) and lint.

    Subcommands: 'scores' (every model under every answer-key version) and
    'compare' (several benchmarks side by side)."""
    if ctx.invoked_subcommand is not None:
        return
    from audit.report import benchmark_report

    text = benchmark_report(benchmark, fmt=fmt, output=output, db=db)
    if text is None:
        echo(f"report written to {output}")
    else:
        sys.stdout.write(text if fmt in ("json", "csv") else terminal_text(text))


def scores_cmd(
    benchmark: BenchmarkOption = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="table | json | csv | markdown")] = "table",
    output: Annotated[
        Optional[Path], typer.Option("--output", "-o", help="Write to this file instead of stdout.")
    ] = None,
    db: DbOption = None,
) -> None:
    """Each model's accuracy (Wilson 95% CI), conditional accuracy and its change under every
    exported answer-key version and the working keys.

    The change from one version to the next is a key correction (the models' answers are the
    same); figures of a superseded version are marked as such.  A model imported after a version
    was exported is scored on every version."""
    from audit.report.scores import scores_report

    text = scores_report(benchmark, fmt=fmt, output=output, db=db)
    if text is None:
        echo(f"scores written to {output}")
    else:
        sys.stdout.write(text)


def compare_cmd(
    benchmarks: Annotated[List[str], typer.Argument(help="Two or more benchmark names.", show_default=False)],
    fmt: Annotated[str, typer.Option("--format", "-f", help="table | json | md | html")] = "table",
    output: Annotated[
        Optional[Path], typer.Option("--output", "-o", help="Write to this file instead of stdout.")
    ] = None,
    db: DbOption = None,
) -> None:
    """Several benchmarks side by side: items, models, expected wrong keys with intervals,
    settled wrong keys and what wrong keys cost each model present in all of them.

    For parallel benchmarks (the same items in other languages) it also lists the items whose
    keys or model agreement differ across languages: where a translation may have damaged the item."""
    from audit.report.compare import compare_report

    text = compare_report(benchmarks, fmt=fmt, output=output, db=db)
    if text is None:
        echo(f"comparison written to {output}")
    else:
        sys.stdout.write(text)


def rescore_cmd(
    benchmark: BenchmarkOption = None,
    calibration: Annotated[
        bool,
        typer.Option(
            "--calibration",
            help="Also print the reliability table per score band, "
            "the Brier score and the expected vs found count of wrong keys.",
        ),
    ] = False,
    reference: Annotated[
        Optional[str],
        typer.Option(
            "--reference",
            help="Compare with this reference label set (e.g. mmlu_redux_error_type) instead of the settled verdicts.",
        ),
    ] = None,
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Refit the key-error score of the latest audit run with the settled expert verdicts
    (the models' reliabilities and the subjects' wrong-key rates learn from them)."""
    from audit.review.rescoring import rescore_benchmark

    actor = acting_account(as_, Passwords(password_stdin), db, required_for="refitting the key-error score")
    for line in rescore_benchmark(benchmark, calibration=calibration or reference is not None, reference=reference,
                                  db=db, actor=actor).lines():
        echo(line)
