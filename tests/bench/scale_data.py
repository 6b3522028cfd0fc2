"""Deterministic synthetic benchmark at scale (default 100,000 questions ×
100 models = 10 M predictions), written as Parquet and loaded through the
real importers.  Reused by ``bench_scale.py`` and the workbench speed
benchmark::

    from tests.bench.scale_data import build_scale_db      # or with tests/bench on sys.path
    info = build_scale_db("/tmp/scale.duckdb", 100_000, 100)

The data: 4-option questions in 20 subjects; models in 10 families with
accuracies between 0.35 and 0.92; each question has a "popular distractor"
that wrong models favour (so models agree on wrong answers the way real
ones do) and 3% of keys are deliberately wrong (set to the distractor, so
strong models agree against the key).  2% of predictions are invalid.
``raw_share`` (10%) of the predictions come as raw response text (answer
empty) that the importer must extract (CAA): English and Tibetan templates,
markdown, "Answer: (C)", reasoning traces, and unanswerable replies.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

FAMILIES = ("anthropic", "google", "openai", "meta", "qwen", "mistralai", "deepseek", "writer", "cohere", "xai")
PREFIX = {"anthropic": "claude", "google": "gemini", "openai": "gpt", "meta": "llama", "qwen": "qwen",
          "mistralai": "mistral", "deepseek": "deepseek", "writer": "palmyra", "cohere": "command", "xai": "grok"}
LETTERS = np.array(list("ABCD"))

# Raw-response templates; {L} is the chosen letter.  The last ones are
# unanswerable (no letter) and extract to an invalid prediction.
TEMPLATES = (
    "The answer is ({L}).",
    "**{L}**",
    "Answer: ({L})",
    "<think>Option A looks tempting, but B and D do not fit.</think>\nFinal answer: {L}",
    "ལན་ནི་ {L} རེད།",
    "I think the correct choice is {L} because of the definition.",
    "{L}. This option matches the question.",
    "Reasoning about it for a while... Reasoned for 12 seconds\n{L}",
)
UNANSWERABLE = ("I cannot answer this question.", "ལན་མི་ཤེས།")


def model_names(n_models: int) -> list[str]:
    """``<prefix>-<i>`` so the name infers its family; 10 families round-robin."""
    out = []
    for i in range(n_models):
        fam = FAMILIES[i % len(FAMILIES)]
        out.append(f"{PREFIX[fam]}-synthetic-{i:03d}")
    return out


def generate_parquet(outdir, n_questions: int = 100_000, n_models: int = 100, *, seed: int = 0,
                     raw_share: float = 0.10, invalid_share: float = 0.02, wrong_key_share: float = 0.03,
                     chunk_questions: int | None = None) -> dict:
    """Write ``questions.parquet`` and ``predictions.parquet`` (long layout)
    to ``outdir``; return their paths and the generation time.  Same
    arguments → identical files.

    ``chunk_questions``: draw and write the predictions of that many
    questions at a time (each chunk from its own generator seeded with
    ``(seed, chunk index)``), so memory stays bounded at 100 M predictions;
    the question-level draws (keys, planted wrong keys, abilities) are the
    same as without it, the per-prediction draws differ.  None: one chunk
    from the main generator (the files earlier benchmarks measured)."""
    t0 = time.perf_counter()
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    qn = np.arange(n_questions)
    truth = rng.integers(0, 4, n_questions)
    distractor = (truth + rng.integers(1, 4, n_questions)) % 4
    wrong_key = rng.random(n_questions) < wrong_key_share
    key = np.where(wrong_key, distractor, truth)
    easiness = rng.normal(0.0, 1.2, n_questions)
    qids = np.char.add("q", np.char.zfill(qn.astype(str), 6))
    subjects = np.array([f"subject_{i:02d}" for i in range(20)])[qn % 20]
    questions = pa.table(
        {
            "id": pa.array(qids),
            "subject": pa.array(subjects),
            "question": pa.array(np.char.add("Synthetic question number ", qn.astype(str))),
            "A": pa.array(np.char.add("first option of ", qids)),
            "B": pa.array(np.char.add("second option of ", qids)),
            "C": pa.array(np.char.add("third option of ", qids)),
            "D": pa.array(np.char.add("fourth option of ", qids)),
            "answer": pa.array(LETTERS[key]),
        }
    )
    q_path = out / "questions.parquet"
    pq.write_table(questions, q_path)

    names = model_names(n_models)
    ability = np.linspace(-0.6, 2.4, n_models)[rng.permutation(n_models)]
    p_path = out / "predictions.parquet"
    tables = _prediction_tables(rng, seed, n_questions, n_models, chunk_questions, qids, names, ability, truth,
                                distractor, easiness, raw_share, invalid_share)
    n_raw = 0
    writer = None
    try:
        for table, raw_count in tables:
            n_raw += raw_count
            if writer is None:
                writer = pq.ParquetWriter(p_path, table.schema)
            writer.write_table(table, row_group_size=1_000_000)
    finally:
        if writer is not None:
            writer.close()
    n = n_questions * n_models
    return {
        "questions_path": q_path,
        "predictions_path": p_path,
        "n_questions": n_questions,
        "n_models": n_models,
        "n_predictions": n,
        "n_raw": n_raw,
        "n_wrong_keys": int(wrong_key.sum()),
        "generate_s": time.perf_counter() - t0,
    }


def _prediction_tables(rng, seed, n_questions, n_models, chunk_questions, qids, names, ability, truth, distractor,
                       easiness, raw_share, invalid_share):
    """Yield (Arrow table, raw rows) per chunk of questions, question-major."""
    if not chunk_questions or chunk_questions >= n_questions:
        yield _prediction_chunk(rng, 0, n_questions, n_models, qids, names, ability, truth, distractor, easiness,
                                raw_share, invalid_share)
        return
    for i, lo in enumerate(range(0, n_questions, chunk_questions)):
        hi = min(n_questions, lo + chunk_questions)
        yield _prediction_chunk(np.random.default_rng([seed, i]), lo, hi, n_models, qids, names, ability, truth,
                                distractor, easiness, raw_share, invalid_share)


def _prediction_chunk(rng, lo, hi, n_models, qids, names, ability, truth, distractor, easiness, raw_share,
                      invalid_share):
    # predictions, question-major: row r = question lo + r // M, model r % M
    nq = hi - lo
    n = nq * n_models
    q_idx = np.repeat(np.arange(lo, hi), n_models)
    m_idx = np.tile(np.arange(n_models, dtype=np.int32), nq)
    logit = ability[m_idx] + easiness[q_idx]
    p_correct = 1.0 / (1.0 + np.exp(-logit))
    u = rng.random(n)
    correct = u < p_correct
    # wrong answers: the distractor 60% of the time, else another wrong letter
    other = (truth[q_idx] + rng.integers(1, 4, n)) % 4
    wrong_pick = np.where(rng.random(n) < 0.6, distractor[q_idx], other)
    letter = np.where(correct, truth[q_idx], wrong_pick).astype(np.int32)
    invalid = rng.random(n) < invalid_share
    raw = rng.random(n) < raw_share
    # given letters: a dictionary column (A-D), null for raw rows and invalid given rows
    given_idx = np.where(raw | invalid, -1, letter)
    given = pa.DictionaryArray.from_arrays(
        pa.array(given_idx, pa.int32(), mask=given_idx < 0), pa.array(list("ABCD"))
    )
    # raw responses: template t for letter L, or an unanswerable text when invalid
    n_t = len(TEMPLATES)
    texts = [t.replace("{L}", L) for t in TEMPLATES for L in "ABCD"] + list(UNANSWERABLE)
    tmpl = rng.integers(0, n_t, n).astype(np.int32) * 4 + letter
    tmpl = np.where(invalid, n_t * 4 + rng.integers(0, len(UNANSWERABLE), n).astype(np.int32), tmpl)
    resp_idx = np.where(raw, tmpl, -1).astype(np.int32)
    response = pa.DictionaryArray.from_arrays(pa.array(resp_idx, pa.int32(), mask=resp_idx < 0), pa.array(texts))
    table = pa.table(
        {
            "question_id": pa.DictionaryArray.from_arrays(pa.array((q_idx - lo).astype(np.int32)),
                                                          pa.array(qids[lo:hi])),
            "model": pa.DictionaryArray.from_arrays(pa.array(m_idx), pa.array(names)),
            "answer": given,
            "response": response,
        }
    )
    return table, int(raw.sum())


def build_scale_db(path, n_questions: int = 100_000, n_models: int = 100, *, seed: int = 0,
                   workdir=None, benchmark: str = "scale", analyze: bool = False) -> dict:
    """Generate the data (Parquet in ``workdir``, default next to ``path``)
    and import it into the DuckDB file ``path`` with the real importers
    (``import_questions``, ``import_predictions`` long layout, CAA
    extraction); optionally run ``analyze``.  Returns the figures
    (paths, counts, seconds per step)."""
    from audit.ingest import import_predictions, import_questions

    path = Path(path)
    workdir = Path(workdir) if workdir is not None else path.parent / f"{path.stem}_parquet"
    info = generate_parquet(workdir, n_questions, n_models, seed=seed)
    t = time.perf_counter()
    import_questions(info["questions_path"], benchmark=benchmark, db=path)
    info["import_questions_s"] = time.perf_counter() - t
    t = time.perf_counter()
    s = import_predictions(info["predictions_path"], benchmark=benchmark, layout="long", db=path, progress=False)
    info["import_predictions_s"] = time.perf_counter() - t
    info["n_valid"] = s.valid
    info["n_extracted"] = s.extracted
    if analyze:
        from audit.analyze import analyze_benchmark as run_analyze

        t = time.perf_counter()
        info["summary"] = run_analyze(benchmark, db=path)
        info["analyze_s"] = time.perf_counter() - t
    info["db"] = path
    return info
