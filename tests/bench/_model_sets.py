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
    from audit.analyze.keyerror import SplitPrior, fit_split_prior
    from audit.analyze.keyerror._training import training_domain

    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"split-priors-{tag}.json"
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


__all__ = ["Bench", "load_redux", "load_pro", "acceptance", "training", "subject_groups", "fit_config", "prepare",
           "fold_priors", "vote_shares", "TLUE4"]
