"""Cross-model agreement tiers: which answer keys several independent models
contradict in the same way.

For a model set of N models and each question:

* A model's prediction counts only when it is valid (a letter among the
  item's options).  Invalid or missing predictions never agree with anything.
* Candidates are the non-key letters chosen by at least one model, ranked by
  (number of models desc, number of distinct families desc, letter asc).
  ``top`` is the first candidate and ``c`` its number of models.
* Tier 1: c ≥ t1 (default t1 = N — every model agrees on one wrong answer).
* Tier 2: c ≥ t2 (default t2 = N − 1).
* Tier 3: c ≥ 2 and the models choosing ``top`` span ≥ 2 families.
* Tier 4: c ≥ 2, all within one family.
* Tier 5: some model chose a non-key letter, but no two agree (c = 1).
* Tier 0 ("key consensus"): no valid prediction differs from the key.
* Default preset ``shares`` only: an item of Tiers 1–4 must also be one
  whose non-key agreement is unlikely if the key were right, given how
  accurate each model is on this benchmark and subject: the key-error fit's
  ``p_reject`` (P(the models' shared answer is not the key)) ≥ 0.5, else it
  goes to Tier 5.  On hard benchmarks many models agree on a distractor by
  chance; a count rule alone then puts most items in Tiers 1–3.  The
  presets ``tlue4`` / ``tlue8`` keep the methodology's count rule exactly.
* Items with no usable prediction go to the bucket ``no_prediction`` (tier
  NULL), never Tier 0; with a single model every item goes to
  ``needs_two_models`` (tiers and key-error scores need two models).

With ``incomplete="separate"`` a question with any invalid or missing
prediction goes to its own bucket ``incomplete`` (tier NULL) instead.

The rule is set-based DuckDB SQL with no Python loop over questions.  The
predictions are read once (:func:`~audit.analyze._cells.usable_cells`): one
row per (question, usable answer) with the number of models and their
bitmask; the voters' families per answer and each model's answer counts
(constant-predictor lint) come from the bitmasks in NumPy, and the same
rows feed the key-error fit.  The ranking (models, families, letter) is
a maximum per question over the cells, in NumPy (:func:`_per_question`).  Results are written to
``audit_runs`` / ``audit_results`` / ``audit_lint`` in one transaction (with
preset ``shares``, the tiers the score demotes are updated once the scores
are written).  The DuckDB work after the one pass (the lint, the score's
items, writing the tiers) runs in a second thread on the same connection,
beside the NumPy work (the tiers' figures, the key-error fit); one thread at
a time uses the connection.
"""
from __future__ import annotations

import json
import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from audit._util.sql import unregister
from audit.accounts import require_role
from audit.analyze._cells import Cells, usable_cells
from audit.analyze.inputs import ModelSet, latest_run, model_set, questions_table
from audit.analyze.keyerror import load_judge_verdicts, read_items, sampled_answers, score_run
from audit.errors import InputError, NotFoundError
from audit.store import DbPath, connect, transaction
from audit.store.benchmarks import all_benchmarks, resolve_benchmark

TIERS = (0, 1, 2, 3, 4, 5)
BUCKETS = tuple(f"tier{t}" for t in TIERS) + ("incomplete", "multi_answer", "no_prediction", "needs_two_models")
# Buckets shown only when they hold items, and what they mean.
OTHER_BUCKETS = {
    "multi_answer": "key with several answers: not tiered",
    "no_prediction": "no usable prediction: not tiered (never key consensus)",
    "needs_two_models": "one model only: tiers and key-error scores need at least two models",
}
# Preset 'shares': a Tier 1–4 item must also be one where the models' shared
# non-key answer is more likely than the key given how accurate each model
# is on this benchmark and subject (the key-error fit's p_reject); else it
# goes to Tier 5.  On hard benchmarks chance agreement on a distractor is
# common and a count rule alone swallows most items.
REJECT_THRESHOLD = 0.5
TIER_NAMES = {
    0: "key consensus",
    1: "(nearly) all models agree on one non-key answer",
    2: "most models agree on one non-key answer",
    3: "several models of different families agree on a non-key answer",
    4: "several models of one family agree on a non-key answer",
    5: "non-key answers, but too few models agree or no more than the models' accuracy explains",
}
TIER_NAMES_TLUE4 = {
    0: "key consensus",
    1: "all models agree on one non-key answer",
    2: "all but one model agree on one non-key answer",
    3: "two or more models of different families agree on a non-key answer",
    4: "two or more models of one family agree on a non-key answer",
    5: "non-key answers, but no two models agree",
}
PRESETS = ("shares", "tlue4", "tlue8")
DEFAULT_PRESET = "shares"
# s2 = 0.75: for a wrong key that each of N independent models sees through
# with probability 0.9, the share reaching Tier 1–2 is about P(Bin(N, 0.9) ≥ t2);
# at 0.8·N it fell to 0.84 at N = 14, at 0.75·N it stays ≥ 0.91 for N = 4–50
# (tests/bench/bench_tiers_scaling.py).  The presets tlue4 / tlue8 do not read it.
DEFAULT_SHARES = (0.9, 0.75, 0.2)
MULTI_ANSWER_FLAG = "multi_answer"
CONSTANT_PREDICTOR_SHARE = 0.9
RULE_VERSION = 2


@dataclass(frozen=True)
class BenchmarkRun:
    """One audit run (one benchmark)."""

    benchmark: str
    run_id: int
    models: tuple[str, ...]
    t1: int
    t2: int
    incomplete: str
    n_questions: int
    counts: dict[str, int]  # bucket -> number of questions (all buckets, zeros included)
    n_lint: int
    t3: int = 2
    preset: str = DEFAULT_PRESET

    @property
    def n_models(self) -> int:
        return len(self.models)


@dataclass(frozen=True)
class AnalyzeSummary:
    """What :func:`analyze` wrote: one :class:`BenchmarkRun` per benchmark,
    and the benchmarks skipped because they have no predictions."""

    runs: tuple[BenchmarkRun, ...]
    skipped: tuple[str, ...] = field(default_factory=tuple)

    def counts(self) -> pd.DataFrame:
        """Columns benchmark, run_id, tier (nullable int), bucket, n."""
        rows = [
            (r.benchmark, r.run_id, (int(b[4:]) if b.startswith("tier") else None), b, n)
            for r in self.runs
            for b, n in r.counts.items()
            if (b != "incomplete" or r.incomplete == "separate") and (b not in OTHER_BUCKETS or n)
        ]
        df = pd.DataFrame(rows, columns=["benchmark", "run_id", "tier", "bucket", "n"])
        df["tier"] = df["tier"].astype("Int64")
        return df

    @property
    def run_id(self) -> int:
        """The run id when exactly one benchmark was analysed."""
        if len(self.runs) != 1:
            raise ValueError(f"{len(self.runs)} runs; use .runs")
        return self.runs[0].run_id


@dataclass(frozen=True)
class Thresholds:
    """Agreement counts of one run: Tier 1 needs ≥ t1 models on one non-key
    letter, Tier 2 ≥ t2, Tier 3/4 ≥ t3."""

    t1: int
    t2: int
    t3: int
    preset: str


def _share_count(share: float, n: int) -> int:
    # ceil with a tolerance, so 0.2 * 50 is 10, not 11
    return max(2, math.ceil(share * n - 1e-9))


def thresholds(
    n: int,
    *,
    preset: str | None = None,
    t1: int | None = None,
    t2: int | None = None,
    t3: int | None = None,
    s1: float | None = None,
    s2: float | None = None,
    s3: float | None = None,
) -> Thresholds:
    """The agreement counts for ``n`` models.

    ``preset`` ``"shares"`` (default): t_k = max(2, ⌈s_k·n⌉) with shares
    s1 = 0.9, s2 = 0.75, s3 = 0.2 (each configurable; by default t2 is at
    most n − 2 and at least ⌈⅔·n⌉, so small panels keep the two-thirds
    rule); ``"tlue4"``: the
    methodology's rule t1 = n, t2 = n − 1 (t1 − 1 when only ``t1`` is
    given), t3 = 2; ``"tlue8"``: its 8-model variant t1 = n − 1, t2 = n − 2,
    t3 = 2.  Counts given explicitly override the preset.

    >>> [(t.t1, t.t2, t.t3) for t in (thresholds(2), thresholds(14), thresholds(50))]
    [(2, 2, 2), (13, 11, 3), (45, 38, 10)]
    >>> t = thresholds(4, preset="tlue4"); (t.t1, t.t2, t.t3)
    (4, 3, 2)
    >>> t = thresholds(8, preset="tlue8"); (t.t1, t.t2, t.t3)
    (7, 6, 2)
    """
    preset = DEFAULT_PRESET if preset is None else preset
    if preset not in PRESETS:
        raise InputError(f"unknown preset '{preset}' (use one of: {', '.join(PRESETS)})")
    if preset != "shares" and any(v is not None for v in (s1, s2, s3)):
        raise InputError(f"shares (s1, s2, s3) apply to the 'shares' preset, not '{preset}'")
    for name, v in (("s1", s1), ("s2", s2), ("s3", s3)):
        if v is not None and not 0 < float(v) <= 1:
            raise InputError(f"{name} must be a share of the models in (0, 1], not {v}")
    if preset == "shares":
        d1, d2, d3 = (DEFAULT_SHARES[0] if s1 is None else s1, DEFAULT_SHARES[1] if s2 is None else s2,
                      DEFAULT_SHARES[2] if s3 is None else s3)
        t1v = _share_count(d1, n) if t1 is None else int(t1)
        if t2 is not None:
            t2v = int(t2)
        elif s2 is None:   # 75% of the models, at most all but two, never below two thirds
            t2v = min(max(_share_count(2 / 3, n), min(_share_count(d2, n), n - 2)), t1v)
        else:
            t2v = min(_share_count(d2, n), t1v)
        t3v = min(_share_count(d3, n), t2v) if t3 is None else int(t3)
    else:
        base = n if preset == "tlue4" else n - 1
        t1v = max(base, 1) if t1 is None else int(t1)
        if t2 is None:
            t2v = max(t1v - 1, 1) if (t1 is not None or preset == "tlue8") else max(n - 1, 1)
        else:
            t2v = int(t2)
        t3v = 2 if t3 is None else int(t3)
    if n < 2:   # one model: no tiers (analyze puts every item in 'needs_two_models')
        return Thresholds(max(t1v, 1), max(min(t2v, t1v), 1), max(t3v, 1), preset)
    if not 1 <= t1v <= n:
        raise InputError(f"t1 must be between 1 and the number of models ({n}), not {t1v}")
    if not 1 <= t2v <= t1v:
        raise InputError(f"t2 must be between 1 and t1 ({t1v}), not {t2v}")
    if not 1 <= t3v:
        raise InputError(f"t3 must be at least 1, not {t3v}")
    return Thresholds(t1v, t2v, t3v, preset)


# The tiers read ``_perq`` (registered by _analyze_one from the one pass over
# the predictions, :func:`usable_cells`, by :func:`_per_question`): one row
# per question with usable answers, its counts and its top non-key answer.

def _per_question(cells: Cells, nfam: np.ndarray) -> pa.Table:
    """The tiers' per-question figures from the cells (vectorised, no
    second aggregation in DuckDB): qn, n_valid, n_correct and the top
    non-key answer ``top_a`` with its models ``top_c`` and families
    ``top_f`` (NULL when every usable answer is the key).  Ranking: models
    desc, families desc, the label's first character (code point) asc,
    then the label desc — the order of DuckDB's ``max({c, f, -ascii(a), a})``
    that it replaces.  Questions without usable answers have no row."""
    qn, cnt, is_key = cells.qn, cells.cnt, cells.is_key
    uq, first = np.unique(qn, return_index=True)
    n_valid = np.add.reduceat(cnt, first) if len(qn) else np.zeros(0, np.int64)
    n_correct = np.add.reduceat(np.where(is_key, cnt, 0), first) if len(qn) else np.zeros(0, np.int64)
    enc = pc.dictionary_encode(cells.answer)
    code = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    labels = enc.dictionary.to_pylist()
    first_char = np.array([ord(x[0]) if x else 0 for x in labels], dtype=np.int64)
    by_text = np.empty(len(labels), dtype=np.int64)     # the label's rank in byte (= code point) order
    by_text[np.argsort(np.array(labels, dtype=object), kind="stable")] = np.arange(len(labels))
    # one integer per cell, larger = better: (models, families, −first char, label)
    # in mixed radix, then its maximum per question (cells come sorted by qn)
    n_lab = max(len(labels), 1)
    char_rank = np.unique(first_char, return_inverse=True)[1].reshape(-1) if len(labels) else np.zeros(0, np.int64)
    n_char = int(char_rank.max()) + 1 if len(labels) else 1
    F = int(nfam.max()) + 1 if len(nfam) else 1
    rank = ((cnt.astype(np.int64) * F + nfam) * n_char + (n_char - 1 - char_rank[code])) * n_lab + by_text[code]
    if len(qn) and float(cnt.max() + 1) * F * n_char * n_lab >= 2.0 ** 62:
        raise OverflowError("too many models or labels for the tiers' ranking key")   # never at 1,000 models
    rank = np.where(is_key, -1, rank)
    best = np.maximum.reduceat(rank, first) if len(qn) else np.zeros(0, np.int64)
    has = best >= 0
    # the cell holding each question's best rank (unique within a question)
    hit = np.nonzero(rank == np.repeat(best, np.diff(np.r_[first, len(qn)])))[0]
    top_i = np.zeros(len(uq), np.int64)
    top_i[np.searchsorted(uq, qn[hit])] = hit
    top_c = np.where(has, cnt[top_i], 0)
    top_f = np.where(has, nfam[top_i], 0)
    top_a = cells.answer.take(pa.array(top_i)) if len(uq) else pa.array([], pa.string())
    return pa.table({"qn": pa.array(uq, pa.int32()), "n_valid": pa.array(n_valid, pa.int32()),
                     "n_correct": pa.array(n_correct, pa.int32()),
                     "top_a": pc.if_else(pa.array(has), top_a, pa.scalar(None, pa.string())),
                     "top_c": pa.array(top_c, pa.int32()), "top_f": pa.array(top_f, pa.int32())})


_RESULTS_SQL = f"""
WITH tiered AS (
    SELECT q.question_id,
           coalesce(pq.n_valid, 0) AS n_valid,
           coalesce(pq.n_correct, 0) AS n_correct,
           pq.top_a AS top_answer,
           coalesce(pq.top_c, 0)::INTEGER AS c,
           coalesce(pq.top_f, 0)::INTEGER AS f
    FROM _q q LEFT JOIN _perq pq USING (qn)
),
multi AS (
    SELECT question_id FROM questions
    WHERE benchmark = $benchmark AND list_contains(flags, '{MULTI_ANSWER_FLAG}')
),
ruled AS (
    SELECT t.*, m.question_id IS NOT NULL AS is_multi,
           CASE WHEN m.question_id IS NOT NULL THEN NULL
                WHEN $n < 2 OR n_valid = 0 THEN NULL
                WHEN $separate AND n_valid < $n THEN NULL
                WHEN c >= $t1 THEN 1
                WHEN c >= $t2 THEN 2
                WHEN c >= $t3 AND f >= 2 THEN 3
                WHEN c >= $t3 THEN 4
                WHEN c >= 1 THEN 5
                ELSE 0 END AS tier
    FROM tiered t LEFT JOIN multi m USING (question_id)
)
INSERT INTO audit_results (run_id, benchmark, question_id, tier, bucket, top_answer, agreement_count,
                           agreeing_families, n_models, n_valid, n_correct)
SELECT $run_id, $benchmark, question_id, tier,
       CASE WHEN is_multi THEN 'multi_answer' WHEN $n < 2 THEN 'needs_two_models'
            WHEN n_valid = 0 THEN 'no_prediction' WHEN tier IS NULL THEN 'incomplete' ELSE 'tier' || tier END,
       top_answer, c, f, $n, n_valid, n_correct
FROM ruled
"""

# preset 'shares': a Tier 1–4 item the key-error fit does not find rejected
# goes to Tier 5 (once the scores are written; the tiers were written beside
# the fit)
_DEMOTE_SQL = """
UPDATE audit_results SET tier = 5, bucket = 'tier5'
WHERE run_id = $run_id AND tier BETWEEN 1 AND 4
  AND question_id IN (SELECT question_id FROM key_error_scores WHERE run_id = $run_id AND p_reject < $threshold)
"""

_LINT_SQL = f"""
INSERT INTO audit_lint (run_id, benchmark, kind, question_id, model, detail)
WITH key_lint AS (
    SELECT 'key_not_in_options' AS kind, question_id, NULL::VARCHAR AS model,
           CASE WHEN answer_key IS NULL THEN 'the item has no answer key'
                ELSE 'key ''' || answer_key || ''' is not one of the options '
                     || array_to_string(labels, ', ') END AS detail,
           qn AS ord
    FROM _q WHERE answer_key IS NULL OR (NOT list_contains(labels, answer_key)
          AND question_id NOT IN (SELECT question_id FROM questions
                                  WHERE benchmark = $benchmark AND list_contains(flags, '{MULTI_ANSWER_FLAG}')))
),
-- candidates first: equal texts after collapsing whitespace are also equal
-- after deleting it (the stored flag, computed where questions are written by
-- the macro of migration 041; the macro itself for a row without the flag)
dup_candidates AS (
    SELECT question_id, options FROM questions
    WHERE benchmark = $benchmark AND coalesce(options_may_repeat, options_may_repeat(options))
),
opts AS (
    SELECT q.question_id, o.opt.label AS label,
           (trim(regexp_replace(o.opt.text, '\\s+', ' ', 'g'))) AS norm
    FROM dup_candidates q, LATERAL (SELECT unnest(q.options) AS opt) o
),
dup_lint AS (
    SELECT 'duplicate_options' AS kind, d.question_id, NULL::VARCHAR AS model,
           string_agg('options ' || d.labels || ' have the same text', '; ' ORDER BY d.labels) AS detail,
           any_value(q.qn) AS ord
    FROM (SELECT question_id, array_to_string(list(label ORDER BY label), ' = ') AS labels
          FROM opts GROUP BY question_id, norm HAVING count(*) > 1) d
    JOIN _q q USING (question_id)
    GROUP BY d.question_id
),
const_lint AS (
    SELECT 'constant_predictor' AS kind, NULL::VARCHAR AS question_id, ms.model,
           'answers ''' || t.top.a || ''' on ' || t.top.c || ' of ' || $n_questions || ' items ('
             || round(100.0 * t.top.c / $n_questions, 1) || '%)' AS detail,
           0 AS ord
    FROM (SELECT model_id, max({{'c': cnt, 'l': -ascii(answer), 'a': answer}}) AS top
          FROM _mac WHERE cnt > 0 GROUP BY model_id) t
    JOIN _ms ms USING (model_id)
    WHERE $n_questions > 0 AND t.top.c >= $share * $n_questions
)
SELECT $run_id, $benchmark, kind, question_id, model, detail
FROM (SELECT * FROM key_lint UNION ALL SELECT * FROM dup_lint UNION ALL SELECT * FROM const_lint)
ORDER BY kind, ord, model
"""


def _analyze_one(
    con, benchmark: str, ms: ModelSet, thr: Thresholds, incomplete: str, score: bool = True
) -> BenchmarkRun:
    t1, t2 = thr.t1, thr.t2
    # the benchmark's questions (QUESTIONS_SQL), computed once and registered
    # as ``_q`` for every query below
    q_tbl = questions_table(con, benchmark)
    n_questions = len(q_tbl)
    config = {
        "rule": "cross-model agreement tiers",
        "rule_version": RULE_VERSION,
        "preset": thr.preset,
        "t1": t1,
        "t2": t2,
        "t3": thr.t3,
        "incomplete": incomplete,
        "n_models": ms.n,
        "models": list(ms.models),
        "families": ms.families,
        "runs": ms.runs,
        "ranking": ["models desc", "families desc", "letter asc"],
        "constant_predictor_share": CONSTANT_PREDICTOR_SHARE,
    }
    run_id = con.execute("SELECT nextval('audit_run_seq')").fetchall()[0][0]
    con.execute(
        "INSERT INTO audit_runs (run_id, benchmark, config, models) VALUES (?, ?, ?, ?)",
        [run_id, benchmark, json.dumps(config, ensure_ascii=False), list(ms.models)],
    )
    params = {
        "run_id": run_id,
        "benchmark": benchmark,
        "n": ms.n,
        "t1": t1,
        "t2": t2,
        "t3": thr.t3,
        "separate": incomplete == "separate",
    }
    scoring = score and ms.n >= 2
    # preset 'shares' demotes Tier 1–4 items the key-error fit does not find rejected
    demote = scoring and thr.preset == "shares"
    # the one pass over the predictions: usable answers per (question, answer)
    # with the models' bitmask; the tiers, the constant-predictor lint and the
    # key-error score all start from it
    tables = {"_q": q_tbl}
    con.register("_q", q_tbl)
    try:
        cells = usable_cells(con, benchmark, ms.n, q_registered=True, single_run=ms.single_run)
        answers, per_model = cells.model_answer_counts()
        mi, ai = np.nonzero(per_model)
        tables["_mac"] = pa.table({"model_id": pa.array(mi, pa.int32()), "answer": pa.array(answers[ai], pa.string()),
                                   "cnt": pa.array(per_model[mi, ai], pa.int64())})
        con.register("_mac", tables["_mac"])

        def duckdb_side() -> tuple[Any, Any]:
            # the lint, and the score's items and judge verdicts: DuckDB work
            # on the questions, run in a second thread while this one does the
            # NumPy work on the cells (one thread at a time uses the
            # connection: this one touches it again only after result())
            con.execute(_LINT_SQL, {"run_id": run_id, "benchmark": benchmark, "n_questions": n_questions,
                                    "share": CONSTANT_PREDICTOR_SHARE})
            if not scoring:
                return None, None
            items = read_items(con, benchmark, run_id, q_registered=True)
            return items, load_judge_verdicts(con, benchmark, items["question_id"])

        def write_tiers(perq: pa.Table) -> None:
            # the tiers, written in the second thread beside the key-error fit
            # (the demotion waits for the scores)
            tables["_perq"] = perq
            con.register("_perq", perq)
            con.execute(_RESULTS_SQL, params)

        with ThreadPoolExecutor(max_workers=1) as pool:
            duckdb_work = pool.submit(duckdb_side)
            # meanwhile, here: the fit's sample and the tiers' figures from the cells
            sample = sampled_answers(cells, n_questions) if scoring else None
            perq = _per_question(cells, cells.family_counts(ms.fam_ids()))
            tiers_work = pool.submit(write_tiers, perq)
            items, judges = duckdb_work.result()      # (re-raises what went wrong there, scoring or not)
            if scoring:
                score_run(con, run_id, benchmark, ms, cells=cells, q_registered=True, items=items, answers=sample,
                          judges=judges, before_write=tiers_work.result)
            tiers_work.result()
        if demote:
            con.execute(_DEMOTE_SQL, {"run_id": run_id, "threshold": REJECT_THRESHOLD})
    finally:
        unregister(con, *tables)
    counts = dict.fromkeys(BUCKETS, 0)
    counts.update(
        dict(
            con.execute(
                "SELECT bucket, count(*) FROM audit_results WHERE run_id = ? GROUP BY bucket", [run_id]
            ).fetchall()
        )
    )
    n_lint = con.execute("SELECT count(*) FROM audit_lint WHERE run_id = ?", [run_id]).fetchall()[0][0]
    return BenchmarkRun(
        benchmark, run_id, ms.models, t1, t2, incomplete, n_questions, counts, n_lint, thr.t3, thr.preset
    )


def analyze_benchmark(
    benchmark: str | None = None,
    *,
    db: DbPath = None,
    models=None,
    t1: int | None = None,
    t2: int | None = None,
    t3: int | None = None,
    preset: str | None = None,
    s1: float | None = None,
    s2: float | None = None,
    s3: float | None = None,
    incomplete: str = "tier",
    score: bool = True,
    progress: bool = False,
    actor=None,
) -> AnalyzeSummary:
    """Assign every question of a benchmark (``None``: of every benchmark
    with predictions) to an agreement tier and record the run.

    ``models``: names (list or comma-separated string); default every model
    with predictions for the benchmark.  ``t1`` / ``t2``: agreement counts
    for Tier 1 / Tier 2 (defaults N and N − 1; the methodology's 8-model run
    used N − 1 and N − 2); when only ``t1`` is given, ``t2`` defaults to
    t1 − 1.  ``incomplete``: ``"tier"`` (tier by the valid predictions) or
    ``"separate"`` (questions with any invalid/missing prediction go to the
    ``incomplete`` bucket).  Also records structural lint: key not in the
    options, duplicate option texts, and constant predictors (a model giving
    the same letter on ≥ 90% of the benchmark's items).

    Writes ``audit_runs``, ``audit_results`` and ``audit_lint`` in one
    transaction: on any error nothing is written.  Once the database has
    accounts this is a lead's or admin's act (``actor``): the tiers decide
    what the review queue shows.

    >>> import tempfile, os, pandas as pd
    >>> from audit.store import connect
    >>> db = os.path.join(tempfile.mkdtemp(), "t.duckdb")
    >>> with connect(db) as con:
    ...     _ = con.execute("INSERT INTO benchmarks VALUES ('b', 'demo', NULL, now())")
    ...     _ = con.execute("INSERT INTO questions (benchmark, question_id, seq, stem, options, answer_key) "
    ...         "SELECT 'b', 'q' || i, i, 'stem', [{'label': 'A', 'text': 'x'}, {'label': 'B', 'text': 'y'}], 'A' "
    ...         "FROM range(2) t(i)")
    ...     _ = con.execute("INSERT INTO models VALUES ('m1', 'f1', NULL, 'set'), ('m2', 'f2', NULL, 'set')")
    ...     _ = con.execute("INSERT INTO predictions VALUES ('b','q0','m1','default',NULL,'B','given',true), "
    ...         "('b','q0','m2','default',NULL,'B','given',true), ('b','q1','m1','default',NULL,'A','given',true), "
    ...         "('b','q1','m2','default',NULL,'B','given',true)")
    >>> s = analyze_benchmark("b", db=db, preset="tlue4")
    >>> {k: v for k, v in s.runs[0].counts.items() if v}
    {'tier1': 1, 'tier2': 1}
    >>> s = analyze_benchmark("b", db=db, score=False)   # default shares: one dissenting model is no consensus
    >>> {k: v for k, v in s.runs[0].counts.items() if v}
    {'tier1': 1, 'tier5': 1}
    """
    if incomplete not in ("tier", "separate"):
        raise InputError(f"incomplete must be 'tier' or 'separate', not '{incomplete}'")
    with connect(db) as con:
        require_role(con, actor, "lead", "analysing (it rewrites the tiers)")
        con.execute("SET enable_progress_bar = false")  # tqdm below reports progress
        if benchmark is None:
            names = all_benchmarks(con)
            if not names:
                raise NotFoundError("the database holds no benchmark yet; import one first")
        else:
            names = [resolve_benchmark(con, benchmark)]
        plans, skipped = [], []
        for name in names:
            has_preds = con.execute("SELECT 1 FROM all_predictions WHERE benchmark = ? LIMIT 1", [name]).fetchall()
            if benchmark is None and not has_preds and models is None:
                skipped.append(name)
                continue
            ms = model_set(con, name, models)
            plans.append((name, ms, thresholds(ms.n, preset=preset, t1=t1, t2=t2, t3=t3, s1=s1, s2=s2, s3=s3)))
        if not plans:
            raise NotFoundError(f"no benchmark has predictions ({', '.join(skipped)}); import predictions first")
        runs = []
        bar: Any = plans
        if progress:     # tqdm (and the multiprocessing it imports) only when asked for
            from tqdm import tqdm

            bar = tqdm(plans, desc="analyze", unit="benchmark", leave=False)
        with transaction(con):
            for name, ms, thr in bar:
                con.register("_ms", ms.arrow())
                try:
                    runs.append(_analyze_one(con, name, ms, thr, incomplete, score))
                finally:
                    unregister(con, "_ms")
        return AnalyzeSummary(tuple(runs), tuple(skipped))


def tier_counts(benchmark: str | None = None, *, db: DbPath = None) -> pd.DataFrame:
    """Questions per tier in the latest audit run of ``benchmark``.

    Columns: tier (nullable Int64; <NA> for the ``incomplete`` and
    ``multi_answer`` buckets), bucket ('tier0'..'tier5', 'incomplete',
    'multi_answer'), n.  Every tier appears, with 0 when empty;
    ``incomplete`` only when the run used ``incomplete="separate"``,
    ``multi_answer`` only when the benchmark has such items.
    """
    with connect(db, read_only=True) as con:
        benchmark = resolve_benchmark(con, benchmark)
        run = latest_run(con, benchmark)
        got = dict(
            con.execute(
                "SELECT bucket, count(*) FROM audit_results WHERE run_id = ? GROUP BY bucket", [run["run_id"]]
            ).fetchall()
        )
    buckets = [b for b in BUCKETS if (b != "incomplete" or run["config"].get("incomplete") == "separate")
               and (b not in OTHER_BUCKETS or got.get(b))]
    df = pd.DataFrame(
        {
            "tier": pd.array([int(b[4:]) if b.startswith("tier") else None for b in buckets], dtype="Int64"),
            "bucket": buckets,
            "n": [int(got.get(b, 0)) for b in buckets],
        }
    )
    return df


def audit_lint(benchmark: str | None = None, *, db: DbPath = None) -> pd.DataFrame:
    """Structural lint of the latest audit run: columns kind, question_id,
    model, detail."""
    with connect(db, read_only=True) as con:
        benchmark = resolve_benchmark(con, benchmark)
        run = latest_run(con, benchmark)
        return con.execute(
            "SELECT kind, question_id, model, detail FROM audit_lint WHERE run_id = ? "
            "ORDER BY kind, question_id, model",
            [run["run_id"]],
        ).df()


def audit_results(benchmark: str | None = None, *, db: DbPath = None) -> pd.DataFrame:
    """Per-question results of the latest audit run (the ``current_audit``
    view): question_id, tier, bucket, top_answer, agreement_count,
    agreeing_families, n_models, n_valid, n_correct."""
    with connect(db, read_only=True) as con:
        benchmark = resolve_benchmark(con, benchmark)
        run = latest_run(con, benchmark)
        return con.execute(
            "SELECT r.question_id, r.tier, r.bucket, r.top_answer, r.agreement_count, r.agreeing_families, "
            "r.n_models, r.n_valid, r.n_correct FROM audit_results r JOIN questions q "
            "ON q.benchmark = r.benchmark AND q.question_id = r.question_id "
            "WHERE r.run_id = ? ORDER BY q.seq",
            [run["run_id"]],
        ).df()


__all__ = [
    "analyze_benchmark",
    "tier_counts",
    "audit_lint",
    "audit_results",
    "thresholds",
    "Thresholds",
    "AnalyzeSummary",
    "BenchmarkRun",
    "TIER_NAMES",
    "TIER_NAMES_TLUE4",
    "PRESETS",
    "OTHER_BUCKETS",
]

