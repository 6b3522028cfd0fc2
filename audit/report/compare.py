"""``audit report compare B1 B2 …``: several benchmarks side by side, and
the items a translation may have damaged.

Per benchmark, every figure is the benchmark's own report
(:func:`audit.report.build_report`), so the comparison never disagrees with
``audit report``: items, the models of its latest audit run, the expected
number of wrong keys with its posterior interval (model-based; the sampled
estimate beside it when the report has one), the settled wrong keys (items
whose settled expert verdict is ``key_wrong``), the expected wrong keys per
subject, and what wrong keys cost each model that is present in every
benchmark compared.

Parallel benchmarks hold the same items in other languages (TLUE and the
CMMLU rows it was translated from; CMiLBench's language versions).  Two
items are parallel when the first benchmark's ``parallel_links`` name the
other benchmark as their source (``audit import parallel --source NAME``), or
when both benchmarks hold the same question id in different languages.  For
each parallel pair the comparison lists the items whose **keys differ** (the
current keys: the stored key, or the corrected one where a settled verdict
under the default policy replaced it) or whose **model agreement differs**:
of the models that answered the item in both languages (at least
:data:`MIN_SHARED_MODELS`), the share choosing the key differs by at least
:data:`AGREEMENT_GAP`.  Either is a sign the translation changed the item
("translation damage"): a key that moved, or a question the same models
answer right in one language and wrong in the other.
"""
from __future__ import annotations

import html
import json
import os
from pathlib import Path

import pandas as pd

from audit.analyze.inputs import find_latest_run
from audit.errors import InputError, NotFoundError
from audit.export import corrected_keys
from audit.i18n import translate
from audit.report.full import build_report
from audit.report.scores import md
from audit.review import settled_verdicts
from audit.store import DbPath, connect

FORMATS = ("table", "json", "md", "html")
#: Models answering a parallel item in both languages needed to compare their agreement.
MIN_SHARED_MODELS = 3
#: A difference in the share of models choosing the key, across languages, that counts as a difference.
AGREEMENT_GAP = 0.5

#: Columns of a parallel difference (``parallel_differences`` rows).
DIFFERENCE_COLUMNS = ["benchmark_a", "question_id_a", "benchmark_b", "question_id_b", "subject", "key_a", "key_b",
                      "keys_differ", "n_models", "agree_a", "agree_b", "agreement_differs", "reason"]


def _benchmark_block(name: str, rep: dict, settled: pd.DataFrame, n_items: int, languages: list[str]) -> dict:
    return {
        "benchmark": name,
        "items": n_items,
        "languages": languages,
        "models": list(rep["run"]["models"]),
        "expected_wrong_keys": {
            "model_based": rep.get("expected_wrong_keys"),
            # a random audit sample's estimate, when the report carries one
            "sampled": rep.get("expected_wrong_keys_sampled"),
            "interval_level": rep.get("interval_level"),
        },
        "settled_wrong_keys": int((settled["verdict"] == "key_wrong").sum()) if len(settled) else 0,
        "settled_items": int(len(settled)),
        "expected_wrong_keys_by_subject": rep.get("expected_wrong_keys_by_subject") or [],
        "wrong_key_cost": rep.get("wrong_key_cost") or [],
    }


def _current_keys(con, benchmark: str, db: DbPath) -> pd.DataFrame:
    """question_id, subject, language, key: the stored key, replaced where a
    settled verdict corrects it (default policy)."""
    q = con.execute("SELECT question_id, subject, language, answer_key AS key FROM questions WHERE benchmark = ? "
                    "ORDER BY seq", [benchmark]).df()
    fixed, _ = corrected_keys(benchmark, db=db)
    if len(fixed):
        m = dict(zip(fixed["question_id"], fixed["answer_key"]))
        q["key"] = [m.get(i, k) for i, k in zip(q["question_id"], q["key"])]
    return q


def _answers(con, benchmark: str) -> pd.DataFrame:
    """question_id, model, answer: one valid answer per model and item (its
    ``default`` run, else the first by name)."""
    return con.execute(
        "SELECT question_id, model, arg_min(answer, CASE WHEN run = 'default' THEN '' ELSE run END) AS answer "
        "FROM all_predictions WHERE benchmark = ? AND valid AND answer IS NOT NULL GROUP BY question_id, model",
        [benchmark]).df()


def _links(con, a: str, b: str, qa: pd.DataFrame, qb: pd.DataFrame) -> pd.DataFrame:
    """question_id_a, question_id_b of the parallel items of benchmarks *a*
    and *b* (see the module docstring)."""
    ids_b = set(qb["question_id"])
    rows = con.execute("SELECT question_id, counterpart_id FROM parallel_links WHERE benchmark = ? "
                       "AND counterpart_source = ?", [a, b]).fetchall()
    pairs = {}
    for qid, cid in rows:
        stem, _, idx = str(cid).rpartition(":")
        stem = stem.rsplit(".", 1)[0] if "." in stem else stem
        for cand in (str(cid), f"{stem}{idx}", f"{stem}/{idx}"):
            if cand in ids_b:
                pairs[qid] = cand
                break
    if not rows:   # the same ids in different languages
        la = dict(zip(qa["question_id"], qa["language"]))
        lb = dict(zip(qb["question_id"], qb["language"]))
        pairs = {q: q for q in la if q in lb and la[q] != lb[q]}
    return pd.DataFrame({"question_id_a": list(pairs), "question_id_b": list(pairs.values())}, dtype=object)


def parallel_differences(a: str, b: str, *, db: DbPath = None, lang: str = "en") -> tuple[dict, pd.DataFrame]:
    """(summary, differences) of benchmarks *a* and *b*: ``summary`` holds
    ``linked`` (parallel items), ``keys_differ``, ``agreement_differs`` and
    ``by_subject`` (the same per subject of *a*); ``differences`` the items
    whose keys or model agreement differ (:data:`DIFFERENCE_COLUMNS`; the
    ``reason`` in *lang*), in *a*'s order.  Empty when the two are not
    parallel."""
    with connect(db, read_only=True) as con:
        qa, qb = _current_keys(con, a, db), _current_keys(con, b, db)
        links = _links(con, a, b, qa, qb)
        if links.empty:
            links = _links(con, b, a, qb, qa).rename(columns={"question_id_a": "question_id_b",
                                                              "question_id_b": "question_id_a"})
        ans_a, ans_b = _answers(con, a), _answers(con, b)
    empty = pd.DataFrame(columns=DIFFERENCE_COLUMNS)
    if links.empty:
        return {"benchmark_a": a, "benchmark_b": b, "linked": 0, "keys_differ": 0, "agreement_differs": 0,
                "by_subject": []}, empty
    df = (links.merge(qa.rename(columns={"question_id": "question_id_a", "key": "key_a"}), on="question_id_a")
          .merge(qb[["question_id", "key"]].rename(columns={"question_id": "question_id_b", "key": "key_b"}),
                 on="question_id_b"))
    df["keys_differ"] = df["key_a"].astype(str) != df["key_b"].astype(str)
    both = (ans_a.rename(columns={"question_id": "question_id_a", "answer": "answer_a"})
            .merge(links, on="question_id_a")
            .merge(ans_b.rename(columns={"question_id": "question_id_b", "answer": "answer_b"}),
                   on=["question_id_b", "model"]))
    both = both.merge(df[["question_id_a", "key_a", "key_b"]], on="question_id_a")
    both["right_a"] = both["answer_a"] == both["key_a"]
    both["right_b"] = both["answer_b"] == both["key_b"]
    agg = both.groupby("question_id_a").agg(n_models=("model", "size"), agree_a=("right_a", "mean"),
                                            agree_b=("right_b", "mean")).reset_index()
    df = df.merge(agg, on="question_id_a", how="left")
    df["n_models"] = df["n_models"].fillna(0).astype(int)
    df["agreement_differs"] = ((df["n_models"] >= MIN_SHARED_MODELS)
                               & ((df["agree_a"] - df["agree_b"]).abs() >= AGREEMENT_GAP)).astype(bool)
    df["reason"] = [_reason(r, a, b, lang) for r in df.itertuples()]
    by = (df.assign(subject=df["subject"].fillna(""))
          .groupby("subject", sort=True)
          .agg(linked=("question_id_a", "size"), keys_differ=("keys_differ", "sum"),
               agreement_differs=("agreement_differs", "sum")).reset_index())
    summary = {"benchmark_a": a, "benchmark_b": b, "linked": int(len(df)),
               "keys_differ": int(df["keys_differ"].sum()), "agreement_differs": int(df["agreement_differs"].sum()),
               "by_subject": [{k: (int(v) if k != "subject" else v) for k, v in r.items()}
                              for r in by.to_dict("records")]}
    out = df[df["keys_differ"] | df["agreement_differs"]].assign(benchmark_a=a, benchmark_b=b)
    return summary, out[DIFFERENCE_COLUMNS].reset_index(drop=True)


def _reason(r, a: str, b: str, lang: str = "en") -> str:
    """The difference in plain words (the catalogue's, in *lang*)."""
    parts = []
    if r.keys_differ:
        parts.append(translate("compare.keys_differ", lang, key_a=r.key_a, key_b=r.key_b, a=a, b=b))
    if r.n_models >= MIN_SHARED_MODELS and abs(r.agree_a - r.agree_b) >= AGREEMENT_GAP:
        n = int(r.n_models)
        parts.append(translate("compare.agreement_differs", lang, n=n, x=round(r.agree_a * n),
                               y=round(r.agree_b * n), a=a, b=b))
    return "; ".join(parts)


def compare_benchmarks(benchmarks: list[str], *, db: DbPath = None, lang: str = "en") -> dict:
    """The comparison as a JSON-ready dict: ``benchmarks`` (one block per
    benchmark, in the order given), ``models_in_all`` (models present in
    every benchmark), ``cost_in_all`` (what wrong keys cost each of those
    models, per benchmark), ``parallel`` (one summary per parallel pair) and
    ``parallel_differences`` (the items whose keys or model agreement
    differ across languages; their ``reason`` in *lang*).  See the module
    docstring."""
    names = list(dict.fromkeys(benchmarks))
    if len(names) < 2:
        raise InputError("compare needs at least two different benchmarks")
    blocks = []
    for name in names:
        with connect(db, read_only=True) as con:
            if con.execute("SELECT count(*) FROM benchmarks WHERE name = ?", [name]).fetchone()[0] == 0:
                raise NotFoundError(f"no benchmark named '{name}' in the database")
            analysed = find_latest_run(con, name) is not None
        # a benchmark never analysed (no model answers) still has items, settled verdicts and parallel items
        rep: dict = build_report(name, db=db) if analysed else {"benchmark": name, "run": {"models": []}}
        with connect(db, read_only=True) as con:
            n_items, langs = con.execute(
                "SELECT count(*), list(DISTINCT language ORDER BY language) FILTER (WHERE language IS NOT NULL) "
                "FROM questions WHERE benchmark = ?", [name]).fetchone()
        blocks.append(_benchmark_block(str(rep["benchmark"]), rep, settled_verdicts(name, db=db), int(n_items),
                                       list(langs or [])))
    common = sorted(set.intersection(*(set(b["models"]) for b in blocks)))
    cost = [{"model": m, **{b["benchmark"]: next((r["cost_points"] for r in b["wrong_key_cost"] if r["model"] == m),
                                                 None) for b in blocks}} for m in common]
    pairs, diffs = [], []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            summary, d = parallel_differences(a, b, db=db, lang=lang)
            if summary["linked"]:
                pairs.append(summary)
                diffs += [{k: (v.item() if hasattr(v, "item") else (None if pd.isna(v) else v))
                           for k, v in r.items()} for r in d.to_dict("records")]
    return {"benchmarks": blocks, "models_in_all": common, "cost_in_all": cost, "parallel": pairs,
            "parallel_differences": diffs}


def estimate_text(e: dict | None) -> str:
    """An expected count of wrong keys as ``estimate [low, high]``; ``–``
    where there is no figure (e.g. no random audit sample settled yet).

    >>> estimate_text({"estimate": 18.94, "low": 2.0, "high": 52.3}), estimate_text({"estimate": None})
    ('18.9 [2.0, 52.3]', '–')
    """
    if not e or e.get("estimate") is None:
        return "–"
    return f"{e['estimate']:.1f} [{e['low']:.1f}, {e['high']:.1f}]"


def _rows(cmp: dict) -> tuple[list[str], list[list[str]]]:
    head = ["benchmark", "items", "models", "expected wrong keys (model-based)", "expected wrong keys (sampled)",
            "settled wrong keys"]
    return head, [[b["benchmark"], str(b["items"]), str(len(b["models"])),
                   estimate_text(b["expected_wrong_keys"]["model_based"]),
                   estimate_text(b["expected_wrong_keys"]["sampled"]), str(b["settled_wrong_keys"])]
                  for b in cmp["benchmarks"]]


def render_comparison(cmp: dict, fmt: str = "table") -> str:
    """The comparison in ``table``, ``json``, ``md`` or ``html``; untrusted
    names and reasons are escaped (Markdown and HTML)."""
    if fmt not in FORMATS:
        raise InputError(f"unknown format '{fmt}' (choose one of {', '.join(FORMATS)})")
    if fmt == "json":
        return json.dumps(cmp, ensure_ascii=False, indent=2, default=str) + "\n"
    head, rows = _rows(cmp)
    names = [b["benchmark"] for b in cmp["benchmarks"]]
    cost_head = ["model"] + [f"cost in {n} (points)" for n in names]
    cost_rows = [[c["model"]] + ["–" if c[n] is None else f"{c[n]:+.2f}" for n in names] for c in cmp["cost_in_all"]]
    diff_head = ["benchmark_a", "question_id_a", "benchmark_b", "question_id_b", "reason"]
    diff_rows = [[str(d[k]) for k in diff_head] for d in cmp["parallel_differences"]]
    par = [f"{p['benchmark_a']} ↔ {p['benchmark_b']}: {p['linked']} parallel items, {p['keys_differ']} with "
           f"different keys, {p['agreement_differs']} with different model agreement" for p in cmp["parallel"]]
    damage = ("Translation damage: parallel items whose keys, or whose models' agreement with the key, differ "
              "across languages.")
    if fmt == "html":
        def table(h, rs):
            th = "".join(f"<th>{html.escape(x)}</th>" for x in h)
            trs = "".join("<tr>" + "".join(f"<td>{html.escape(x)}</td>" for x in r) + "</tr>" for r in rs)
            return f"<table><thead><tr>{th}</tr></thead><tbody>{trs}</tbody></table>"
        body = ["<h1>Benchmarks side by side</h1>", table(head, rows), "<h2>What wrong keys cost, per model</h2>",
                table(cost_head, cost_rows) if cost_rows else "<p>No model is present in every benchmark.</p>",
                "<h2>Parallel items</h2>", "".join(f"<p>{html.escape(p)}</p>" for p in par) or
                "<p>No two of these benchmarks are parallel.</p>", f"<p>{html.escape(damage)}</p>",
                table(diff_head, diff_rows) if diff_rows else ""]
        return ("<!doctype html><html><head><meta charset=\"utf-8\"><title>Benchmarks side by side</title></head>"
                "<body>" + "".join(body) + "</body></html>\n")
    if fmt == "md":
        def table(h, rs):
            out = ["| " + " | ".join(md(x) for x in h) + " |", "|" + "|".join("---" for _ in h) + "|"]
            return out + ["| " + " | ".join(md(x) for x in r) + " |" for r in rs]
        out = ["# Benchmarks side by side", "", *table(head, rows), "", "## What wrong keys cost, per model", ""]
        out += table(cost_head, cost_rows) if cost_rows else ["No model is present in every benchmark."]
        out += ["", "## Parallel items", ""] + [md(p) for p in par] + ["", md(damage), ""]
        out += table(diff_head, diff_rows) if diff_rows else ["None."]
        return "\n".join(out) + "\n"
    out = [pd.DataFrame(rows, columns=head).to_string(index=False), ""]
    if cost_rows:
        out += ["What wrong keys cost, per model present in every benchmark:",
                pd.DataFrame(cost_rows, columns=cost_head).to_string(index=False), ""]
    out += par or ["No two of these benchmarks are parallel."]
    if diff_rows:
        out += ["", damage, pd.DataFrame(diff_rows, columns=diff_head).to_string(index=False)]
    return "\n".join(out) + "\n"


def compare_report(benchmarks: list[str], *, fmt: str = "table", output: str | os.PathLike | None = None,
                   db: DbPath = None) -> str | None:
    """``audit report compare``: :func:`compare_benchmarks` rendered in
    *fmt*; written to *output* when given (returns None)."""
    if fmt not in FORMATS:
        raise InputError(f"unknown format '{fmt}' (choose one of {', '.join(FORMATS)})")
    text = render_comparison(compare_benchmarks(benchmarks, db=db), fmt)
    if output is None:
        return text
    Path(output).write_text(text, encoding="utf-8")
    return None


__all__ = ["estimate_text", "FORMATS", "MIN_SHARED_MODELS", "AGREEMENT_GAP", "DIFFERENCE_COLUMNS",
           "parallel_differences", "compare_benchmarks", "render_comparison", "compare_report"]
