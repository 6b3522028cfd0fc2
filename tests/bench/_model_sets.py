"""Shared by the model-set benches: the two expert-labelled sets as arrays,
the configurations of model sets (the acceptance's and the training ones),
the key-error fit on each, and the split's priors fitted by groups of
subjects (held out).  Not collected by pytest.

* ``mmlu_redux_dev`` (14 HELM models, 1,500 items, 35 wrong keys) and
  ``mmlu_pro_dev`` (30 MMLU-Pro models, 835 of those items, 19 wrong keys);
  truth = the experts' ``wrong_groundtruth`` labels, never an input.
* Training configurations (98): weakest-k, strongest-k, random k = 3–8 (4
  seeds from 100), one strong model among weak ones, the middle of the range
  — on both sets; acceptance configurations (25): the issue's list.
* :func:`fold_priors`: for each of 5 groups of 3 subjects, the split fitted
  (:func:`audit.analyze.keyerror.fit_split_prior`) on the training
  configurations' labels of the *other* 12 subjects; cached as JSON under
  ``$AUDIT_BENCH_CACHE`` (default: the system's temporary folder), since one
  fit takes minutes.
"""
from __future__ import annotations

import ast
import json
import os
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("AUDIT_SHARED_DATA", REPO.parent / "shared" / "data"))
CACHE = Path(os.environ.get("AUDIT_BENCH_CACHE", Path(tempfile.gettempdir()) / "audit-bench-cache"))
LETTERS = "ABCDEFGHIJ"
TLUE4 = ["Qwen1.5-72B-Chat", "Meta-Llama-3_1-70B-Instruct", "gemini-1.5-flash-002", "gemini-1.5-pro-002"]
LEVEL_STRENGTH, S_STRENGTH = 60.0, 20.0


@dataclass
class Bench:
    """One labelled set: per item qid, subject, key (index), K, wrong; Y
    items × models answers (−1: none usable); the models and families."""

    name: str
    qid: np.ndarray
    subject: np.ndarray
    key: np.ndarray
    K: np.ndarray
    wrong: np.ndarray
    Y: np.ndarray
    models: list
    family: list

    @property
    def n(self) -> int:
        return len(self.key)

    def pick_models(self, names) -> "Bench":
        idx = [self.models.index(m) for m in names]
        return replace(self, Y=self.Y[:, idx], models=[self.models[i] for i in idx],
                       family=[self.family[i] for i in idx])

    def accuracy(self) -> np.ndarray:
        return (self.Y == self.key[:, None]).mean(0)


def _letter(v, k: int = 4) -> int:
    if isinstance(v, str) and len(v.strip()) == 1 and v.strip().upper() in LETTERS[:k]:
        return LETTERS.index(v.strip().upper())
    return -1


def load_redux(path: Path = SHARED / "mmlu_redux_dev") -> Bench:
    from audit.ingest.models import infer_family

    qid, subj, key, wrong, rows = [], [], [], [], []
    models = None
    for f in sorted(path.glob("*.csv")):
        df = pd.read_csv(f, dtype=str, keep_default_na=False)
        models = list(df.columns[4:]) if models is None else models
        for i, rec in enumerate(df.to_dict("records")):
            assert len(ast.literal_eval(rec["choices"])) == 4
            qid.append(f"{f.stem}/{i}")
            subj.append(f.stem)
            key.append(int(rec["groundtruth_answer"]))
            wrong.append(rec["error_type"].strip() == "wrong_groundtruth")
            rows.append([_letter(rec[m]) for m in models])
    n = len(key)
    return Bench("mmlu_redux_dev", np.array(qid), np.array(subj), np.array(key), np.full(n, 4), np.array(wrong),
                 np.array(rows, dtype=np.int64), list(models), [infer_family(m) for m in models])


def load_pro(path: Path = SHARED / "mmlu_pro_dev") -> Bench:
    from audit.ingest.models import infer_family

    q = pd.read_json(path / "questions.jsonl", lines=True, dtype={"id": str})
    lab = pd.read_csv(path / "labels.csv", dtype={"question_id": str})
    p = pd.read_parquet(path / "predictions.parquet")
    p["question_id"] = p["question_id"].astype(str)
    models = sorted(p["model"].unique())
    pos = pd.Series(np.arange(len(q)), index=q["id"].astype(str))
    Y = np.full((len(q), len(models)), -1, dtype=np.int64)
    mi = pd.Series(np.arange(len(models)), index=models)
    Y[pos[p["question_id"]].to_numpy(), mi[p["model"]].to_numpy()] = [_letter(a) for a in p["answer"]]
    wrong = q["id"].astype(str).map(lab.set_index("question_id")["error_type"].eq("wrong_groundtruth")).to_numpy(bool)
    return Bench("mmlu_pro_dev", q["id"].astype(str).to_numpy(), q["subject"].str.replace("mmlu-", "").to_numpy(),
                 np.array([LETTERS.index(a) for a in q["answer"]]), np.full(len(q), 4), wrong, Y, models,
                 [infer_family(m) for m in models])


def _rand(models, k: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    return [models[i] for i in sorted(rng.choice(len(models), size=k, replace=False))]


def acceptance(pro: Bench, red: Bench) -> list[tuple[str, Bench]]:
    """(name, Bench) for every configuration of the acceptance."""
    o = np.argsort(pro.accuracy(), kind="stable")
    out = [("pro/all30", pro),
           ("pro/no-unnamed29", pro.pick_models([m for m in pro.models if m != "unnamed-2026-02"])),
           ("pro/weakest8", pro.pick_models([pro.models[i] for i in o[:8]])),
           ("pro/tlue4", pro.pick_models(TLUE4))]
    out += [(f"pro/rand{k}-s{s}", pro.pick_models(_rand(pro.models, k, s))) for k in (4, 6, 8) for s in range(5)]
    out.append(("redux/all14", red))
    out += [(f"redux/rand4-s{s}", red.pick_models(_rand(red.models, 4, s))) for s in range(5)]
    return out


def training(pro: Bench, red: Bench) -> list[tuple[str, Bench]]:
    """The 98 training configurations (seeds 100+, unlike the acceptance's)."""
    out = []
    for b, tag in ((pro, "pro"), (red, "redux")):
        o = list(np.argsort(b.accuracy(), kind="stable"))
        J = len(o)
        for k in ([3, 4, 5, 6, 8, 10, 15, 20] if tag == "pro" else [3, 4, 5, 6, 8, 10]):
            if k < J:
                out.append((f"{tag}/weakest{k}", b.pick_models([b.models[i] for i in o[:k]])))
                out.append((f"{tag}/strongest{k}", b.pick_models([b.models[i] for i in o[-k:]])))
        out += [(f"{tag}/rand{k}-s{s}", b.pick_models(_rand(b.models, k, s))) for k in range(3, 9)
                for s in range(100, 104)]
        for k in (3, 4, 6, 8):
            out.append((f"{tag}/strong1+weak{k - 1}", b.pick_models([b.models[i] for i in [o[-1]] + o[:k - 1]])))
            out.append((f"{tag}/second1+weak{k - 1}", b.pick_models([b.models[i] for i in [o[-2]] + o[:k - 1]])))
        if tag == "pro":
            mid = o[8:22]
            for k in (4, 6, 8):
                out.append((f"{tag}/middle{k}", b.pick_models([b.models[i] for i in mid[:k]])))
                out.append((f"{tag}/upper-middle{k}", b.pick_models([b.models[i] for i in mid[-k:]])))
    return out


def subject_groups(subjects, folds: int = 5, seed: int = 0) -> list[list[str]]:
    """The subjects in ``folds`` groups (a seeded shuffle)."""
    subs = sorted(set(subjects))
    perm = list(np.random.default_rng(seed).permutation(subs))
    return [sorted(perm[i::folds]) for i in range(folds)]


def fit_config(b: Bench):
    """The key-error fit on a configuration's answers (the library, on arrays)."""
    from audit.analyze.keyerror import fit_key_error

    i, j = np.nonzero(b.Y >= 0)
    _, subj = np.unique(b.subject, return_inverse=True)
    fams = sorted(set(b.family))
    return fit_key_error(i, j, b.Y[i, j], b.K, b.key, subject=subj, family=[fams.index(f) for f in b.family],
                         n_models=b.Y.shape[1], n_subjects=int(subj.max()) + 1)


def prepare(name: str, b: Bench, fit, mask) -> dict:
    """What :func:`audit.analyze.keyerror.fit_split_prior` takes for one configuration."""
    _, subj = np.unique(b.subject, return_inverse=True)
    return {"p": np.clip(fit.p_reject, 0, 1), "v": fit.evidence_share, "t": fit.top_holds,
            "eps_s": fit.subject_rate[subj], "y": b.wrong, "mask": np.asarray(mask, bool), "set": name.split("/")[0],
            "acc": fit.features["accuracy"], "features": fit.features}


def _prior_json(pr) -> dict:
    return {k: getattr(pr, k) for k in pr.__dataclass_fields__}


def fold_priors(train: list[tuple[str, Bench]], groups: list[list[str]], *, tag: str = "folds",
                log=print) -> list:
    """One SplitPrior per group of subjects, fitted without that group's labels (cached)."""
    import hashlib
    import inspect

    import audit.analyze.keyerror._model as km
    import audit.analyze.keyerror._split as ks
    import audit.analyze.keyerror._training as kt
    from audit.analyze.keyerror import SplitPrior, fit_split_prior
    from audit.analyze.keyerror._training import training_domain

    CACHE.mkdir(parents=True, exist_ok=True)
    # a fit made by other code is not reused: the cache's name carries a hash of the code that fits
    code = hashlib.sha256("".join(inspect.getsource(m) for m in (km, ks, kt)).encode()).hexdigest()[:12]
    path = CACHE / f"split-priors-{tag}-{code}.json"
    if path.exists():
        return [SplitPrior(**{k: (tuple(v) if k != "domain" else {kk: tuple(vv) for kk, vv in v.items()})
                              if isinstance(v, list) else v for k, v in d.items()})
                for d in json.loads(path.read_text())]
    fits = [(name, b, fit_config(b)) for name, b in train]
    domain = training_domain([f.features for _, _, f in fits])
    out = []
    for g in groups:
        data = [prepare(name, b, f, ~np.isin(b.subject, g)) for name, b, f in fits]
        pr, info = fit_split_prior(data, base_strength=LEVEL_STRENGTH, s_strength=S_STRENGTH, domain=domain)
        log(f"  prior without {', '.join(g)}: π {pr.base_rate:.4f}, s {pr.sensitivity:.3f}, β1 "
            f"{pr.strength_slope:.2f}, β0 {pr.held_slope:.2f}, β2 {pr.top_slope:.2f}, β1' {pr.slope_by_accuracy:.2f}, "
            f"s' {pr.sensitivity_by_accuracy:.2f} (nll {info['nll']:.2f}, converged {info['ok']})")
        out.append(pr)
    path.write_text(json.dumps([_prior_json(p) for p in out], default=list))
    return out


def vote_shares(Y: np.ndarray, key: np.ndarray, k: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """The two baselines: the share of usable answers disagreeing with the key,
    and the Cleanlab-style normalised margin (key's share − the largest
    other share)."""
    n = len(key)
    C = np.zeros((n, k))
    i, j = np.nonzero(Y >= 0)
    np.add.at(C, (i, Y[i, j]), 1)
    tot = C.sum(1)
    kshare = np.where(tot > 0, C[np.arange(n), key] / np.maximum(tot, 1), 1.0)
    other = C.copy()
    other[np.arange(n), key] = -1
    oshare = np.where(tot > 0, other.max(1) / np.maximum(tot, 1), 0.0)
    return 1.0 - kshare, kshare - oshare


BANDS = (0.0, 0.02, 0.1, 0.3, 0.6, 0.9, 1.0)


def average_precision(score, y) -> float:
    """AP = Σ_k (R_k − R_{k−1})·P_k over the distinct score thresholds (ties
    together, as scikit-learn's ``average_precision_score``)."""
    s = np.asarray(score, dtype=float)
    yy = np.asarray(y, dtype=bool)
    order = np.argsort(-s, kind="stable")
    s, yy = s[order], yy[order]
    last = np.r_[np.nonzero(np.diff(s))[0], len(s) - 1]
    tp = np.cumsum(yy)[last]
    return float(np.sum(np.diff(np.r_[0.0, tp / max(yy.sum(), 1)]) * tp / (last + 1))) if yy.any() else float("nan")


def bands(score, y) -> list[tuple[float, float, int, float, float]]:
    """(low, high, n, mean score, share wrong) per score band with items."""
    p, o = np.asarray(score, float), np.asarray(y, bool)
    e = np.asarray(BANDS)
    b = np.clip(np.searchsorted(e, p, side="right") - 1, 0, len(e) - 2)
    return [(float(e[k]), float(e[k + 1]), int((b == k).sum()), float(p[b == k].mean()), float(o[b == k].mean()))
            for k in np.unique(b)]


def fold_split(b: Bench, fit, prior):
    """The configuration's split under one fold's prior, as the analysis
    makes it (the prior widened when the set lies outside its domain)."""
    from audit.analyze.keyerror import extrapolation, split

    _, subj = np.unique(b.subject, return_inverse=True)
    use = prior.widened() if extrapolation(fit.features, prior.domain) else prior
    return split(np.clip(fit.p_reject, 0, 1), fit.evidence_share, fit.top_holds, fit.subject_rate[subj], use,
                 accuracy=fit.features["accuracy"])


def evaluate(name: str, b: Bench, groups: list[list[str]], priors: list, *, n_draws: int = 1000,
             seed: int = 0) -> dict:
    """Held-out figures of one configuration: each group of subjects scored
    with the split fitted without its labels.  The count's 90% interval and
    each model's cost (posterior mean of its accuracy on right-key items
    minus its accuracy, points) by ``n_draws`` draws of which keys are wrong,
    with one (π, s) quantile shared by the folds (one benchmark, one level);
    AP with each fold's prior ranking the whole configuration (a benchmark
    is ranked with one prior; the lowest of the five is reported) beside
    the two baselines."""
    from scipy.stats import beta as beta_dist

    from audit.analyze.keyerror import extrapolation, level_offset

    fit = fit_config(b)
    n, y = b.n, b.wrong
    fold = np.full(n, -1)
    for f, g in enumerate(groups):
        fold[np.isin(b.subject, g)] = f
    whole = [fold_split(b, fit, pr) for pr in priors]
    score = np.zeros(n)
    for f, sp in enumerate(whole):
        score[fold == f] = sp.score[fold == f]
    rng = np.random.default_rng(seed)
    u, v = rng.random(n_draws), rng.random(n_draws)
    Q = np.zeros((n_draws, n))
    for f, sp in enumerate(whole):
        pi, s = beta_dist.ppf(u, sp.pi_a, sp.pi_b), beta_dist.ppf(v, sp.s_a, sp.s_b)
        M = s[:, None] * sp.h1[None, :] + (1 - s)[:, None] * sp.h0[None, :]
        a = level_offset(M, pi * n)
        with np.errstate(divide="ignore"):
            Q[:, fold == f] = 1 / (1 + np.exp(-(a[:, None] + np.log(M[:, fold == f]))))
    W = rng.random(Q.shape) < Q
    lo, hi = np.quantile(W.sum(1), [0.05, 0.95])
    C = (b.Y == b.key[:, None]).astype(float)
    acc = C.mean(0)
    expert = (C[~y].sum(0) / (~y).sum() - acc) * 100
    acc_right = (C.sum(0)[None, :] - W.astype(float) @ C) / (n - W.sum(1, keepdims=True))
    cost = (acc_right.mean(0) - acc) * 100
    dis, margin = vote_shares(b.Y, b.key)
    base = max(average_precision(dis, y), average_precision(-margin, y))
    aps = [average_precision(sp.score, y) for sp in whole]
    bd = bands(score, y)
    est = float(score.sum())
    return {"name": name, "n_models": b.Y.shape[1], "experts": int(y.sum()), "estimate": est, "low": float(lo),
            "high": float(hi), "rel_err": est / y.sum() - 1, "cost_err": float(np.abs(cost - expert).max()),
            "expert_cost": expert, "cost": cost, "bands": bd,
            "band_err": max((abs(m - w) for _, _, k, m, w in bd if k >= 20), default=0.0),
            "ap": float(np.mean(aps)), "ap_min": float(np.min(aps)), "ap_base": float(base),
            "extrapolation": [c for c, _ in extrapolation(fit.features, priors[0].domain)]}


def targets(r: dict) -> list[str]:
    """The acceptance targets a configuration misses (empty: all held)."""
    miss = []
    if not r["low"] <= r["experts"] <= r["high"]:
        miss.append("interval")
    if abs(r["rel_err"]) > 0.4:
        miss.append("count ±40%")
    if r["cost_err"] > 0.5:
        miss.append("cost ±0.5")
    if r["band_err"] > 0.15:
        miss.append("band 0.15")
    if r["name"] != "pro/weakest8" and r["ap_min"] < r["ap_base"]:
        miss.append("AP")
    return miss


def heldout_setup(log=print) -> tuple[Bench, Bench, list, list]:
    """(pro, redux, the 5 groups of subjects, the split fitted without each group)."""
    pro, red = load_pro(), load_redux()
    groups = subject_groups(red.subject, 5)
    return pro, red, groups, fold_priors(training(pro, red), groups, log=log)


__all__ = ["Bench", "load_redux", "load_pro", "acceptance", "training", "subject_groups", "fit_config", "prepare",
           "fold_priors", "vote_shares", "TLUE4", "average_precision", "bands", "fold_split", "evaluate", "targets",
           "heldout_setup"]
