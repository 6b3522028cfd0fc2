"""``audit analyze`` (agreement tiers) and ``audit report``."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from audit.cli._common import BenchmarkOption, DbOption, echo


def register(app: typer.Typer, import_app: typer.Typer) -> None:
    app.command("analyze")(analyze_cmd)
    app.command("report")(report_cmd)


def analyze_cmd(
    benchmark: Annotated[
        Optional[str], typer.Option("--benchmark", "-b", help="Benchmark name (default: every benchmark with predictions).")
    ] = None,
    models: Annotated[
        Optional[str], typer.Option("--models", help="Comma-separated model names (default: every model with predictions).")
    ] = None,
    t1: Annotated[Optional[int], typer.Option("--t1", help="Models that must agree for Tier 1 (default: N, all).")] = None,
    t2: Annotated[Optional[int], typer.Option("--t2", help="Models that must agree for Tier 2 (default: N - 1).")] = None,
    incomplete: Annotated[
        str,
        typer.Option(
            "--incomplete",
            help="'tier': tier by the valid predictions; 'separate': questions with any invalid or missing "
            "prediction go to their own bucket.",
        ),
    ] = "tier",
    db: DbOption = None,
) -> None:
    """Assign every question to a cross-model agreement tier and print the counts.

    Tier 1: all models agree on the same non-key answer (>= t1); Tier 2: >= t2 agree;
    Tier 3: >= 2 models of >= 2 families agree; Tier 4: >= 2 models of one family;
    Tier 5: non-key answers but no two agree; Tier 0: key consensus.
    """
    from audit.analyze.tiers import TIER_NAMES, analyze

    summary = analyze(benchmark, db=db, models=models, t1=t1, t2=t2, incomplete=incomplete, progress=sys.stderr.isatty())
    for run in summary.runs:
        echo(
            f"{run.benchmark}: audit run {run.run_id} — {run.n_questions} questions, {run.n_models} models, "
            f"t1={run.t1}, t2={run.t2}, incomplete={run.incomplete}"
        )
        for bucket, n in run.counts.items():
            if bucket == "incomplete":
                if run.incomplete == "separate":
                    echo(f"  incomplete  {n:>7}  any invalid or missing prediction")
                continue
            tier = int(bucket[4:])
            echo(f"  Tier {tier}  {n:>9}  {TIER_NAMES[tier]}")
        if run.n_lint:
            echo(f"  lint: {run.n_lint} finding(s); see 'audit report --benchmark {run.benchmark}'")
    for name in summary.skipped:
        echo(f"{name}: skipped (no predictions)")


def report_cmd(
    benchmark: BenchmarkOption = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="table | json | csv | markdown")] = "table",
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write to this file instead of stdout.")] = None,
    db: DbOption = None,
) -> None:
    """Report of the latest audit run: tiers, per-model metrics with Wilson 95% CIs,
    filtering scenarios, pairwise tests (z-test, McNemar exact) and lint."""
    import audit.export  # noqa: F401  (later stages add their report sections on import)
    import audit.review  # noqa: F401
    from audit.analyze.report import FORMATS, report, write_report
    from audit.errors import InputError

    if fmt not in FORMATS:
        raise InputError(f"unknown format '{fmt}' (choose one of {', '.join(FORMATS)})")
    rep = report(benchmark, db=db)
    text = write_report(rep, fmt, output)
    if text is None:
        echo(f"report written to {output}")
    else:
        sys.stdout.write(text)
