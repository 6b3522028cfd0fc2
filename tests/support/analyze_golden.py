"""Seeded data and the figures of ``analyze`` that must not change when its
implementation does (the golden file of tests/analyze/test_tiers_identical.py).

Two uses:

* the golden file: run with *main's* code, read-only, before a change::

      PYTHONPATH=/work/main python3 tests/support/analyze_golden.py --write tests/data/analyze_golden.json.gz

  (the script's folder is ``tests/support/``, so ``audit`` comes from PYTHONPATH);
* ``tests/analyze/test_tiers_identical.py`` rebuilds the same databases with the
  code under test, runs the same analyses and compares with the file.

The databases are written with plain SQL (not the importers, which other
work may change) plus, when present, the real MMLU-Redux dev set through
``import_mmlu_redux``.  What they cover: planted wrong keys and planted
shared misconceptions; invalid predictions and answers outside the options;
non-standard option labels and 5-option items; items without any
prediction; no key, a key outside the options, multi-answer keys,
duplicate option texts; a constant predictor; models with several runs;
parallel-source links (match and mismatch); a benchmark with more items
than the fit's sample (the sampled path); a one-model benchmark.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa

SHARED_DATA = Path(os.environ.get("AUDIT_SHARED_DATA", Path(__file__).resolve().parents[3] / "shared" / "data"))
FAMILIES = ("anthropic", "google", "openai", "meta", "qwen")
LETTERS = "ABCDEF"


def _bench(con, name: str, n: int, models: list[tuple[str, str]], seed: int, *, runs: dict | None = None,
           special: bool = True) -> None:
    """One synthetic benchmark of ``n`` items answered by ``models`` ((name, family))."""
    rng = np.random.default_rng(seed)
    con.execute("INSERT INTO benchmarks (name, source) VALUES (?, 'synthetic') ON CONFLICT DO NOTHING", [name])
    for m, fam in models:
        con.execute("INSERT INTO models (name, family) VALUES (?, ?) ON CONFLICT DO NOTHING", [m, fam])
    k = np.where(rng.random(n) < 0.1, 5, 4)
    truth = rng.integers(0, 4, n)
    distractor = (truth + rng.integers(1, 4, n)) % 4
    wrong_key = rng.random(n) < 0.05                      # planted wrong keys
    misconception = ~wrong_key & (rng.random(n) < 0.05)   # planted shared misconceptions: the key is right
    key = np.where(wrong_key, distractor, truth)
    ease = rng.normal(0.5, 1.0, n)
    labels = [list(LETTERS[: k[i]]) for i in range(n)]
    flags: list[list[str]] = [[] for _ in range(n)]
    keys: list[str | None] = [LETTERS[key[i]] for i in range(n)]
    texts = [[f"option {j} of item {i}" for j in range(k[i])] for i in range(n)]
    if special:
        for i in range(0, 40, 10):           # non-standard labels: A, B, D, E
            labels[i] = ["A", "B", "D", "E"][: k[i]] if k[i] == 4 else ["A", "B", "D", "E", "F"]
            keys[i] = labels[i][key[i]]
        keys[41] = None                       # no key
        keys[42] = "F"                        # key outside the options
        keys[43] = "Z"
        for i in (44, 45, 46):
            flags[i] = ["multi_answer"]
        for i in (47, 48):                   # duplicate option texts (after collapsing whitespace)
            texts[i][1] = texts[i][0].replace(" ", "  ")
        texts[49][2] = texts[49][3]
    qt = pa.table({
        "question_id": [f"{name}-{i:05d}" for i in range(n)], "seq": pa.array(range(n), pa.int32()),
        "subject": [f"subject_{i % 7}" for i in range(n)], "stem": [f"stem {i}" for i in range(n)],
        "options": [[{"label": lab, "text": t} for lab, t in zip(labels[i], texts[i])] for i in range(n)],
        "answer_key": pa.array(keys, pa.string()), "flags": pa.array(flags, pa.list_(pa.string())),
    })
    con.register("_gq", qt)
    con.execute("INSERT INTO questions (benchmark, question_id, seq, subject, stem, options, answer_key, flags) "
                "SELECT ?, question_id, seq, subject, stem, options, answer_key, flags FROM _gq", [name])
    con.unregister("_gq")
    if special:
        con.executemany(
            "INSERT INTO parallel_links (benchmark, question_id, counterpart_source, counterpart_id, counterpart_stem, "
            "counterpart_options, counterpart_key, key_match) VALUES (?, ?, 'src', ?, 's', [], ?, ?)",
            [(name, f"{name}-{i:05d}", f"c{i}", "A", bool(i % 3)) for i in range(60, 120)],
        )
    no_pred = set(range(n - 20, n)) if special else set()   # items nobody answered
    rows = []
    ability = np.linspace(-0.5, 2.0, len(models))
    for j, (m, _fam) in enumerate(models):
        p = 1 / (1 + np.exp(-(ability[j] + ease)))
        correct = rng.random(n) < p
        wrong = np.where(rng.random(n) < 0.6, distractor, (truth + rng.integers(1, 4, n)) % 4)
        ans = np.where(correct, truth, wrong)
        ans = np.where(misconception & (rng.random(n) < 0.85), distractor, ans)
        if special and j == len(models) - 1:          # a constant predictor
            ans = np.where(rng.random(n) < 0.95, 0, ans)
        invalid = rng.random(n) < 0.03
        outside = rng.random(n) < 0.01                # a valid letter that is not an option
        for run in (runs or {}).get(m, ["default"]):
            for i in range(n):
                if i in no_pred:
                    continue
                if invalid[i]:
                    rows.append((name, f"{name}-{i:05d}", m, run, None, "caa", False))
                    continue
                letter = "F" if outside[i] and k[i] == 4 else labels[i][ans[i]]
                if run != "default" and rng.random() < 0.3:
                    letter = labels[i][(ans[i] + 1) % len(labels[i])]
                rows.append((name, f"{name}-{i:05d}", m, run, letter, "given", True))
    pt = pa.table({c: [r[k] for r in rows] for k, c in enumerate(
        ("benchmark", "question_id", "model", "run", "answer", "method", "valid"))})
    con.register("_gp", pt)
    con.execute("INSERT INTO predictions (benchmark, question_id, model, run, answer, method, valid) "
                "SELECT benchmark, question_id, model, run, answer::VARCHAR, method, valid FROM _gp")
    con.unregister("_gp")


def build(db) -> list[str]:
    """Write the test databases' content into ``db``; return the benchmarks."""
    from audit.store import connect

    models = [(f"{FAMILIES[j % 5]}-m{j}", FAMILIES[j % 5]) for j in range(10)]
    runs = {models[1][0]: ["default", "alt"], models[2][0]: ["r2", "r1"]}   # r1 is used (no 'default')
    with connect(db) as con:
        _bench(con, "syn", 3000, models, 1, runs=runs)
        _bench(con, "big", 10_400, models[:5], 2, special=False)    # more items than the fit's sample
        _bench(con, "one", 60, models[:1], 3)
    names = ["syn", "big", "one"]
    dev = SHARED_DATA / "mmlu_redux_dev"
    if dev.exists():
        from audit.ingest import import_mmlu_redux

        import_mmlu_redux(dev, db=db)
        names.append("mmlu-redux")
    return names


#: The analyses compared: (label, benchmark, keyword arguments of analyze_benchmark).
CONFIGS = [
    ("syn-shares", "syn", {}),
    ("syn-tlue4", "syn", {"preset": "tlue4"}),
    ("syn-tlue8", "syn", {"preset": "tlue8"}),
    ("syn-separate-noscore", "syn", {"incomplete": "separate", "score": False}),
    ("syn-subset-t", "syn", {"models": "anthropic-m0,google-m1,openai-m2,meta-m3", "t1": 3, "t3": 2}),
    ("big-shares", "big", {}),
    ("big-tlue4", "big", {"preset": "tlue4"}),
    ("one", "one", {}),
    ("mmlu-redux-shares", "mmlu-redux", {}),
    ("mmlu-redux-tlue8", "mmlu-redux", {"preset": "tlue8"}),
]

_RESULT_COLS = "question_id, tier, bucket, top_answer, agreement_count, agreeing_families, n_models, n_valid, n_correct"
_SCORE_COLS = ("question_id, score, p_reject, agreement_share, prior_logit, llr_models, llr_parallel, llr_lint, "
               "llr_judges, n_judges, p_guessing, alternative, p_alternative, fixed_reason")


def _rows(con, sql: str, params: list) -> dict:
    res = con.execute(sql, params)
    cols = [d[0] for d in res.description]
    data = res.fetchall()
    return {c: [r[i] for r in data] for i, c in enumerate(cols)}


def _clean(report: dict) -> dict:
    report.get("run", {}).pop("created_at", None)
    report.get("run", {}).pop("run_id", None)
    return report


def figures(db, names: list[str]) -> dict:
    """Run every analysis of :data:`CONFIGS` whose benchmark is in ``names``;
    return the stored results of each run and its JSON report."""
    import audit.export  # noqa: F401  (as `audit report` does: later stages add their report sections)
    import audit.review  # noqa: F401
    from audit.analyze import analyze_benchmark
    from audit.report import benchmark_report
    from audit.store import connect

    out = {}
    for label, bench, kw in CONFIGS:
        if bench not in names:
            continue
        s = analyze_benchmark(bench, db=db, **kw)
        run = s.runs[0]
        with connect(db, read_only=True) as con:
            fig = {
                "counts": run.counts,
                "n_lint": run.n_lint,
                "t": [run.t1, run.t2, run.t3],
                "results": _rows(
                    con, f"SELECT {_RESULT_COLS} FROM audit_results WHERE run_id = ? ORDER BY question_id", [run.run_id]
                ),
                "lint": _rows(
                    con,
                    "SELECT kind, question_id, model, detail FROM audit_lint WHERE run_id = ? "
                    "ORDER BY kind, question_id, model",
                    [run.run_id],
                ),
                "scores": _rows(
                    con,
                    f"SELECT {_SCORE_COLS} FROM key_error_scores WHERE run_id = ? ORDER BY question_id",
                    [run.run_id],
                ),
                "params": _rows(
                    con,
                    "SELECT kind, name, param, value, n FROM key_error_params WHERE run_id = ? "
                    "ORDER BY kind, name, param",
                    [run.run_id],
                ),
            }
        fig["report"] = _clean(json.loads(benchmark_report(bench, fmt="json", db=db)))
        out[label] = fig
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write", type=Path, required=True, help="the golden file (.json.gz)")
    args = ap.parse_args()
    import tempfile

    import audit

    db = Path(tempfile.mkdtemp(prefix="analyze-golden-")) / "g.duckdb"
    names = build(db)
    figs = figures(db, names)
    with gzip.open(args.write, "wt", encoding="utf-8") as fh:
        json.dump({"code": str(Path(audit.__file__).resolve().parents[1]), "benchmarks": names, "figures": figs},
                  fh, default=str, sort_keys=True)
    print(f"wrote {args.write}: {', '.join(figs)} (audit from {audit.__file__})", file=sys.stderr)


if __name__ == "__main__":
    main()
