"""``audit predict …`` (run a model on a benchmark through litellm) and
``audit predictions …`` (re-extract stored responses, list methods)."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, List, Optional

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
    warn,
)

predict_app = typer.Typer(help="Run models on a benchmark through litellm (any provider or a local "
                               "OpenAI-compatible server).", no_args_is_help=True)
predictions_app = typer.Typer(help="Stored predictions: re-extract answers from raw responses, list methods.",
                              no_args_is_help=True)


def register(app: typer.Typer, import_app: typer.Typer) -> None:
    app.add_typer(predict_app, name="predict")
    app.add_typer(predictions_app, name="predictions")



MethodOption = Annotated[str, typer.Option("--method", help="Extraction method: final (default: the answer a "
                                                            "careful grader reads), caa, da, tlue-caa, tlue-da.")]


@predict_app.command("run")
def run_cmd(
    model: Annotated[
        str,
        typer.Option(
            "--model",
            "-m",
            help="litellm model string, e.g. openai/gpt-4o, gemini/gemini-2.5-flash, or openai/NAME with --api-base.",
        ),
    ],
    benchmark: BenchmarkOption = None,
    run: Annotated[
        Optional[str], typer.Option("--run", help="Run name the predictions are stored under (default 'default').")
    ] = None,
    name: Annotated[
        Optional[str],
        typer.Option("--name", help="Model name the predictions are stored under (default: the model string)."),
    ] = None,
    prompt: Annotated[
        Optional[Path],
        typer.Option(
            "--prompt", help="Prompt template file with ${question} and ${options} (see 'audit predict prompt')."
        ),
    ] = None,
    style: Annotated[
        str,
        typer.Option(
            "--style",
            help="direct (TLUE zero-shot format, default) or reasoning (think, then a final 'Answer: X' line).",
        ),
    ] = "direct",
    instructions: Annotated[
        Optional[str], typer.Option("--instructions", help="Language of the shipped instructions: en, bo, zh.")
    ] = None,
    method: MethodOption = "final",
    llm_extractor: Annotated[
        Optional[str],
        typer.Option(
            "--llm-extractor",
            help="Afterwards, ask this litellm model about the replies the rules leave unanswered (method 'llm').",
        ),
    ] = None,
    tier: TierOption = None,
    subject: SubjectOption = None,
    question_id: QuestionIdOption = None,
    limit: LimitOption = None,
    concurrency: ConcurrencyOption = 8,
    max_cost: MaxCostOption = None,
    api_base: Annotated[
        Optional[str],
        typer.Option("--api-base", help="Base URL of an OpenAI-compatible server (vLLM, Ollama, llama.cpp)."),
    ] = None,
    api_key_env: Annotated[
        Optional[str], typer.Option("--api-key-env", help="Read the API key from this environment variable.")
    ] = None,
    timeout: TimeoutOption = 120.0,
    max_retries: MaxRetriesOption = 5,
    backoff_base: BackoffBaseOption = 1.0,
    temperature: Annotated[float, typer.Option("--temperature", help="Sampling temperature.")] = 0.0,
    max_tokens: Annotated[Optional[int], typer.Option("--max-tokens", help="Cap on reply tokens.")] = None,
    input_cost_per_token: InputCostOption = None,
    output_cost_per_token: OutputCostOption = None,
    progress: ProgressOption = None,
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Ask a model every selected item and store its answers as predictions.

    Each reply is committed as it arrives (raw response, separate reasoning text, tokens,
    cost, latency; the answer is extracted on insert). Items already answered with this
    model, run and prompt are not asked again, so a rerun costs nothing and a killed run
    resumes. Keys come from the provider's environment variable and are never stored.
    Exits 1 when requests were sent but no reply came back.
    """
    from audit.llm import RunOptions
    from audit.predict import run_predict

    actor = acting_account(as_, Passwords(password_stdin), db, required_for="running a model")
    options = RunOptions(
        question_ids=question_id, tiers=tier, subjects=subject, limit=limit, concurrency=concurrency,
        max_cost=max_cost, api_base=api_base, api_key_env=api_key_env, timeout=timeout, max_retries=max_retries,
        backoff_base=backoff_base, temperature=temperature, max_tokens=max_tokens,
        input_cost_per_token=input_cost_per_token, output_cost_per_token=output_cost_per_token, progress=progress)
    try:
        s = run_predict(model, benchmark, db=db, name=name, run=run, prompt=prompt, style=style,
                        instructions=instructions, method=method, llm_extractor=llm_extractor, options=options,
                        actor=actor)
    except KeyboardInterrupt:
        warn("interrupted: every reply received so far is saved; run the same command again to resume")
        raise typer.Exit(130)
    for line in s.lines():
        echo(line)
    if s.status in ("aborted", "no_reply") or s.got_no_reply:   # no reply is no result, whatever stopped the run
        raise typer.Exit(1)


@predict_app.command("list")
def list_cmd(benchmark: BenchmarkOption = None, db: DbOption = None) -> None:
    """List predict runs with their status and totals (runs a killed process left
    'running' are shown as 'killed')."""
    from audit.predict import list_predict_runs

    df = list_predict_runs(benchmark, db=db)
    if df.empty:
        echo("(no predict runs)")
        return
    cols = ["run_id", "benchmark", "model", "run", "prompt_version", "method", "status", "n_selected", "n_cached",
            "n_requested", "n_ok", "n_answered", "n_errors", "cost_usd", "started_at"]
    echo(df[cols].to_string(index=False))


@predict_app.command("prompt")
def prompt_cmd(
    style: Annotated[str, typer.Option("--style", help="direct or reasoning.")] = "direct",
    instructions: Annotated[Optional[str], typer.Option("--instructions", help="en, bo or zh.")] = None,
) -> None:
    """Print a shipped prompt template and its version (copy it to start a custom --prompt)."""
    from audit.predict import load_predict_prompt

    p = load_predict_prompt(style=style, instructions=instructions)
    echo(f"# {p.name} · prompt version {p.version}")
    echo(p.template.rstrip("\n"))


@predictions_app.command("reextract")
def reextract_cmd(
    method: Annotated[str, typer.Option("--method", help="final, caa, da, tlue-caa or tlue-da.")],
    benchmark: BenchmarkOption = None,
    model: Annotated[Optional[List[str]], typer.Option("--model", help="Only this model (repeatable).")] = None,
    run: Annotated[Optional[List[str]], typer.Option("--run", help="Only this run (repeatable).")] = None,
    llm_extractor: Annotated[
        Optional[str],
        typer.Option(
            "--llm-extractor", help="litellm model asked about the responses the rules leave unanswered (method 'llm')."
        ),
    ] = None,
    concurrency: Annotated[int, typer.Option("--concurrency", "-c", help="LLM extractor requests in flight.")] = 8,
    max_cost: Annotated[
        Optional[float], typer.Option("--max-cost", help="Cost cap of the LLM extractor (USD).")
    ] = None,
    api_base: Annotated[
        Optional[str], typer.Option("--api-base", help="OpenAI-compatible server of the extractor.")
    ] = None,
    api_key_env: Annotated[
        Optional[str], typer.Option("--api-key-env", help="Environment variable with the extractor's key.")
    ] = None,
    input_cost_per_token: Annotated[
        Optional[float], typer.Option("--input-cost-per-token", help="USD per prompt token.")
    ] = None,
    output_cost_per_token: Annotated[
        Optional[float], typer.Option("--output-cost-per-token", help="USD per completion token.")
    ] = None,
    progress: Annotated[Optional[bool], typer.Option("--progress/--no-progress", help="Progress bar.")] = None,
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Re-extract the answers of stored raw responses with another method (no re-import);
    prints, per model, the responses, answers before and after, and the methods now stored."""
    from audit.predict import reextract

    actor = acting_account(as_, Passwords(password_stdin), db, required_for="re-extracting answers")
    s = reextract(benchmark, method=method, models=model or None, runs=run or None, db=db, llm_extractor=llm_extractor,
                  concurrency=concurrency, max_cost=max_cost, api_base=api_base, api_key_env=api_key_env,
                  input_cost_per_token=input_cost_per_token, output_cost_per_token=output_cost_per_token,
                  progress=progress, actor=actor)
    for line in s.lines():
        echo(line)


@predictions_app.command("methods")
def methods_cmd(benchmark: BenchmarkOption = None, db: DbOption = None) -> None:
    """Which extraction method each model's predictions were read with (counts, answered)."""
    from audit.predict import extraction_methods

    df = extraction_methods(benchmark, db=db)
    echo("(no predictions)" if df.empty else df.to_string(index=False))
