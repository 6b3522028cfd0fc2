"""``audit import …``: questions, predictions, HELM, MMLU-Redux, parallel links."""
from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from audit.cli._common import DbOption, echo


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


def tlue(
    path: Annotated[Path, typer.Argument(help="Folder of TLUE SUBJECT.jsonl files (or one file): "
                                              "loc, polished_ti_content, answer.")],
    benchmark: Annotated[str, typer.Option("--benchmark", "-b", help="Benchmark name.")] = "tlue",
    db: DbOption = None,
) -> None:
    """Import TLUE (Ti-MMLU) items: recover the options embedded in the Tibetan text and mark
    items whose options cannot be recovered with confidence as structure_suspect."""
    from audit.ingest.tlue import import_tlue

    s = import_tlue(path, benchmark=benchmark, db=db)
    echo(str(s))
    if s.repaired:
        echo(f"{s.repaired} item{'s' if s.repaired != 1 else ''} had false option markers (e.g. 'ATM' split into '\\nA. TM') folded back into the text")
    for qid, reason in s.suspect_items[:20]:
        echo(f"  structure_suspect {qid}: {reason}")
    if len(s.suspect_items) > 20:
        echo(f"  … and {len(s.suspect_items) - 20} more (see the questions' structure_reason)")
    if s.key_not_in_options:
        echo(f"{s.key_not_in_options} item{'s' if s.key_not_in_options != 1 else ''} flagged key_not_in_options")


def questions(
    file: Annotated[Path, typer.Argument(help="CSV, JSONL or Parquet: id, question, answer, options A–F or 'options'.")],
    benchmark: Annotated[str, typer.Option("--benchmark", "-b", help="Benchmark to import into (created if new).")],
    db: DbOption = None,
) -> None:
    """Import a question file.  Columns: id, question, answer (letter, Tibetan letter or
    0-based index), options as columns A…F or one 'options' list; optional subject,
    language, script, explanation.  A key that is not an option is imported and flagged."""
    from audit.ingest.questions import import_questions

    echo(str(import_questions(file, benchmark=benchmark, db=db)))


def predictions(
    file: Annotated[Path, typer.Argument(help="CSV, JSONL or Parquet (seed: the pipeline's JSONL).")],
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
    db: DbOption = None,
) -> None:
    """Import model predictions.  Rows for unknown question ids refuse the whole file;
    re-importing a (model, run) replaces its earlier predictions."""
    from audit.ingest.predictions import import_predictions

    s = import_predictions(file, benchmark=benchmark, layout=layout.value, method=method.value, model=model,
                           run=run, db=db)
    echo(str(s))


def helm(
    path: Annotated[Path, typer.Argument(help="A HELM scenario_state JSON file or a folder of them.")],
    benchmark: Annotated[Optional[str], typer.Option("--benchmark", "-b",
                                                     help="Benchmark name (default: the scenario name).")] = None,
    db: DbOption = None,
) -> None:
    """Import HELM raw output: questions, and each model's answer mapped through output_mapping."""
    from audit.ingest.helm import import_helm

    echo(str(import_helm(path, benchmark=benchmark, db=db)))


def mmlu_redux(
    path: Annotated[Path, typer.Argument(help="Folder of MMLU-Redux SUBJECT.csv files (or one file).")],
    benchmark: Annotated[str, typer.Option("--benchmark", "-b", help="Benchmark name.")] = "mmlu-redux",
    db: DbOption = None,
) -> None:
    """Import MMLU-Redux: questions, one prediction per model column, and the human error_type labels."""
    from audit.ingest.mmlu_redux import import_mmlu_redux

    echo(str(import_mmlu_redux(path, benchmark=benchmark, db=db)))


def parallel(
    path: Annotated[Path, typer.Argument(help="Folder of CMMLU-style SUBJECT.csv files (or one file).")],
    source: Annotated[str, typer.Option(help="Name of the counterpart version.")] = "cmmlu",
    benchmark: Annotated[str, typer.Option("--benchmark", "-b", help="Benchmark whose questions are linked.")] = "tlue",
    db: DbOption = None,
) -> None:
    """Link questions to their counterparts (subject + row index = question id) and flag key mismatches."""
    from audit.ingest.parallel import import_parallel

    echo(str(import_parallel(path, benchmark=benchmark, source=source, db=db)))
