"""Simulated review campaigns, run through the library calls the workbench
makes (``next_for_reviewer`` / ``review_queue`` to pick the next item,
``item_view`` to open it, ``add_review`` to save the verdict), for the
reliability test and ``tests/bench/bench_campaign_reliability.py``.

* :func:`reliability_campaign` — 300 items with 30 known-answer items, three
  reviewers right 95%, 80% and 55% of the time; the known-answer items come
  at the campaign's rate.
* :func:`policy_campaign` — MMLU-Redux (``../shared/data/mmlu_redux_dev``),
  the experts' labels as truth (``wrong_groundtruth``: the key is wrong),
  three reviewers right 90% of the time: fixed double review of every Tier
  1–2 item against the weighted rule with second reviews by expected
  information gain, on a budget.
"""
from __future__ import annotations

import random
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from audit.ingest.storing import store_questions
from audit.review import add_gold, add_review, add_reviews, item_view, review_queue, settled_verdicts
from audit.review.queue import next_for_reviewer
from audit.review.reliability import gold_trajectory, reviewer_reliability
from audit.review.settings import set_required_reviews
from audit.review.trust import set_trust
from audit.store import connect, transaction
from audit.store.records import Option, Question
from audit.store.turns import keep_reads_open

LABELS = "ABCD"


def simulated_verdict(truth: str, key: str, right: bool, rng: random.Random) -> tuple[str, str | None]:
    """A reviewer's verdict on an item whose true opinion is ``truth``
    (``key_correct`` or ``key_wrong:X``): the truth when ``right``, else a
    wrong opinion drawn uniformly (another corrected answer, or the key
    called right)."""
    if right:
        return ("key_correct", None) if truth == "key_correct" else ("key_wrong", truth.split(":")[1])
    wrong = [("key_wrong", x) for x in LABELS if x != key and f"key_wrong:{x}" != truth]
    if truth != "key_correct":
        wrong.append(("key_correct", None))
    return rng.choice(wrong)


def _opinion(verdict: str, answer: str | None) -> str:
    return verdict + (f":{answer}" if answer else "")


# ---------------------------------------------------------------- small benchmarks

MODELS = ("qwen2.5-7b", "llama-3.1-8b", "gpt-4o-mini", "gemma-2-9b", "mistral-7b")


def analysed_benchmark(db: Path, n: int = 40, *, bench: str = "trust", seed: int = 0,
                       languages: tuple[str, ...] = ("bo", "zh")) -> dict[str, str]:
    """``n`` four-option items answered by five models and analysed (tiers
    and key-error scores): every third item's models mostly reject the key.
    Returns item → key."""
    from audit.analyze import analyze_benchmark
    from audit.ingest.models import register_models

    rng = random.Random(seed)
    qs, keys = [], {}
    for i in range(n):
        qid = f"t{i:03d}"
        key = LABELS[i % 4]
        lang = languages[i % len(languages)]
        qs.append(Question(bench, qid, f"Question {i} <b>?</b>", [Option(x, f"option {x} of {i}") for x in LABELS],
                           key, subject=("history", "grammar")[i % 2], language=lang,
                           script="Tibt" if lang == "bo" else "Hans"))
        keys[qid] = key
    rows = []
    for q in qs:
        other = next(x for x in LABELS if x != q.answer_key)
        reject = int(q.question_id[1:]) % 3 == 0
        for m in MODELS:
            a = other if (reject and rng.random() < 0.85) or (not reject and rng.random() < 0.1) else q.answer_key
            rows.append((bench, q.question_id, m, a, "given", True))
    with connect(db) as con, transaction(con):
        store_questions(con, bench, "questions", qs)
        register_models(con, list(MODELS))
        con.executemany("INSERT INTO predictions (benchmark, question_id, model, answer, method, valid) "
                        "VALUES (?, ?, ?, ?, ?, ?)", rows)
    analyze_benchmark(bench, db=db)
    return keys


# ---------------------------------------------------------------- reliability

@dataclass
class ReliabilityRun:
    db: Path
    accuracy: dict[str, float]
    table: pd.DataFrame
    trajectory: pd.DataFrame
    n_verdicts: int
    first_flag: dict[str, int | None] = field(default_factory=dict)


def build_campaign_benchmark(db: Path, *, n_items: int = 300, n_gold: int = 30, seed: int = 0,
                             bench: str = "campaign") -> tuple[dict[str, str], dict[str, str], list[str]]:
    """``n_items`` four-option items in two languages and three subjects, a
    fifth of them with a wrong key; returns (truth, key, gold ids)."""
    rng = random.Random(seed)
    truth, keys, qs = {}, {}, []
    for i in range(n_items):
        qid = f"c{i:04d}"
        key = rng.choice(LABELS)
        lang = ("bo", "zh")[i % 2]
        qs.append(Question(bench, qid, f"Question {i}", [Option(x, f"option {x} of {i}") for x in LABELS], key,
                           subject=("history", "grammar", "medicine")[i % 3], language=lang,
                           script="Tibt" if lang == "bo" else "Hans"))
        keys[qid] = key
        if rng.random() >= 0.2:
            truth[qid] = "key_correct"
        else:
            truth[qid] = f"key_wrong:{rng.choice([x for x in LABELS if x != key])}"
    with connect(db) as con, transaction(con):
        store_questions(con, bench, "questions", qs)
    gold = sorted(rng.sample(sorted(truth), n_gold))
    return truth, keys, gold


def reliability_campaign(db: Path, *, seed: int = 0, accuracy: dict[str, float] | None = None,
                         gold_rate: float = 0.2, bench: str = "campaign", lead: str = "Lead Dolkar",
                         admin: str | None = None) -> ReliabilityRun:
    """Run the campaign on a fresh database ``db`` whose reviewers (accounts
    named after their accuracy) are created by the caller or here (without
    accounts when ``admin`` is None)."""
    accuracy = accuracy or {"Reviewer 95": 0.95, "Reviewer 80": 0.80, "Reviewer 55": 0.55}
    truth, keys, gold = build_campaign_benchmark(db, seed=seed, bench=bench)
    set_required_reviews(other=2, actor=admin, db=db)
    set_trust(gold_rate=gold_rate, actor=admin, db=db)
    for qid in gold:
        t = truth[qid]
        add_gold(bench, qid, keys[qid] if t == "key_correct" else t.split(":")[1], actor=lead if admin else None,
                 db=db)
    rng = random.Random(seed + 1)
    after: dict[str, str | None] = {r: None for r in accuracy}
    active = list(accuracy)
    n = 0
    keep_reads_open(60)      # as the workbench does: reads share one connection between writes
    while active:
        for r in list(active):
            qid = next_for_reviewer(bench, r, after=after[r], tiers=None, db=db)
            if qid is None:
                active.remove(r)
                continue
            item_view(bench, qid, reviewer=r, db=db)           # the item page opens
            verdict, answer = simulated_verdict(truth[qid], keys[qid], rng.random() < accuracy[r], rng)
            add_review(bench, qid, r, verdict, corrected_answer=answer, source="workbench",
                       actor=r if admin else None, db=db)
            after[r] = qid
            n += 1
    keep_reads_open(0)
    # a lead settles the disputes with the truth
    q = review_queue(bench, tiers=None, status="disputed", db=db)
    for qid in q["question_id"]:
        v, a = simulated_verdict(truth[qid], keys[qid], True, rng)
        add_review(bench, qid, lead, v, corrected_answer=a, is_adjudication=True, source="workbench",
                   actor=lead if admin else None, db=db)
    table = reviewer_reliability(bench, db=db)
    traj = gold_trajectory(bench, db=db)
    first = {}
    for r in accuracy:
        t = traj[(traj["reviewer"] == r) & traj["flagged"]]
        first[r] = int(t["n_gold"].min()) if len(t) else None
    return ReliabilityRun(db, accuracy, table, traj, n, first)


# ---------------------------------------------------------------- policies

REVIEWERS = ("Reviewer A", "Reviewer B", "Reviewer C")


@dataclass
class PolicyRun:
    policy: str
    first_reviews: int
    second_reviews: int
    settled_wrong_keys: int          # true wrong keys settled as key wrong
    let_through: int                 # true wrong keys settled as key correct
    let_through_lone: int            # … of them on one verdict
    kept_unsettled_lone: int         # true wrong keys left unsettled with one key-correct verdict
    settled_items: int
    false_corrections: int           # right keys settled as key wrong
    settled_by: dict


def truth_of_redux(db: Path, bench: str = "mmlu-redux") -> tuple[pd.DataFrame, dict[str, str]]:
    """Tier 1–2 items of the current audit with the experts' label and the
    models' top answer; truth: ``key_wrong:<top answer>`` for
    ``wrong_groundtruth`` (the experts did not name the right answer; the
    models' top answer stands in for it), else ``key_correct``."""
    with connect(db, read_only=True) as con:
        df = con.execute("""
            SELECT a.question_id, a.tier, a.top_answer, q.answer_key, r.value AS error_type
            FROM current_audit a JOIN questions q USING (benchmark, question_id)
            JOIN reference_labels r USING (benchmark, question_id)
            WHERE a.benchmark = ? AND r.label_set = 'mmlu_redux_error_type' ORDER BY q.seq""", [bench]).df()
    truth = {}
    for r in df.itertuples():
        if r.error_type == "wrong_groundtruth":
            other = r.top_answer if isinstance(r.top_answer, str) and r.top_answer != r.answer_key else \
                next(x for x in LABELS if x != r.answer_key)
            truth[r.question_id] = f"key_wrong:{other}"
        else:
            truth[r.question_id] = "key_correct"
    return df, truth


def prepare_redux(template: Path, db: Path, *, n_gold: int = 40, seed: int = 0, bench: str = "mmlu-redux"):
    """Copy the analysed MMLU-Redux ``template`` to ``db`` and give the
    reviewers a record: ``n_gold`` known-answer items outside Tier 1–2
    (experts' label ``ok``: the key is right), answered by each reviewer
    (right 90% of the time)."""
    shutil.copyfile(template, db)
    df, truth = truth_of_redux(db, bench)
    rng = random.Random(seed)
    pool = sorted(df.loc[(~df["tier"].isin([1, 2])) & (df["error_type"] == "ok"), "question_id"])
    gold = rng.sample(pool, n_gold)
    keys = dict(zip(df["question_id"], df["answer_key"]))
    for qid in gold:
        add_gold(bench, qid, keys[qid], db=db)
    for r in REVIEWERS:
        rows = []
        for qid in gold:
            v, a = simulated_verdict("key_correct", keys[qid], rng.random() < 0.9, rng)
            rows.append({"question_id": qid, "reviewer": r, "verdict": v, "corrected_answer": a})
        add_reviews(bench, rows, source="workbench", db=db)
    return df, truth, keys


def policy_campaign(template: Path, db: Path, policy: str, *, seed: int = 0, budget: int | None = None,
                    bench: str = "mmlu-redux", accuracy: float = 0.9) -> PolicyRun:
    """One campaign over the Tier 1–2 items: every item a first review, then
    second reviews in the queue's order — ``fixed``: the count rule, two
    agreeing verdicts for every item; ``adaptive``: the weighted rule (one
    careful verdict with the evidence may settle), second reviews by
    expected information gain, at most ``budget`` of them.  The k-th
    verdict on an item is right or not by the same draw under both
    policies (common random numbers)."""
    df, truth, keys = prepare_redux(template, db, seed=seed, bench=bench)
    if policy == "adaptive":
        set_trust(rule="weighted", allow_lone=True, db=db)
        order = "information"
    elif policy == "fixed":
        set_trust(rule="count", db=db)
        order = "evidence"
    else:
        raise ValueError(policy)
    items = df.loc[df["tier"].isin([1, 2]), "question_id"].tolist()
    draws = random.Random(seed + 7)
    right = {q: [draws.random() < accuracy for _ in range(4)] for q in items}
    pick = {q: random.Random(f"{seed}:{q}") for q in items}
    n_given = {q: 0 for q in items}

    def give(qid: str, reviewer: str) -> None:
        v, a = simulated_verdict(truth[qid], keys[qid], right[qid][n_given[qid]], pick[qid])
        add_review(bench, qid, reviewer, v, corrected_answer=a, source="workbench", db=db)
        n_given[qid] += 1

    # first reviews, the reviewers taking turns, in the policy's order
    turn = 0
    while True:
        q = review_queue(bench, status="unreviewed", order=order, limit=1, db=db)
        if q.empty:
            break
        give(q["question_id"].iloc[0], REVIEWERS[turn % len(REVIEWERS)])
        turn += 1
    first = sum(n_given.values())
    # second (and later) reviews: the reviewers take turns, each taking the first item that needs them
    seconds, idle = 0, 0
    while (budget is None or seconds < budget) and idle < len(REVIEWERS):
        r = REVIEWERS[turn % len(REVIEWERS)]
        turn += 1
        q = review_queue(bench, status="needs_me", reviewer=r, order=order, limit=1, db=db)
        if q.empty:
            idle += 1
            continue
        idle = 0
        give(q["question_id"].iloc[0], r)
        seconds += 1
    rule = "weighted" if policy == "adaptive" else "count"
    s = settled_verdicts(bench, rule=rule, db=db)
    s = s[s["question_id"].isin(items)]
    with connect(db, read_only=True) as con:
        nv = dict(con.execute(
            "SELECT question_id, count(DISTINCT reviewer) FROM reviews WHERE benchmark = ? AND verdict <> 'skip' "
            "GROUP BY 1", [bench]).fetchall())
        only = dict(con.execute(
            "SELECT question_id, min(verdict) FROM reviews WHERE benchmark = ? AND verdict <> 'skip' "
            "GROUP BY 1 HAVING count(*) = 1", [bench]).fetchall())
    wrong = {q for q in items if truth[q] != "key_correct"}
    sw = s[s["question_id"].isin(wrong)]
    lone_kc = [q for q in wrong if q not in set(s["question_id"]) and only.get(q) == "key_correct"]
    return PolicyRun(
        policy=policy, first_reviews=first, second_reviews=seconds,
        settled_wrong_keys=int((sw["verdict"] == "key_wrong").sum()),
        let_through=int((sw["verdict"] == "key_correct").sum()),
        let_through_lone=int(((sw["verdict"] == "key_correct") & sw["question_id"].map(nv).eq(1)).sum()),
        kept_unsettled_lone=len(lone_kc),
        settled_items=int(len(s)),
        false_corrections=int(((s["verdict"] == "key_wrong") & ~s["question_id"].isin(wrong)).sum()),
        settled_by=s["settled_by"].value_counts().to_dict())


def redux_template(src: Path, path: Path) -> Path:
    """MMLU-Redux imported and analysed with the defaults, once."""
    from audit.analyze import analyze_benchmark
    from audit.ingest import import_mmlu_redux

    if not path.exists():
        import_mmlu_redux(src, db=path)
        analyze_benchmark("mmlu-redux", db=path)
    return path


__all__ = ["simulated_verdict", "analysed_benchmark", "MODELS", "build_campaign_benchmark", "reliability_campaign",
           "ReliabilityRun", "PolicyRun", "prepare_redux", "policy_campaign", "redux_template", "truth_of_redux",
           "REVIEWERS"]
