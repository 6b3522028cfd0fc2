"""The audit report of one benchmark: tiers, metrics, scenarios, pairwise
comparisons and lint, as a JSON-ready dict, and renderers for it
(table | json | csv | markdown).

CSV output goes through :func:`audit._util.safe_csv.write_csv`, which neutralises
cells a spreadsheet would run as formulas.  Model names, subjects, ids and
lint details come from user data: the table goes through
:func:`audit._util.terminal.frame_text` (no escape sequence reaches a
terminal), Markdown through :func:`audit._util.terminal.markdown_cell` (no
HTML, no live link or image), JSON through :func:`audit._util.terminal.json_text`
(control characters as ``\\u`` escapes).

The pairwise comparisons grow with the square of the number of models: with
more than :data:`MAX_PAIRWISE_MODELS` models they are left out and the
report says so in one sentence (``comparisons_note``); every per-model
section still lists every model.
"""
from __future__ import annotations

import io
import math
import os
from pathlib import Path

import pandas as pd

from audit._util.terminal import frame_text, json_text, markdown_cell, terminal_safe
from audit.analyze._impact import impact_summary, model_set_warning
from audit.analyze._metrics import DIFFICULTY_BANDS, item_difficulty, model_metrics
from audit.analyze.inputs import latest_run
from audit.analyze.scenarios import compare_models, scenario_table
from audit.analyze.tiers import TIER_NAMES, tier_counts
from audit.errors import InputError
from audit.i18n import label, translate
from audit.store import DbPath, connect
from audit.store.benchmarks import resolve_benchmark

FORMATS = ("table", "json", "csv", "markdown")
#: Most models whose pairwise comparisons a report holds (1,225 pairs per
#: scenario); beyond, the section is left out and ``comparisons_note`` says why.
MAX_PAIRWISE_MODELS = 50

def records(df: pd.DataFrame) -> list[dict]:
    """DataFrame rows as plain-Python dicts, NaN → None (JSON-safe)."""
    out = []
    for rec in df.to_dict("records"):
        clean = {}
        for k, v in rec.items():
            if hasattr(v, "item"):
                v = v.item()
            if v is pd.NA or (isinstance(v, float) and math.isnan(v)):
                v = None
            clean[k] = v
        out.append(clean)
    return out


def analysis_report(benchmark: str | None = None, *, db: DbPath = None) -> dict:
    """The analysis sections of a benchmark's report, from its latest audit run
    (:func:`audit.report.build_report` adds the later stages' sections).

    Keys: ``benchmark``; ``run`` (run_id, created_at, config, models);
    ``tiers`` {"0".."5" (and "incomplete" when used) → number of questions};
    ``tier_names``; ``metrics`` (per model: see :func:`model_metrics`);
    ``difficulty`` {band → number of items}; ``scenarios`` (per model ×
    scenario: see :func:`scenario_table`); ``comparisons`` (pairwise, every
    scenario: see :func:`compare_models`; empty with more than
    :data:`MAX_PAIRWISE_MODELS` models, ``comparisons_note`` then saying
    why, else ``""``); ``lint`` (kind, question_id,
    model, detail).  Fractions are in [0, 1]; missing values are ``None``.

    What wrong keys cost (:mod:`audit.analyze._impact`):
    ``wrong_key_cost`` (per model: model, accuracy, accuracy_right_keys
    [_low, _high], accuracy_corrected [_low, _high], cost_points),
    ``expected_wrong_keys`` {estimate, low, high, n_items} (None with fewer
    than two models), ``expected_wrong_keys_by_subject`` and ``_by_tier``
    (group, n_items, estimate, low, high), ``interval_level`` (0.9),
    ``key_error_note`` and ``scenario_note`` (plain sentences); every
    scenario row has ``control_delta_points``.
    """
    with connect(db, read_only=True) as con:
        benchmark = resolve_benchmark(con, benchmark)
        run = latest_run(con, benchmark)
        lint = con.execute(
            "SELECT kind, question_id, model, detail FROM audit_lint WHERE run_id = ? "
            "ORDER BY kind, question_id, model",
            [run["run_id"]],
        ).df()
    tiers = tier_counts(benchmark, db=db)
    models = run["models"]
    metrics = model_metrics(benchmark, db=db, models=models)
    diff = item_difficulty(benchmark, db=db, models=models)
    scen = scenario_table(benchmark, db=db, models=models)
    if len(models) <= MAX_PAIRWISE_MODELS:
        comp, comp_note = compare_models(benchmark, db=db, models=models, scenario=None), ""
    else:
        n_pairs = len(models) * (len(models) - 1) // 2
        comp = pd.DataFrame()
        comp_note = (f"Pairwise comparisons are left out: {len(models):,} models make {n_pairs:,} pairs, and a report "
                     f"compares at most {MAX_PAIRWISE_MODELS} models; compare the models you choose with "
                     "audit.analyze.compare_models(benchmark, models=[...]).")
    band_counts = diff["band"].value_counts()
    imp = impact_summary(benchmark, db=db, models=models)
    return {
        "benchmark": benchmark,
        "wrong_key_cost": records(imp["wrong_key_cost"]) if imp["scored"] else [],
        "expected_wrong_keys": imp["expected_wrong_keys"],
        "expected_wrong_keys_by_subject": records(imp["expected_wrong_keys_by_subject"]) if imp["scored"] else [],
        "expected_wrong_keys_by_tier": records(imp["expected_wrong_keys_by_tier"]) if imp["scored"] else [],
        "interval_level": imp["level"],
        "key_error_note": key_error_note(imp, len(models)),
        "model_set_warning": imp.get("model_set_warning"),
        "scenario_note": scenario_note(scen),
        "run": {
            "run_id": run["run_id"],
            "created_at": run["created_at"].isoformat() if run["created_at"] is not None else None,
            "config": run["config"],
            "models": models,
        },
        "tiers": {(b[4:] if b.startswith("tier") else b): int(n) for b, n in zip(tiers["bucket"], tiers["n"])},
        "tier_names": {str(k): v for k, v in TIER_NAMES.items()},
        "metrics": records(metrics),
        "difficulty": {b: int(band_counts.get(b, 0)) for b in DIFFICULTY_BANDS},
        "scenarios": records(scen),
        "comparisons": records(comp),
        "comparisons_note": comp_note,
        "lint": records(lint),
        "extra": {},
    }


# ---------------------------------------------------------------- rendering


def _pct(v) -> str:
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{100 * v:.2f}%"


def _ci(lo, hi) -> str:
    if lo is None or hi is None:
        return ""
    return f"[{100 * lo:.2f}, {100 * hi:.2f}]"


def _p(v) -> str:
    if v is None:
        return ""
    return f"{v:.2e}" if v < 0.001 else f"{v:.3f}"


def coverage(n_asked: int, n_questions: int) -> str:
    """Which items a model's rates are over, in words: all of them, or the
    ones it was asked.

    >>> coverage(99, 899), coverage(899, 899)
    ('answered 99 of 899 items', 'all 899 items')
    """
    if n_asked >= n_questions:
        return f"all {n_questions:,} items"
    return f"answered {n_asked:,} of {n_questions:,} items"


def key_error_note(imp: dict, n_models: int) -> str:
    """One plain sentence on the expected number of wrong keys (or why there is none)."""
    if not imp["scored"]:
        return (f"Tiers and key-error scores need at least two models; this run has {n_models}. "
                "The metrics below are the model's accuracy with Wilson intervals.")
    e = imp["expected_wrong_keys"]
    text = (f"About {e['estimate']:.0f} of the {e['n_items']} keys are probably wrong "
            f"({100 * imp['level']:.0f}% interval {e['low']:.0f}–{e['high']:.0f}).")
    if imp.get("found_all"):
        text += " " + translate("keyerror.found_all", "en")
    return text


def scenario_note(scen: pd.DataFrame) -> str:
    """How much of each exclusion scenario's delta key errors explain, in words
    (means over the models)."""
    if scen.empty or "control_delta_points" not in scen or scen["control_delta_points"].isna().all():
        return ""
    parts = []
    for name, g in scen[scen["scenario"] != "baseline"].groupby("scenario", sort=False):
        d, c = g["delta_points"].mean(), g["control_delta_points"].mean()
        if pd.isna(d) or pd.isna(c) or abs(d) < 0.005:
            continue
        shown = label("scenario", str(name))
        shown = shown[:1].lower() + shown[1:]
        parts.append(f"{shown}: {d:+.2f} points, of which key errors explain about {d - c:+.2f} "
                     f"(excluding as many equally hard items with confirmed keys gives {c:+.2f})")
    if not parts:
        return ""
    return ("Excluding items the models find hard raises accuracy whether or not their keys are wrong. "
            + "; ".join(parts) + ".")


def _sections(rep: dict) -> list[tuple[str, pd.DataFrame]]:
    """Human-readable tables (strings), shared by the table and markdown renderers."""
    tiers = pd.DataFrame(
        [
            {"tier": t, "questions": n, "meaning": rep["tier_names"].get(t, "any invalid or missing prediction")}
            for t, n in rep["tiers"].items()
        ]
    )
    metrics = pd.DataFrame(
        [
            {
                "model": m["model"],
                "family": m["family"],
                "asked": coverage(m.get("n_asked", m["n_questions"]), m["n_questions"]),
                "valid": f"{m['n_valid']}/{m.get('n_asked', m['n_questions'])}",
                "response rate": _pct(m["response_rate"]),
                "accuracy": _pct(m["accuracy"]),
                "acc. 95% CI": _ci(m["accuracy_low"], m["accuracy_high"]),
                "cond. accuracy": _pct(m["conditional_accuracy"]),
                "cond. 95% CI": _ci(m["conditional_accuracy_low"], m["conditional_accuracy_high"]),
            }
            for m in rep["metrics"]
        ]
    )
    scen = pd.DataFrame(
        [
            {
                "scenario": s["scenario"],
                "model": s["model"],
                "questions": s["n_questions"],
                "valid": s["n_valid"],
                "cond. accuracy": _pct(s["conditional_accuracy"]),
                "95% CI": _ci(s["conditional_accuracy_low"], s["conditional_accuracy_high"]),
                "Δ points": "" if s["delta_points"] is None else f"{s['delta_points']:+.2f}",
                "control Δ": "" if s.get("control_delta_points") is None else f"{s['control_delta_points']:+.2f}",
            }
            for s in rep["scenarios"]
        ]
    )
    comp = pd.DataFrame(
        [
            {
                "model A": c["model_a"],
                "model B": c["model_b"],
                "A": _pct(c["acc_a"]),
                "B": _pct(c["acc_b"]),
                "z-test p": _p(c["p_ztest"]) + c["sig_ztest"],
                "paired n": c["n_paired"],
                "A only / B only": f"{c['a_only']}/{c['b_only']}",
                "McNemar p": _p(c["p_mcnemar"]) + c["sig_mcnemar"],
            }
            for c in rep["comparisons"]
            if c["scenario"] == "baseline"
        ]
    )
    lint = pd.DataFrame(rep["lint"], columns=["kind", "question_id", "model", "detail"]).fillna("")
    diff = pd.DataFrame([{"band": b, "items": n} for b, n in rep["difficulty"].items()])
    lvl = f"{100 * rep.get('interval_level', 0.9):.0f}%"
    cost = pd.DataFrame(
        [
            {
                "model": c["model"],
                "accuracy": _pct(c["accuracy"]),
                "on right keys": _pct(c["accuracy_right_keys"]),
                f"{lvl} interval": _ci(c["accuracy_right_keys_low"], c["accuracy_right_keys_high"]),
                "keys corrected": _pct(c["accuracy_corrected"]),
                "cost (points)": f"{c['cost_points']:+.2f}",
            }
            for c in rep.get("wrong_key_cost", [])
        ]
    )
    ewk = pd.DataFrame(
        [{"group": "benchmark", "items": rep["expected_wrong_keys"]["n_items"]} | _ewk(rep["expected_wrong_keys"])]
        if rep.get("expected_wrong_keys") else []
    )
    by = [{"group": f"subject {r['group']}" if r["group"] else "subject (none)", "items": r["n_items"]} | _ewk(r)
          for r in rep.get("expected_wrong_keys_by_subject", [])]
    by += [
        {"group": r["group"] or "(none)", "items": r["n_items"]} | _ewk(r)
        for r in rep.get("expected_wrong_keys_by_tier", [])
    ]
    smp = rep.get("expected_wrong_keys_sampled")
    if smp is not None:
        by.append({"group": "benchmark, random audit sample", "items": smp.get("n_sampled")} | _ewk_sampled(smp))
        by += [{"group": f"subject {r['subject']}, random audit sample" if r["subject"] else
                "subject (none), random audit sample", "items": r.get("n_sampled")} | _ewk_sampled(r)
               for r in rep.get("expected_wrong_keys_sampled_by_subject", []) if r.get("estimate") is not None]
    ewk = pd.concat([ewk, pd.DataFrame(by)], ignore_index=True) if by else ewk
    notes = pd.DataFrame({"": [n for n in (rep.get("key_error_note"), rep.get("model_set_warning"),
                                           rep.get("sampled_note"), rep.get("scenario_note"),
                                           rep.get("comparisons_note")) if n]})
    return [
        ("What wrong keys cost each model", cost),
        (f"Expected number of wrong keys ({lvl} interval)", ewk),
        ("In plain words", notes),
        ("Agreement tiers", tiers),
        ("Models", metrics),
        ("Item difficulty (models correct)", diff),
        ("Filtering scenarios", scen),
        ("Pairwise comparisons (baseline; * p<0.05, ** p<0.01, *** p<0.001)", comp),
        ("Lint", lint),
    ] + [(title, pd.DataFrame(recs)) for title, recs in rep.get("extra", {}).items()]


def _ewk(r: dict) -> dict:
    return {"expected wrong keys": f"{r['estimate']:.1f}", "interval": f"{r['low']:.0f}–{r['high']:.0f}"}


def _ewk_sampled(r: dict) -> dict:
    """The sampled count's cells: the figures, or why there are none."""
    if r.get("estimate") is None:
        return {"expected wrong keys": "", "interval": r.get("reason") or ""}
    return _ewk(r) | {"settled": f"{r['n_settled']} of {r['n_sampled']}"}


def _header(rep: dict) -> str:
    cfg = rep["run"]["config"]
    return (
        f"benchmark {rep['benchmark']} — audit run {rep['run']['run_id']}: {cfg.get('n_models')} models, "
        f"t1={cfg.get('t1')}, t2={cfg.get('t2')}, incomplete={cfg.get('incomplete')}"
    )


def _md_cell(v) -> str:
    return markdown_cell(v)


def _markdown_table(df: pd.DataFrame) -> str:
    if df.empty:
        return "_none_"
    cols = [_md_cell(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    lines += ["| " + " | ".join(_md_cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines)


def report_frame(rep: dict) -> pd.DataFrame:
    """The report as one long table (the CSV form): a ``section`` column
    (tiers, metrics, difficulty, scenarios, comparisons, lint) and the union
    of the sections' columns, numbers unformatted."""
    ewk = [{"group": "all", **rep["expected_wrong_keys"]}] if rep.get("expected_wrong_keys") else []
    smp = [{"group": "all", **rep["expected_wrong_keys_sampled"]}] if rep.get("expected_wrong_keys_sampled") else []
    notes = [
        {"note": k, "text": rep[k]}
        for k in ("key_error_note", "model_set_warning", "sampled_note", "scenario_note")
        if rep.get(k)
    ]
    parts = [
        pd.DataFrame(rep.get("wrong_key_cost", [])).assign(section="wrong_key_cost"),
        pd.DataFrame(ewk).assign(section="expected_wrong_keys"),
        pd.DataFrame(smp).assign(section="expected_wrong_keys_sampled"),
        pd.DataFrame(rep.get("expected_wrong_keys_sampled_by_subject", [])).assign(
            section="expected_wrong_keys_sampled_by_subject"),
        pd.DataFrame(notes).assign(section="notes"),
        pd.DataFrame(rep.get("expected_wrong_keys_by_subject", [])).assign(section="expected_wrong_keys_by_subject"),
        pd.DataFrame(rep.get("expected_wrong_keys_by_tier", [])).assign(section="expected_wrong_keys_by_tier"),
        pd.DataFrame({"section": "tiers", "tier": list(rep["tiers"]), "n": list(rep["tiers"].values())}),
        pd.DataFrame(rep["metrics"]).assign(section="metrics"),
        pd.DataFrame({"section": "difficulty", "band": list(rep["difficulty"]), "n": list(rep["difficulty"].values())}),
        pd.DataFrame(rep["scenarios"]).assign(section="scenarios"),
        pd.DataFrame(rep["comparisons"]).assign(section="comparisons"),
        pd.DataFrame(rep["lint"], columns=["kind", "question_id", "model", "detail"]).assign(section="lint"),
    ]
    parts += [pd.DataFrame(recs).assign(section=title) for title, recs in rep.get("extra", {}).items()]
    parts = [p for p in parts if not p.empty]
    # nullable dtypes keep counts integral where other sections leave gaps
    df = pd.concat([p.convert_dtypes() for p in parts], ignore_index=True, sort=False)
    df.insert(0, "benchmark", rep["benchmark"])
    df.insert(1, "run_id", rep["run"]["run_id"])
    cols = ["benchmark", "run_id", "section"] + [c for c in df.columns if c not in ("benchmark", "run_id", "section")]
    return df[cols]


def render_report(rep: dict, fmt: str = "table") -> str:
    """The report as text in one of ``table``, ``json``, ``csv``, ``markdown``."""
    if fmt not in FORMATS:
        raise InputError(f"unknown format '{fmt}' (choose one of {', '.join(FORMATS)})")
    if fmt == "json":
        return json_text(rep, indent=2, default=str) + "\n"
    if fmt == "csv":
        from audit._util.safe_csv import write_csv

        buf = io.StringIO()
        write_csv(report_frame(rep), buf)
        return buf.getvalue()
    if fmt == "markdown":
        out = [f"# Audit report: {_md_cell(rep['benchmark'])}", "", _md_cell(_header(rep)), ""]
        for title, df in _sections(rep):
            out += [f"## {title}", "", _markdown_table(df), ""]
        return "\n".join(out)
    out = [terminal_safe(_header(rep)), ""]
    for title, df in _sections(rep):
        # sentences stay whole; table cells are cut so one long text does not widen a column
        out += [title, "-" * len(title), frame_text(df, max_cell=None if title == "In plain words" else 60), ""]
    return "\n".join(out)


def write_report(rep: dict, fmt: str, output: str | os.PathLike | None = None) -> str | None:
    """Render ``rep``; write it to ``output`` (UTF-8) when given, else return the text."""
    if output is None:
        return render_report(rep, fmt)
    path = Path(output)
    if fmt == "csv":
        from audit._util.safe_csv import write_csv

        write_csv(report_frame(rep), path)
    else:
        path.write_text(render_report(rep, fmt), encoding="utf-8")
    return None


__all__ = ["analysis_report", "render_report", "write_report", "report_frame", "records", "FORMATS", "key_error_note",
           "scenario_note", "model_set_warning", "MAX_PAIRWISE_MODELS"]

