"""``audit import …``: questions, predictions, HELM, MMLU-Redux, parallel links."""
from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from audit.cli._common import AsOption, DbOption, Passwords, PasswordStdinOption, acting_account, echo


class Layout(str, Enum):
    long = "long"
    wide = "wide"
    seed = "seed"


class Method(str, Enum):
    final = "final"
    caa = "caa"
    da = "da"
    tlue_caa = "tlue-caa"
    tlue_da = "tlue-da"


def register(app: typer.Typer, import_app: typer.Typer) -> None:
    import_app.command("tlue")(tlue)
    import_app.command("questions")(questions)
    import_app.command("predictions")(predictions)
    import_app.command("helm")(helm)
    import_app.command("mmlu-redux")(mmlu_redux)
    import_app.command("parallel")(parallel)
    import_app.command("lm-eval")(lm_eval)
    import_app.command("inspect")(inspect_logs)
    import_app.command("auto")(auto)
    import_app.command("outputs")(outputs)


def tlue(
    path: Annotated[
        Path,
        typer.Argument(
            readable=False, help="Folder of TLUE SUBJECT.jsonl files (or one file): loc, polished_ti_content, answer."
        ),
    ],
    benchmark: Annotated[str, typer.Option("--benchmark", "-b", help="Benchmark name.")] = "tlue",
    accept_suspect: Annotated[
        bool,
        typer.Option(
            "--accept-suspect",
            help="Import even when most items cannot be split into options (they are flagged structure_suspect).",
        ),
    ] = False,
    replace: ReplaceOption = False,
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Import TLUE (Ti-MMLU) items: recover the options embedded in the Tibetan text and mark
    items whose options cannot be recovered with confidence as structure_suspect."""
    from audit.ingest import import_tlue

    actor = acting_account(as_, Passwords(password_stdin), db, required_for="importing questions")
    s = import_tlue(path, benchmark=benchmark, db=db, accept_suspect=accept_suspect, replace=replace, actor=actor)
    echo(str(s))
    if s.repaired:
        echo(
            f"{s.repaired} item{'s' if s.repaired != 1 else ''} had false option markers "
            "(e.g. 'ATM' split into '\\nA. TM') folded back into the text"
        )
    for qid, reason in s.suspect_items[:20]:
        echo(f"  structure_suspect {qid}: {reason}")
    if len(s.suspect_items) > 20:
        echo(f"  … and {len(s.suspect_items) - 20} more (see the questions' structure_reason)")
    if s.key_not_in_options:
        echo(f"{s.key_not_in_options} item{'s' if s.key_not_in_options != 1 else ''} flagged key_not_in_options")


MapOption = Annotated[Optional[list[str]], typer.Option(
    "--map", help="SOURCE=TARGET: read field SOURCE as column TARGET (repeatable; dotted paths reach into "
                  "nested objects, e.g. metadata.reference=explanation; SOURCE= drops a field).")]
MapFileOption = Annotated[Optional[Path], typer.Option(
    "--map-file", help="A mapping file: a JSON object {\"SOURCE\": \"TARGET\"} or SOURCE=TARGET lines.")]
ReplaceOption = Annotated[bool, typer.Option(
    "--replace", help="Replace questions already stored under the same id with different content (without it "
                      "such an import is refused and nothing is written); the replaced items are listed.")]
KeyBaseOption = Annotated[Optional[int], typer.Option(
    "--key-base", help="Answers given as option numbers count from 0 or from 1 (default: inferred when the "
                       "data leaves no doubt, else the import asks for this flag).")]
IdOption = Annotated[Optional[str], typer.Option(
    "--id", help="Build each id from a template of field names, plus {file} (the file's stem) and {row} "
                 "(the record's row, from 0): e.g. '{file}/{row}' or '{subject}-{id}'.  Default: the 'id' "
                 "field, else the row number; in a folder whose ids collide, '<file>/<id>'.")]
SetOption = Annotated[Optional[list[str]], typer.Option(
    "--set", help="FIELD=VALUE: a field with one value for every record (e.g. --set language=kk); repeatable.")]


def parse_set(specs: list[str] | None) -> dict[str, str]:
    """``--set FIELD=VALUE`` pairs → dict (a malformed pair is one line)."""
    from audit.errors import InputError

    out: dict[str, str] = {}
    for spec in specs or []:
        k, sep, v = spec.partition("=")
        if not sep or not k.strip():
            raise InputError(f"--set expects FIELD=VALUE (e.g. language=kk), got '{spec}'")
        if k.strip() in out:
            raise InputError(f"--set names '{k.strip()}' twice")
        out[k.strip()] = v.strip()
    return out


def questions(
    file: Annotated[
        Path,
        typer.Argument(
            readable=False, help="CSV, JSONL, JSON array or Parquet: id, question, answer, options A–J or 'options'."
        ),
    ],
    benchmark: Annotated[str, typer.Option("--benchmark", "-b", help="Benchmark to import into (created if new).")],
    map_: MapOption = None,
    map_file: MapFileOption = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run", help="Parse and show the first items as they would be stored, with their flags; write nothing."
        ),
    ] = False,
    replace: ReplaceOption = False,
    key_base: KeyBaseOption = None,
    id_: IdOption = None,
    set_: SetOption = None,
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Import a question file (or a folder or archive of them).  Columns: id, question, answer (letter,
    Tibetan letter, option text, 0-based index, or a set such as 'A B D' for a multi-answer item), options
    as columns A…J or one 'options' list; optional context (a passage), subject, language, script,
    explanation.  Other
    field names are read through --map.  A key that is not an option is imported and flagged."""
    from audit.ingest import import_questions
    from audit.ingest.mapping import parse_map

    actor = None if dry_run else acting_account(as_, Passwords(password_stdin), db,
                                                required_for="importing questions")
    s = import_questions(file, benchmark=benchmark, db=db, mapping=parse_map(map_, map_file), dry_run=dry_run,
                         replace=replace, key_base=key_base, id_template=id_, constants=parse_set(set_), actor=actor)
    if dry_run:
        echo(s.preview_text())
    echo(str(s))


def predictions(
    file: Annotated[str, typer.Argument(help="CSV, JSONL, JSON array or Parquet (seed: the pipeline's JSONL). "
                                             "Optional column options_shown: the options in the order this "
                                             "model saw them ('CADB', [2,0,3,1] or the texts).  With "
                                             "--in-place: a Parquet file, folder or glob, local, s3://… or hf://….")],
    benchmark: Annotated[str, typer.Option("--benchmark", "-b", help="Benchmark whose questions these answer.")],
    layout: Annotated[Layout, typer.Option(help="long: question_id, model, response/answer[, run]; "
                                                "wide: question_id + one column per model; "
                                                "seed: MODEL_combined_results.jsonl.")] = Layout.long,
    method: Annotated[Method, typer.Option(help="Extraction of raw responses: final (the answer a careful "
                                                "grader reads; default), caa (Concern All Answer), da (Direct "
                                                "Answer), tlue-caa / tlue-da (TLUE's own evaluator).")] = Method.final,
    model: Annotated[Optional[str], typer.Option(help="Model name when the file has no model column "
                                                      "(seed: default from the file name).")] = None,
    run: Annotated[Optional[str], typer.Option(help="Run name for rows without one (default 'default').")] = None,
    map_: MapOption = None,
    map_file: MapFileOption = None,
    skip_unknown: Annotated[bool, typer.Option(
        "--skip-unknown", help="Skip (and report) rows for question ids the benchmark does not have, instead "
                               "of refusing the file.")] = False,
    in_place: Annotated[bool, typer.Option(
        "--in-place", help="Register the Parquet file, folder or glob (local, s3://…, hf://…) as a source read "
                           "where it is, instead of copying its rows (given letters; credentials from the "
                           "environment).")] = False,
    refresh: Annotated[bool, typer.Option("--refresh", help="With --in-place: re-register a source whose files "
                                                            "changed (same mapping, model and run).")] = False,
    forget: Annotated[bool, typer.Option("--forget", help="With --in-place: drop the registration (the files "
                                                          "are untouched).")] = False,
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Import model predictions.  Rows for unknown question ids refuse the whole file;
    re-importing a (model, run) replaces its earlier predictions.  A letter written
    against the model's own option order (options_shown) is mapped back to the item's
    labels; the letter as written is kept.  --in-place registers Parquet files read
    where they are (analyze, the queue and the reports read them; a changed or
    unreachable source is named in one line)."""
    from audit.ingest import import_predictions
    from audit.ingest.mapping import parse_map

    actor = acting_account(as_, Passwords(password_stdin), db, required_for="importing predictions")
    if in_place or refresh or forget:
        from audit.ingest import register_predictions_in_place

        if layout is not Layout.long or skip_unknown:
            raise typer.BadParameter("--in-place reads the long layout and refuses unknown ids "
                                     "(no --layout wide/seed, no --skip-unknown)")
        echo(str(register_predictions_in_place(file, benchmark=benchmark, model=model, run=run, db=db,
                                               mapping=parse_map(map_, map_file), refresh=refresh, forget=forget,
                                               actor=actor)))
        return
    s = import_predictions(Path(file), benchmark=benchmark, layout=layout.value, method=method.value, model=model,
                           run=run, db=db, mapping=parse_map(map_, map_file), skip_unknown=skip_unknown, actor=actor)
    echo(str(s))


def helm(
    path: Annotated[Path, typer.Argument(readable=False, help="A HELM scenario_state JSON file or a folder of them.")],
    benchmark: Annotated[Optional[str], typer.Option("--benchmark", "-b",
                                                     help="Benchmark name (default: the scenario name).")] = None,
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Import HELM raw output: questions, and each model's answer mapped through output_mapping."""
    from audit.ingest import import_helm

    actor = acting_account(as_, Passwords(password_stdin), db, required_for="importing HELM output")
    echo(str(import_helm(path, benchmark=benchmark, db=db, actor=actor)))


def mmlu_redux(
    path: Annotated[Path, typer.Argument(readable=False, help="Folder of MMLU-Redux SUBJECT.csv files (or one file).")],
    benchmark: Annotated[str, typer.Option("--benchmark", "-b", help="Benchmark name.")] = "mmlu-redux",
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Import MMLU-Redux: questions, one prediction per model column, and the human error_type labels."""
    from audit.ingest import import_mmlu_redux

    actor = acting_account(as_, Passwords(password_stdin), db, required_for="importing MMLU-Redux")
    echo(str(import_mmlu_redux(path, benchmark=benchmark, db=db, actor=actor)))


def parallel(
    path: Annotated[
        Path, typer.Argument(readable=False, help="Folder of CMMLU-style SUBJECT.csv files (or one file).")
    ],
    source: Annotated[str, typer.Option(help="Name of the counterpart version.")] = "cmmlu",
    benchmark: Annotated[str, typer.Option("--benchmark", "-b", help="Benchmark whose questions are linked.")] = "tlue",
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Link questions to their counterparts (subject + row index = question id) and flag key mismatches."""
    from audit.ingest import import_parallel

    actor = acting_account(as_, Passwords(password_stdin), db, required_for="linking parallel questions")
    echo(str(import_parallel(path, benchmark=benchmark, source=source, db=db, actor=actor)))


def lm_eval(
    path: Annotated[Path, typer.Argument(help="An lm-eval samples_TASK_DATE.jsonl file (lm_eval --log_samples) "
                                              "or a folder of them.")],
    benchmark: Annotated[Optional[str], typer.Option("--benchmark", "-b",
                                                     help="Benchmark name (default: the task name).")] = None,
    model: Annotated[Optional[str], typer.Option(help="Model name (default: from results_*.json).")] = None,
    run: Annotated[Optional[str], typer.Option(help="Run name (default 'default').")] = None,
    method: Annotated[Method, typer.Option(help="Extraction for generated answers: caa or da.")] = Method.caa,
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Import lm-evaluation-harness sample logs.  Log-likelihood multiple choice: the
    option with the highest log-likelihood; generated answers: the letter extracted from
    the text.  Questions come from the logged documents when the benchmark has none."""
    from audit.ingest import import_lm_eval

    actor = acting_account(as_, Passwords(password_stdin), db, required_for="importing lm-eval logs")
    echo(str(import_lm_eval(path, benchmark=benchmark, model=model, run=run, method=method.value, db=db,
                            actor=actor)))


def inspect_logs(
    path: Annotated[Path, typer.Argument(help="An inspect-ai log (.eval or .json) or a folder of them.")],
    benchmark: Annotated[
        Optional[str], typer.Option("--benchmark", "-b", help="Benchmark name (default: the task name).")
    ] = None,
    model: Annotated[Optional[str], typer.Option(help="Model name (default: the log's model).")] = None,
    run: Annotated[Optional[str], typer.Option(help="Run name (default 'default').")] = None,
    method: Annotated[
        Method, typer.Option(help="Extraction when no scorer recorded a letter: caa or da.")
    ] = Method.caa,
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Import inspect-ai eval logs, read with inspect-ai's own log reader (install the
    'inspect' extra).  Questions come from the samples when the benchmark has none."""
    from audit.ingest import import_inspect

    actor = acting_account(as_, Passwords(password_stdin), db, required_for="importing inspect logs")
    echo(str(import_inspect(path, benchmark=benchmark, model=model, run=run, method=method.value, db=db,
                            actor=actor)))


def outputs(
    path: Annotated[Path, typer.Argument(help="Model outputs that carry their question (TUMLU: a folder "
                                              "<setting>/[<org>/]<model>/<subject>.json, or one file): records "
                                              "with question, choices (as shown), output, answer.")],
    benchmark: Annotated[str, typer.Option("--benchmark", "-b", help="Benchmark whose questions these answer.")],
    model: Annotated[Optional[str], typer.Option(help="Model name (default: the file's folder path under "
                                                      "PATH, e.g. org/model).")] = None,
    run: Annotated[Optional[str], typer.Option(help="Run name (default: the name of the folder PATH, e.g. "
                                                    "the setting).")] = None,
    method: Annotated[Method, typer.Option(help="Extraction of the raw outputs.")] = Method.final,
    skip_unmatched: Annotated[bool, typer.Option(
        "--skip-unmatched", help="Skip (and report) records whose question is not in the benchmark, matches "
                                 "several items, or whose item repeats an option text.")] = False,
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Import model outputs linked to the items by their question text (NFC, white space
    normalised; the option set tells items with the same stem apart), with each model's
    order of the options mapped back and the key as shown checked against the stored key."""
    from audit.ingest import import_outputs

    actor = acting_account(as_, Passwords(password_stdin), db, required_for="importing model outputs")
    echo(str(import_outputs(path, benchmark=benchmark, db=db, model=model, run=run, method=method.value,
                            skip_unmatched=skip_unmatched, actor=actor)))


def auto(
    path: Annotated[Path, typer.Argument(help="Any file or folder of a supported format.")],
    benchmark: Annotated[Optional[str], typer.Option("--benchmark", "-b",
                                                     help="Benchmark name (required for question and "
                                                          "prediction files).")] = None,
    map_: MapOption = None,
    map_file: MapFileOption = None,
    model: Annotated[Optional[str], typer.Option(help="Model name, where the format needs one.")] = None,
    accept_suspect: Annotated[bool, typer.Option("--accept-suspect", help="TLUE: import even when most items "
                                                 "cannot be split into options.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Run every check of the real import and say what "
                                                           "it would do; write nothing.")] = False,
    replace: ReplaceOption = False,
    key_base: KeyBaseOption = None,
    id_: IdOption = None,
    set_: SetOption = None,
    skip_unmatched: Annotated[bool, typer.Option(
        "--skip-unmatched", help="Model outputs linked by their question text: skip (and report) records whose "
                                 "question is not in the benchmark or matches several items.")] = False,
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Recognise the format (question files, folders and archives in published layouts — CMMLU,
    C-Eval, option_1…N columns, choices lists, ARC, passages, CSV without a header row, records
    inside a JSON object — TLUE, prediction layouts, model outputs that carry their questions,
    MMLU-Pro result files, HELM, MMLU-Redux, lm-eval, inspect), say what was found and the
    choices made, then import it."""
    import audit.judge  # noqa: F401  (registers the judge-verdict importers of `import auto`)
    from audit.auto import detect_and_import
    from audit.ingest.mapping import parse_map

    actor = None if dry_run else acting_account(as_, Passwords(password_stdin), db, required_for="importing")
    r = detect_and_import(path, benchmark=benchmark, mapping=parse_map(map_, map_file), model=model,
                          accept_suspect=accept_suspect, dry_run=dry_run, db=db, replace=replace, key_base=key_base,
                          id_template=id_, constants=parse_set(set_), skip_unmatched=skip_unmatched, actor=actor)
    echo(str(r.detection))
    if r.dry_run:
        echo(f"dry run: every check of the import passed and nothing was written; it would report: {r.summary}")
    else:
        echo(str(r.summary))
