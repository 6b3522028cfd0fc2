"""A reliability card per judge and prompt version, and the same judge
compared across prompt languages.

Why: LLM-judge users measured that judges prefer their own family's answers
and that verdicts flip when the options are shown in another order; whether
a judge works outside English, and whether the prompt's language changes its
verdicts, was not measured.  TLUE ships the same question in three prompt
versions (Tibetan only, Chinese only, both: ``--prompt tlue-bo``,
``tlue-zh``, ``tlue-bilingual``), so one judge can be read side by side.

One row per judge × prompt version (the permuted-order passes are read into
the row of the prompt they repeat):

* ``prompt_language`` — the language of a shipped prompt (``bo``,
  ``zh-Hans``, ``bo+zh-Hans``, ``en``), else ``custom``;
* ``n``, ``kappa``, ``kappa_low``, ``kappa_high`` — agreement with the
  settled expert verdicts on the items both judged: the judge's "key
  correct / key wrong" against the settled ``key_correct`` / ``key_wrong``
  (items settled ambiguous or defective are left out).  Cohen's kappa with
  its asymptotic 95% interval (statsmodels ``cohens_kappa``, through
  :func:`audit.analyze.cohen_kappa`);
* ``flip_rate`` — of the items asked both in the shown order and in the
  permuted-order pass (``audit judge run --permute``), the share whose
  verdict differs: "key correct" in one and "key wrong" in the other, or two
  different corrected answers (mapped back to the item's labels).  None
  without a permuted pass.  A judge flipping at least :data:`FLIP_LIMIT` of
  its verdicts is **unreliable**: it answers by position, not by content;
* ``same_family_warning`` — the judge is of the family of a model whose
  answers were audited (the latest audit run's model set): it may prefer
  that family's answers;
* ``settings`` — the generation settings of its latest run (temperature,
  max tokens, concurrency, timeout, retries), never a key.

:func:`language_agreement` compares the prompt versions of one judge with
each other (Cohen's kappa of their verdicts on the items both asked).
"""
from __future__ import annotations

import json
import math

import pandas as pd

from audit.analyze import cohen_kappa
from audit.analyze.inputs import latest_run_models
from audit.judge._prompt import shipped_language
from audit.judge._run import PERMUTED_SUFFIX
from audit.judge._store import judge_family
from audit.store import DbPath, connect

#: Columns of :func:`judge_card` (the JSON rows of ``audit judge card``); ``unreliable`` follows them.
CARD_COLUMNS = ["judge", "prompt_version", "prompt_language", "n", "kappa", "kappa_low", "kappa_high", "flip_rate",
                "same_family_warning", "settings"]
#: Share of verdicts flipping under the permuted order from which a judge is unreliable.
FLIP_LIMIT = 0.2
#: Settings of a judge run shown on the card.
SETTING_KEYS = ("temperature", "max_tokens", "concurrency", "timeout", "max_retries", "permuted")
#: Columns of :func:`language_agreement`.
PAIR_COLUMNS = ["judge", "prompt_a", "language_a", "prompt_b", "language_b", "n", "kappa", "kappa_low", "kappa_high"]


def _verdict(ok, answer) -> str | None:
    """A verdict as one label: ``right``, or ``wrong:<answer>``."""
    if ok is None or (isinstance(ok, float) and math.isnan(ok)):
        return None
    return "right" if bool(ok) else f"wrong:{answer or ''}"


def flip_rate(shown: pd.DataFrame, permuted: pd.DataFrame) -> tuple[float | None, int]:
    """(share of flipped verdicts, items in both passes); each frame has
    ``question_id, answer_key_correct, correct_answer`` of parsed replies.

    >>> a = pd.DataFrame({"question_id": ["q1", "q2"], "answer_key_correct": [True, False],
    ...                   "correct_answer": [None, "B"]})
    >>> b = pd.DataFrame({"question_id": ["q1", "q2"], "answer_key_correct": [False, False],
    ...                   "correct_answer": ["C", "B"]})
    >>> flip_rate(a, b)
    (0.5, 2)
    """
    m = shown.merge(permuted, on="question_id", suffixes=("_a", "_b"))
    if m.empty:
        return None, 0
    va = [_verdict(o, c) for o, c in zip(m["answer_key_correct_a"], m["correct_answer_a"])]
    vb = [_verdict(o, c) for o, c in zip(m["answer_key_correct_b"], m["correct_answer_b"])]
    return sum(x != y for x, y in zip(va, vb)) / len(m), int(len(m))


def _settings(config) -> str:
    try:
        c = json.loads(config) if isinstance(config, str) else dict(config or {})
    except (TypeError, ValueError):
        c = {}
    return json.dumps({k: c.get(k) for k in SETTING_KEYS if k in c}, sort_keys=True)


def _language(version: str, config) -> str:
    lang = shipped_language(version)
    if lang is None:
        try:
            c = json.loads(config) if isinstance(config, str) else dict(config or {})
        except (TypeError, ValueError):
            c = {}
        lang = c.get("prompt_language")
    return lang or "custom"


def _load(con, benchmark: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    verdicts = con.execute(
        "SELECT judge, prompt_version, question_id, answer_key_correct, correct_answer FROM judge_verdicts "
        "WHERE benchmark = ? AND parse_ok ORDER BY judge, prompt_version, question_id", [benchmark]).df()
    runs = con.execute(
        "SELECT judge, prompt_version, arg_max(config::VARCHAR, run_id) AS config FROM judge_runs WHERE benchmark = ? "
        "GROUP BY judge, prompt_version", [benchmark]).df()
    return verdicts, runs


def judge_card(benchmark: str, *, settled: pd.DataFrame | None = None, db: DbPath = None) -> pd.DataFrame:
    """The card: :data:`CARD_COLUMNS` and ``unreliable``, one row per judge ×
    prompt version (permuted passes folded in), by judge then prompt
    language.  ``settled``: :func:`audit.review.settled_verdicts` (columns
    ``question_id, verdict``), which the review stage passes
    (:func:`audit.review.judges.judge_card`); None: no kappa."""
    with connect(db, read_only=True) as con:
        verdicts, runs = _load(con, benchmark)
        models = latest_run_models(con, benchmark) or []
        families = {r[0] for r in con.execute(
            "SELECT DISTINCT family FROM models WHERE name IN (SELECT unnest(?::VARCHAR[]))", [models]).fetchall()}
        fam = {j: judge_family(con, j) for j in verdicts["judge"].unique()}
    truth = {}
    if settled is not None and len(settled):
        s = settled[settled["verdict"].isin(["key_correct", "key_wrong"])]
        truth = dict(zip(s["question_id"], s["verdict"] == "key_correct"))
    config = {(r.judge, r.prompt_version): r.config for r in runs.itertuples()}
    rows = []
    pairs = verdicts[["judge", "prompt_version"]].drop_duplicates()
    for judge, version in pairs.itertuples(index=False):
        if version.endswith(PERMUTED_SUFFIX):
            continue
        mine = verdicts[(verdicts["judge"] == judge) & (verdicts["prompt_version"] == version)]
        perm = verdicts[(verdicts["judge"] == judge) & (verdicts["prompt_version"] == version + PERMUTED_SUFFIX)]
        rate, _ = flip_rate(mine[["question_id", "answer_key_correct", "correct_answer"]],
                            perm[["question_id", "answer_key_correct", "correct_answer"]])
        both = mine[mine["question_id"].isin(truth)]
        n, k, lo, hi = int(len(both)), None, None, None
        if n:
            r = cohen_kappa(both["answer_key_correct"].astype(bool).tolist(),
                            [truth[q] for q in both["question_id"]], labels=[True, False])
            k, lo, hi = (None if math.isnan(x) else float(x) for x in (r.kappa, r.ci_low, r.ci_high))
        rows.append({"judge": judge, "prompt_version": version,
                     "prompt_language": _language(version, config.get((judge, version))),
                     "n": n, "kappa": k, "kappa_low": lo, "kappa_high": hi, "flip_rate": rate,
                     "same_family_warning": fam.get(judge) in families,
                     "settings": _settings(config.get((judge, version))),
                     "unreliable": rate is not None and rate >= FLIP_LIMIT})
    df = pd.DataFrame(rows, columns=CARD_COLUMNS + ["unreliable"])
    return df.sort_values(["judge", "prompt_language", "prompt_version"]).reset_index(drop=True)


def family_of(judge: str, *, db: DbPath = None) -> str:
    """The judge's model family (a registered model's, else inferred from its name)."""
    with connect(db, read_only=True) as con:
        return judge_family(con, judge)


def language_agreement(benchmark: str, *, db: DbPath = None) -> pd.DataFrame:
    """Per judge, each pair of its prompt versions (permuted passes left out):
    Cohen's kappa of their verdicts (``right`` / ``wrong:<answer>``) on the
    items both asked (:data:`PAIR_COLUMNS`)."""
    with connect(db, read_only=True) as con:
        verdicts, runs = _load(con, benchmark)
    config = {(r.judge, r.prompt_version): r.config for r in runs.itertuples()}
    verdicts = verdicts[~verdicts["prompt_version"].str.endswith(PERMUTED_SUFFIX)]
    verdicts = verdicts.assign(v=[_verdict(o, c) for o, c in zip(verdicts["answer_key_correct"],
                                                                  verdicts["correct_answer"])])
    rows = []
    for judge, g in verdicts.groupby("judge", sort=True):
        versions = sorted(g["prompt_version"].unique(), key=lambda v: (_language(v, config.get((judge, v))), v))
        for i, a in enumerate(versions):
            for b in versions[i + 1:]:
                m = g[g["prompt_version"] == a][["question_id", "v"]].merge(
                    g[g["prompt_version"] == b][["question_id", "v"]], on="question_id")
                r = cohen_kappa(m["v_x"].tolist(), m["v_y"].tolist())
                rows.append({"judge": judge, "prompt_a": a, "language_a": _language(a, config.get((judge, a))),
                             "prompt_b": b, "language_b": _language(b, config.get((judge, b))), "n": int(r.n),
                             **{c: (None if math.isnan(x) else float(x)) for c, x in
                                (("kappa", r.kappa), ("kappa_low", r.ci_low), ("kappa_high", r.ci_high))}})
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


__all__ = ["CARD_COLUMNS", "FLIP_LIMIT", "SETTING_KEYS", "PAIR_COLUMNS", "flip_rate", "judge_card", "family_of",
           "language_agreement"]
