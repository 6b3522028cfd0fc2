"""Helpers for the analysis tests (not a test module): build small
benchmarks directly in a DuckDB file, and an independent pure-Python
reference implementation of the agreement-tier rule."""
from __future__ import annotations

import random
import sys
from collections import defaultdict

from audit.store import connect, transaction

from .common import migrated_if_new

LETTERS = "ABCDEF"


def make_benchmark(db, benchmark, questions, families, preds, *, option_texts=None):
    """questions: list of (question_id, n_options, key[, subject]);
    families: {model: family}; preds: {(question_id, model): letter | None}
    (None = an invalid prediction; absent = missing).  option_texts:
    {question_id: [texts]} to override the default distinct texts."""
    option_texts = option_texts or {}
    migrated_if_new(db)
    with connect(db) as con, transaction(con):
        con.execute("INSERT INTO benchmarks (name, source) VALUES (?, 'test') ON CONFLICT DO NOTHING", [benchmark])
        rows = []
        for seq, q in enumerate(questions):
            qid, k, key = q[0], q[1], q[2]
            subject = q[3] if len(q) > 3 else "general"
            texts = option_texts.get(qid) or [f"option {l} of {qid}" for l in LETTERS[:k]]
            rows.append([benchmark, qid, seq, subject, f"stem {qid}",
                         [{"label": l, "text": t} for l, t in zip(LETTERS[:k], texts)], key])
        con.executemany(
            "INSERT INTO questions (benchmark, question_id, seq, subject, stem, options, answer_key) "
            "VALUES (?,?,?,?,?,?,?)",
            rows,
        )
        if families:
            con.executemany(
            "INSERT INTO models (name, family, family_source) VALUES (?, ?, 'set') "
            "ON CONFLICT (name) DO UPDATE SET family = excluded.family",
            sorted(families.items()),
        )
        if preds:
            import pandas as pd

            items = sorted(preds.items(), key=lambda kv: (kv[0][0], kv[0][1]))
            frame = pd.DataFrame({
                "question_id": [q for (q, _), _ in items],
                "model": [m for (_, m), _ in items],
                "response": [None if a is not None else "???" for _, a in items],
                "answer": pd.array([a for _, a in items], dtype="string"),
                "valid": [a is not None for _, a in items],
            })
            con.register("_preds_frame", frame)
            con.execute(
                "INSERT INTO predictions (benchmark, question_id, model, run, response, answer, method, valid) "
                "SELECT ?, question_id, model, 'default', response, answer, 'given', valid FROM _preds_frame",
                [benchmark],
            )
            con.unregister("_preds_frame")


def random_benchmark(seed, *, n_questions=60, n_models=None, n_families=None, p_invalid=0.08, p_missing=0.05):
    """Random questions / families / predictions, biased towards agreement so
    every tier occurs.  Returns (questions, families, preds)."""
    rng = random.Random(seed)
    n_models = n_models or rng.randint(1, 9)
    n_families = n_families or rng.randint(1, min(4, n_models))
    families = {f"m{i:02d}": f"fam{rng.randrange(n_families)}" for i in range(n_models)}
    questions, preds = [], {}
    for i in range(n_questions):
        k = rng.randint(2, 6)
        labels = LETTERS[:k]
        r = rng.random()
        key = "Z" if r < 0.03 else (None if r < 0.05 else rng.choice(labels))
        questions.append((f"q{i:03d}", k, key, f"s{i % 3}"))
        favourite = rng.choice(labels)
        concentration = rng.random()
        for m in families:
            u = rng.random()
            if u < p_missing:
                continue
            if u < p_missing + p_invalid:
                preds[(f"q{i:03d}", m)] = None
                continue
            preds[(f"q{i:03d}", m)] = favourite if rng.random() < concentration else rng.choice(labels)
    return questions, families, preds


def reference_tiers(questions, families, preds, *, models=None, t1=None, t2=None, separate=False, t3=2):
    """The tier rule, straight from the issue text, one question at a time
    (defaults: the methodology's preset ``tlue4``; ``t3`` the Tier 3/4 count)."""
    models = sorted(models or families)
    n = len(models)
    t1 = n if t1 is None else t1
    t2 = (max(min(n - 1, t1 - 1), 1)) if t2 is None else t2
    out = {}
    for q in questions:
        qid, k, key = q[0], q[1], q[2]
        labels = set(LETTERS[:k])
        valid = {m: preds.get((qid, m)) for m in models if preds.get((qid, m)) in labels}
        voters = defaultdict(list)
        for m, a in valid.items():
            if a != key:
                voters[a].append(m)
        ranked = sorted(voters, key=lambda a: (-len(voters[a]), -len({families[m] for m in voters[a]}), a))
        top = ranked[0] if ranked else None
        c = len(voters[top]) if top else 0
        f = len({families[m] for m in voters[top]}) if top else 0
        if n < 2 or not valid:  # one model / no usable prediction: own buckets, never key consensus
            tier = None
        elif separate and len(valid) < n:
            tier = None
        elif c == 0:
            tier = 0
        elif c >= t1:
            tier = 1
        elif c >= t2:
            tier = 2
        elif c >= t3 and f >= 2:
            tier = 3
        elif c >= t3:
            tier = 4
        else:
            tier = 5
        out[qid] = {
            "tier": tier, "top_answer": top, "agreement_count": c, "agreeing_families": f,
            "n_valid": len(valid), "n_correct": sum(1 for a in valid.values() if a == key),
        }
    return out


class CliResult:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def run_cli(*args, db=None):
    """Run the real ``audit`` entry point (``audit.cli.main``) in-process,
    capturing stdout/stderr and the exit code (a subprocess would spend
    seconds importing the package for each call)."""
    import contextlib
    import io

    from audit.cli import main

    argv = ["audit", *map(str, args)] + (["--db", str(db)] if db is not None else [])
    out, err = io.StringIO(), io.StringIO()
    old = sys.argv
    sys.argv = argv
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main()
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.argv = old
    return CliResult(code, out.getvalue(), err.getvalue())
