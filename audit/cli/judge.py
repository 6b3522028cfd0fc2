"""``audit judge …`` (LLM judges: run, list, bias, agreement, panel,
scenarios, prompt) and ``audit import judge``."""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, List, Optional

import typer

from audit.cli._common import (
    AsOption,
    BackoffBaseOption,
    BenchmarkOption,
    ConcurrencyOption,
    DbOption,
    InputCostOption,
    LimitOption,
    MaxCostOption,
    MaxRetriesOption,
    OutputCostOption,
    Passwords,
    PasswordStdinOption,
    ProgressOption,
    QuestionIdOption,
    SubjectOption,
    TierOption,
    TimeoutOption,
    acting_account,
    echo,
    json_out,
    table_text,
    warn,
)

if TYPE_CHECKING:
    import pandas as pd

judge_app = typer.Typer(help="LLM judges: run them through litellm, import their verdicts, measure their bias.",
                        no_args_is_help=True)

JudgeOption = Annotated[str, typer.Option("--judge", "-j", help="Judge name (the litellm model string of a run, "
                                                               "or the --judge of an import).")]
VersionOption = Annotated[Optional[str], typer.Option("--prompt-version", help="Prompt version (default: the "
                                                                               "judge's most recent).")]
FormatOption = Annotated[str, typer.Option("--format", "-f", help="table | json")]


def register(app: typer.Typer, import_app: typer.Typer) -> None:
    app.add_typer(judge_app, name="judge")
    import_app.command("judge")(import_judge_cmd)



def _table(df: "pd.DataFrame", pct: tuple[str, ...] = (), floats: int = 3) -> str:
    import pandas as pd  # imported when used: `audit --help` starts without pandas

    if df.empty:
        return "(none)"
    out = df.copy()
    for c in out.columns:
        if c in pct:
            out[c] = out[c].map(
                lambda v: "" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{100 * v:.1f}%"
            )
        elif pd.api.types.is_float_dtype(out[c]):
            out[c] = out[c].map(lambda v: "" if pd.isna(v) else ("∞" if v == math.inf else f"{v:.{floats}g}"))
    return table_text(out)   # a missing answer (no majority) reads blank


def _check_format(fmt: str) -> None:
    from audit.errors import InputError

    if fmt not in ("table", "json"):
        raise InputError(f"unknown format '{fmt}' (choose table or json)")


# ---------------------------------------------------------------- run

@judge_app.command("run")
def run_cmd(
    model: Annotated[str, typer.Option("--model", "-m", help="litellm model string, e.g. gemini/gemini-2.5-pro, "
                                                             "anthropic/claude-sonnet-4-5, openai/gpt-4o.")],
    benchmark: BenchmarkOption = None,
    judge_name: Annotated[Optional[str], typer.Option("--judge-name", help="Store verdicts under this name "
                                                                           "(default: the model string).")] = None,
    prompt: Annotated[Optional[Path], typer.Option("--prompt", help="Prompt template file (see 'audit judge prompt'); "
                                                                    "default: the methodology's.")] = None,
    tier: TierOption = None,
    subject: SubjectOption = None,
    question_id: QuestionIdOption = None,
    limit: LimitOption = None,
    concurrency: ConcurrencyOption = 8,
    max_cost: MaxCostOption = None,
    api_base: Annotated[Optional[str], typer.Option("--api-base", help="Base URL of an OpenAI-compatible server "
                                                                       "(use with model openai/NAME).")] = None,
    api_key_env: Annotated[Optional[str], typer.Option("--api-key-env", help="Read the API key from this environment "
                                                                             "variable (default: the provider's own, "
                                                                             "e.g. OPENAI_API_KEY).")] = None,
    timeout: TimeoutOption = 60.0,
    max_retries: MaxRetriesOption = 5,
    backoff_base: BackoffBaseOption = 1.0,
    temperature: Annotated[float, typer.Option("--temperature")] = 0.0,
    max_tokens: Annotated[Optional[int], typer.Option("--max-tokens")] = None,
    input_cost_per_token: InputCostOption = None,
    output_cost_per_token: OutputCostOption = None,
    retry_unparsed: Annotated[bool, typer.Option("--retry-unparsed", help="Ask again where the stored reply "
                                                                          "could not be parsed.")] = False,
    permute: Annotated[bool, typer.Option("--permute", help="The permuted-order pass: show each item's options "
                                                            "in another order (rotated by one), to measure how "
                                                            "often the verdict flips ('audit judge card').")] = False,
    progress: ProgressOption = None,
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Ask an LLM judge whether each answer key is correct (and if not, which is).

    Items already judged by this judge with this prompt are not asked again, so an
    interrupted run resumes where it stopped and a rerun costs nothing. Keys come from the
    provider's environment variables and are never stored.
    """
    from audit.judge import run_judge
    from audit.llm import RunOptions

    actor = acting_account(as_, Passwords(password_stdin), db, required_for="running a judge")
    options = RunOptions(
        question_ids=question_id, tiers=tier, subjects=subject, limit=limit, concurrency=concurrency,
        max_cost=max_cost, api_base=api_base, api_key_env=api_key_env, timeout=timeout, max_retries=max_retries,
        backoff_base=backoff_base, temperature=temperature, max_tokens=max_tokens,
        input_cost_per_token=input_cost_per_token, output_cost_per_token=output_cost_per_token, progress=progress)
    try:
        summary = run_judge(model, benchmark, db=db, judge_name=judge_name, prompt=prompt,
                            retry_unparsed=retry_unparsed, options=options, permute=permute, actor=actor)
    except KeyboardInterrupt:
        warn("interrupted: every reply received so far is saved; run the same command again to resume")
        raise typer.Exit(130)
    for line in summary.lines():
        echo(line)
    if summary.n_parse_failed:
        echo(f"see the unparseable replies with: audit judge list --benchmark {summary.benchmark} --unparsed")
    if summary.status == "aborted":
        raise typer.Exit(1)


# ---------------------------------------------------------------- import

def import_judge_cmd(
    path: Annotated[
        Path,
        typer.Argument(
            readable=False,
            help="JSONL file (or a folder of them): one object per line with 'loc' and "
            "'llm_validation' {answer_key_correct, correct_answer, "
            "answer_explanation, confidence}.",
        ),
    ],
    judge: Annotated[
        str, typer.Option("--judge", "-j", help="Name of the judge that produced the file, e.g. gemini-2.5-pro.")
    ],
    benchmark: Annotated[str, typer.Option("--benchmark", "-b", help="Benchmark the 'loc' ids belong to.")] = "tlue",
    prompt_version: Annotated[
        str, typer.Option("--prompt-version", help="Label for the (unknown) prompt.")
    ] = "imported",
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Import judge verdicts from the methodology pipeline (all-or-nothing)."""
    from audit.judge import import_judge

    actor = acting_account(as_, Passwords(password_stdin), db, required_for="importing judge verdicts")
    s = import_judge(path, judge=judge, benchmark=benchmark, prompt_version=prompt_version, db=db, actor=actor)
    for line in s.lines():
        echo(line)


# ---------------------------------------------------------------- list

@judge_app.command("list")
def list_cmd(
    benchmark: BenchmarkOption = None,
    runs: Annotated[bool, typer.Option("--runs", help="List runs with their totals instead.")] = False,
    unparsed: Annotated[bool, typer.Option("--unparsed", help="Show the replies that could not be parsed.")] = False,
    judge: Annotated[Optional[str], typer.Option("--judge", "-j", help="Only this judge (with --unparsed).")] = None,
    db: DbOption = None,
) -> None:
    """Judges with verdicts (per prompt version), their runs, or their unparseable replies."""
    from audit.judge import list_judges, list_runs, unparsed_replies

    if unparsed:
        df = unparsed_replies(benchmark, judge, db=db)
        if df.empty:
            echo("no unparseable replies")
        for r in df.itertuples():
            echo(f"{r.question_id} · {r.judge} · {r.prompt_version}: {r.parse_error}")
            echo("  raw: " + (r.raw_reply or "").replace("\n", "\n       ")[:2000])
        return
    if runs:
        df = list_runs(benchmark, db=db)
        cols = ["run_id", "benchmark", "judge", "prompt_version", "source", "status", "started_at", "n_selected",
                "n_cached", "n_requested", "n_ok", "n_parse_failed", "n_errors", "prompt_tokens", "completion_tokens",
                "cost_usd", "stop_reason"]
        echo(_table(df[cols], floats=4) if not df.empty else "no judge runs yet")
        return
    df = list_judges(benchmark, db=db)
    echo(_table(df, floats=4) if not df.empty else "no judge verdicts yet")


@judge_app.command("reliability")
def reliability_cmd(
    benchmark: BenchmarkOption = None,
    fmt: FormatOption = "table",
    db: DbOption = None,
) -> None:
    """Each judge run's reliability (sensitivity, specificity for "key wrong", estimated from the models'
    answers) and the weight its verdicts carry in the key-error score (after `audit analyze`)."""
    from audit.judge import judge_reliability

    _check_format(fmt)
    df = judge_reliability(benchmark, db=db)
    if fmt == "json":
        echo(df.to_json(orient="records", indent=2))
        return
    echo(_table(df) if not df.empty else "no judge runs in the latest key-error fit (import verdicts, then "
                                          "run 'audit analyze')")


# ---------------------------------------------------------------- bias

@judge_app.command("bias")
def bias_cmd(
    judge: JudgeOption,
    benchmark: BenchmarkOption = None,
    prompt_version: VersionOption = None,
    judge_family: Annotated[Optional[str], typer.Option("--judge-family", help="Override the judge's family "
                                                                               "(default: from its name).")] = None,
    experts: Annotated[bool, typer.Option("--experts/--no-experts", help="Add bias versus accuracy from settled "
                                                                        "expert verdicts.")] = True,
    fmt: FormatOption = "table",
    db: DbOption = None,
) -> None:
    """Does the judge side with its own model family? (bias ratio, exact tests)

    Agreement with each model on the disputed items, family-pair splits with the bias
    ratio (exact binomial test, exact CI), and — with expert verdicts — bias versus accuracy.
    """
    from audit.review.judges import judge_bias_summary

    _check_format(fmt)
    summary = judge_bias_summary(benchmark, judge, db=db, prompt_version=prompt_version, judge_family=judge_family,
                                 experts=experts)
    rep, acc = summary.bias, summary.accuracy
    if fmt == "json":
        echo(json_out(summary.as_dict(), indent=2, default=str))
        return
    for line in rep.reading:
        echo(line)
    echo("")
    echo("Agreement with each model on the disputed items:")
    echo(_table(rep.models[["model", "family", "n_disputed", "n_answered", "n_match", "rate", "rate_low",
                            "rate_high"]], pct=("rate", "rate_low", "rate_high")))
    echo("")
    echo("Family pairs (X = the judge's family where it is in the pair):")
    echo(_table(rep.pairs.drop(columns=["judge_in_pair"])))
    if acc is not None:
        echo("")
        echo("Bias versus accuracy (settled expert verdicts):")
        for line in acc.reading:
            echo("  " + line)
        if int(acc.overall.iloc[0]["n"]):
            echo(_table(acc.errors, pct=("rate", "rate_low", "rate_high")))


# ---------------------------------------------------------------- agreement / panel / scenarios

@judge_app.command("agreement")
def agreement_cmd(
    benchmark: BenchmarkOption = None,
    judge: Annotated[Optional[List[str]], typer.Option("--judge", "-j", help="Judge (NAME or NAME@VERSION; "
                                                                            "repeatable; default all).")] = None,
    on: Annotated[str, typer.Option("--on", help="answer | verdict")] = "answer",
    fmt: FormatOption = "table",
    db: DbOption = None,
) -> None:
    """Agreement between judges (Cohen's kappa per pair, Fleiss' kappa).

    Cohen's kappa with 95% CI for each pair on their common items, Fleiss' kappa for
    three or more judges on the items all of them judged.
    """
    from audit.judge import judge_agreement

    _check_format(fmt)
    ja = judge_agreement(benchmark, judges=judge or None, on=on, db=db)
    if fmt == "json":
        echo(json.dumps({"pairs": ja.pairs.to_dict("records"), "fleiss": None if ja.fleiss is None else
                         vars(ja.fleiss), "reading": ja.reading}, default=str, indent=2))
        return
    for line in ja.reading:
        echo(line)
    echo(_table(ja.pairs))


@judge_app.command("panel")
def panel_cmd(
    benchmark: BenchmarkOption = None,
    judge: Annotated[Optional[List[str]], typer.Option("--judge", "-j", help="Panel member (repeatable; "
                                                                            "default all judges).")] = None,
    save_as: Annotated[Optional[str], typer.Option("--save-as", help="Store the panel verdicts as a judge "
                                                                     "with this name.")] = None,
    show: Annotated[int, typer.Option("--show", help="Items to list (0 = counts only).")] = 20,
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Cross-family panel verdict: one vote per model family, strict majority wins."""
    from audit.judge import run_panel

    actor = acting_account(as_, Passwords(password_stdin), db,
                           required_for="storing panel verdicts") if save_as else None
    res = run_panel(benchmark, judges=judge or None, save_as=save_as, db=db, actor=actor)
    df = res.verdicts
    echo(f"{len(df)} items: " + ", ".join(f"{k} {n}" for k, n in res.counts().items()))
    if show:
        disputed = df[df["panel_verdict"] != "key_correct"].head(show)
        echo(_table(disputed))
    if res.n_saved is not None:
        echo(f"stored {res.n_saved} panel verdicts as judge '{save_as}'")


@judge_app.command("scenarios")
def scenarios_cmd(
    judge: JudgeOption,
    benchmark: BenchmarkOption = None,
    prompt_version: VersionOption = None,
    db: DbOption = None,
) -> None:
    """Scenarios without the judge-disputed items; Tier 1–2 vs judge set sizes.

    Adds "exclude judge-disputed" and "exclude Tier 1–2 ∪ judge-disputed" to the scenario
    table, and reports |Tier 1–2|, |judge|, |∩|, |∪| with shares.
    """
    from audit.judge import judge_scenarios

    js = judge_scenarios(benchmark, judge, prompt_version=prompt_version, db=db)
    for line in js.reading:
        echo(line)
    echo(_table(js.sets, pct=("share_of_tier12", "share_of_judge", "share_of_items")))
    echo("")
    cols = ["scenario", "model", "n_questions", "n_valid", "n_correct", "conditional_accuracy",
            "conditional_accuracy_low", "conditional_accuracy_high", "delta_points"]
    echo(_table(js.scenarios[[c for c in cols if c in js.scenarios.columns]],
                pct=("conditional_accuracy", "conditional_accuracy_low", "conditional_accuracy_high")))


@judge_app.command("prompt")
def prompt_cmd(
    prompt: Annotated[Optional[Path], typer.Option("--prompt", help="Check this template instead.")] = None,
) -> None:
    """Print the default prompt template (or check a custom one) and its version."""
    from audit.judge import load_prompt

    p = load_prompt(prompt)
    sys.stdout.write(p.template if p.template.endswith("\n") else p.template + "\n")
    warn(f"prompt version: {p.version}")


@judge_app.command("card")
def card_cmd(
    benchmark: BenchmarkOption = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="table | json")] = "table",
    db: DbOption = None,
) -> None:
    """A reliability card per judge and prompt version: agreement with the settled verdicts
    (Cohen's kappa, 95% interval), the prompt's language, how often the verdict flips when the
    options are shown in another order (run 'audit judge run --permute' first), a warning when
    the judge is of the family of an audited model, and the generation settings.

    The table also shows the agreement between one judge's prompt languages."""

    from audit.errors import InputError
    from audit.judge.card import CARD_COLUMNS
    from audit.review.judges import judge_card

    if fmt not in ("table", "json"):
        raise InputError(f"unknown format '{fmt}' (choose table or json)")
    result = judge_card(benchmark, db=db)
    if fmt == "json":
        rows = result.card[CARD_COLUMNS].astype(object)
        echo(json_out(rows.where(rows.notna(), None).to_dict("records"), indent=2))
        return
    echo(_table(result.card, pct=("flip_rate",)))
    if len(result.languages):
        echo("")
        echo("Agreement between prompt languages (Cohen's kappa):")
        echo(_table(result.languages))
