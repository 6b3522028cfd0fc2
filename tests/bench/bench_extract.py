"""Throughput and accuracy of answer extraction.
Not collected by pytest; run:

    python tests/bench/bench_extract.py [N]          # synthetic mix, every method
    python tests/bench/bench_extract.py --uzlib      # the 50 models' real Uzbek responses
    python tests/bench/bench_extract.py --compare [BASE_TREE] [N]   # this tree's extractor beside another's

``--compare`` (default base: /work/main, or $AUDIT_BASE_TREE) loads the base tree's
extractor (the package ``audit/ingest/extract/``, or the single module
``audit/ingest/_extract.py`` of older trees) under another module name and runs both on the
same responses in one process, alternating, best of 5 CPU times each: the
synthetic mix (every method) and, when ../shared/data is there, the 39,000
real uzlib responses with their options ("final").  It prints this tree's
time over the base's (1.00 = the same speed).

Synthetic mix: responses per second for every method (wall and CPU time —
the CPU figure is the one-core rate when the machine is shared).  The mix:
bare letters, short English and Chinese answers, Tibetan answers (Latin and
Tibetan letters), option echoes ("A. … B. … The answer is C"), markdown,
<think> traces.

``--uzlib`` (needs ../shared/data/uzlib_responses): per method, agreement
with the 150 responses labelled by reading (147 without UNSURE) and with the
benchmark's own extractor; the same on the second labelled sample
(tests/fixtures/uzlib_multilingual_gold.jsonl: 148 responses in other scripts
and long step-by-step answers, 141 without UNSURE), overall and per stratum;
per model, response rate and accuracy (against the reconstructed keys) under
each method, on all 39,000 responses and on the second sample; and the
throughput on those real responses.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import json
import os
import random
import sys
import time
from pathlib import Path

from audit.ingest.extract import extract_answer, extract_answers

TEMPLATES = [
    "{L}",
    "The answer is {L}.",
    "**Answer: ({L})**",
    "答案：{L}",
    "ལན་ཡང་དག་པ་ནི་ {L} ཡིན།",
    "ལན་ནི་{T}་རེད།",
    "A plant cell has a wall, so the correct option is {L}.",
    "A. ཞིང་ལས་ཐོན་སྐྱེད།\nB. ས་ཞིང་།\nC. ངལ་རྩོལ།\nD. དངུལ།\nThe answer is {L}.",
    "<think>Option A looks plausible, but B and D contradict the stem; C is a distractor. "
    "Comparing again, I settle on {L}.</think>\nFinal answer: {L}",
    "Reasoning\nCompare A with C.\nReasoned for 7 seconds\n\n{L}",
    "I am not sure; it could be {L} or maybe something else entirely. " * 3,
]


def make(n: int, seed: int = 0) -> list[str]:
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        i = rnd.randrange(4)
        out.append(rnd.choice(TEMPLATES).format(L="ABCD"[i], T="ཀཁགང"[i]))
    return out


METHODS = ("final", "caa", "da", "tlue-caa", "tlue-da")


def synthetic(n: int) -> None:
    data = make(n)
    chars = sum(map(len, data))
    print(f"load average {os.getloadavg()[0]:.1f}")
    for method in METHODS:
        dt = dc = float("inf")
        for _ in range(3):   # the best of three runs: the figure least disturbed by other work on the machine
            t, c = time.perf_counter(), time.process_time()
            res = extract_answers(data, 4, method)
            dt, dc = min(dt, time.perf_counter() - t), min(dc, time.process_time() - c)
        valid = sum(r is not None for r in res)
        print(f"{method:>8}: {n:,} responses ({chars / n:.0f} chars avg) in {dt:.2f} s (best of 3) = "
              f"{n / dt:,.0f} responses/s wall, {n / dc:,.0f}/s CPU; valid {valid / n:.1%}")


def uzlib() -> None:
    root = Path(__file__).resolve().parents[3] / "shared" / "data" / "uzlib_responses"
    root = Path(os.environ.get("AUDIT_SHARED_DATA", root.parent)) / "uzlib_responses"
    if not root.exists():
        sys.exit(f"needs {root}")
    load = lambda name: [json.loads(x) for x in (root / name).read_text("utf-8").splitlines()]  # noqa: E731
    qs = {q["id"]: q for q in load("questions.jsonl")}
    resp = load("responses.jsonl")
    upstream = {(u["question_id"], u["model"]): u["upstream_pred"] for u in load("upstream_extractor.jsonl")}
    gold = [g for g in load("gold.jsonl") if g["gold"] != "UNSURE"]
    gexp = [None if g["gold"] == "NONE" else g["gold"] for g in gold]
    opts = [[qs[r["question_id"]][k] for k in "ABCD"] for r in resp]
    texts = [r["response"] for r in resp]
    print(f"load average {os.getloadavg()[0]:.1f}; {len(resp):,} responses of "
          f"{len({r['model'] for r in resp})} models, {sum(len(t or '') for t in texts) / len(texts):.0f} chars avg")
    letters = {}
    print("\nmethod     gold agreement        = upstream extractor   responses/s (CPU)")
    for m in METHODS:
        g = extract_answers([x["response"] for x in gold], 4, m, options=[[x["labels"][k] for k in "ABCD"]
                                                                       for x in gold])
        agree = sum(a == b for a, b in zip(g, gexp))
        c = time.process_time()
        letters[m] = extract_answers(texts, 4, m, options=opts)
        dc = time.process_time() - c
        up = sum(a == upstream.get((r["question_id"], r["model"])) for a, r in zip(letters[m], resp))
        print(f"{m:>8}   {agree:>3}/{len(gold)} = {agree / len(gold):6.1%}   {up / len(resp):6.1%}"
              f"            {len(resp) / dc:,.0f}")
    up_letters = [upstream.get((r["question_id"], r["model"])) for r in resp]
    print("\nper model: response rate / accuracy (correct / all items, reconstructed keys)")
    models = sorted({r["model"] for r in resp})
    head = "".join(f"{m:>16}" for m in ("final", "caa", "da", "tlue-caa", "upstream"))
    print(f"{'model':<40}{head}")
    for model in models:
        idx = [i for i, r in enumerate(resp) if r["model"] == model]
        cells = []
        for m in ("final", "caa", "da", "tlue-caa", "upstream"):
            got = up_letters if m == "upstream" else letters[m]
            n = len(idx)
            valid = sum(got[i] is not None for i in idx)
            correct = sum(got[i] == qs[resp[i]["question_id"]]["answer"] for i in idx)
            cells.append(f"{valid / n:6.1%} / {correct / n:5.1%}")
        print(f"{model[:39]:<40}" + "".join(f"{c:>16}" for c in cells))
    labelled_sample(resp, qs, upstream, "uzlib_multilingual_gold.jsonl", "second labelled sample")
    labelled_sample(resp, qs, upstream, "uzlib_heldout_gold.jsonl", "third labelled sample (held out)")
    multilingual(root.parent)


STRATA = {"cyr": "Cyrillic", "ar": "Arabic script", "cjk": "CJK", "en": "English", "long": "long / step-by-step",
          "other": "other"}


def labelled_sample(resp: list[dict], qs: dict, upstream: dict, fixture_name: str, title: str) -> None:
    """Agreement per method on a labelled sample in tests/fixtures, per
    stratum, and per model response rate / accuracy on it (labels: the reading)."""
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / fixture_name
    labels = [json.loads(x) for x in fixture.read_text("utf-8").splitlines()]
    by_key = {(r["question_id"], r["model"]): r["response"] for r in resp}
    rows = [g for g in labels if g["gold"] != "UNSURE"]
    texts = [by_key[(g["question_id"], g["model"])] for g in rows]
    opts = [[qs[g["question_id"]][k] for k in "ABCD"] for g in rows]
    exp = [None if g["gold"] == "NONE" else g["gold"] for g in rows]
    strata = [k for k in STRATA if any(g["stratum"] == k for g in rows)]
    print(f"\n{title}: {len(labels)} responses, {len(rows)} certain "
          f"({len(labels) - len(rows)} UNSURE left out), {sum(e is None for e in exp)} labelled NONE")
    got = {m: extract_answers(texts, 4, m, options=opts) for m in METHODS}
    got["upstream"] = [upstream.get((g["question_id"], g["model"])) for g in rows]
    head = "".join(f"{STRATA[k][:13]:>15}" for k in strata)
    print(f"{'method':<10}{'all':>15}{head}")
    for m, letters in got.items():
        cells = []
        for k in [None, *strata]:
            idx = [i for i, g in enumerate(rows) if k is None or g["stratum"] == k]
            ok = sum(letters[i] == exp[i] for i in idx)
            cells.append(f"{ok}/{len(idx)} {ok / len(idx):4.0%}")
        print(f"{m:<10}" + "".join(f"{c:>15}" for c in cells))
    print(f"\nper model on the {title.split(' (')[0]}: response rate / accuracy (reconstructed keys); "
          "'read' = the labels.  Fewer than 10 responses: too few to mean anything (marked *)")
    cols = ("read", "final", "caa", "da", "upstream")
    print(f"{'model':<40}{'n':>4}" + "".join(f"{c:>16}" for c in cols))
    for model in sorted({g["model"] for g in rows}):
        idx = [i for i, g in enumerate(rows) if g["model"] == model]
        cells = []
        for c in cols:
            letters = exp if c == "read" else got[c]
            valid = sum(letters[i] is not None for i in idx)
            correct = sum(letters[i] == qs[rows[i]["question_id"]]["answer"] for i in idx)
            cells.append(f"{valid / len(idx):4.0%} / {correct / len(idx):4.0%}")
        flag = "*" if len(idx) < 10 else " "
        print(f"{model[:39]:<40}{len(idx):>3}{flag}" + "".join(f"{c:>16}" for c in cells))


def multilingual(shared: Path) -> None:
    """Agreement per method on the LLM responses in Chinese, Tibetan, Uyghur
    and Kazakh (tests/fixtures/multilingual_llm_gold.jsonl), per labelled set
    and per language, with the response rate each method reads against the
    rate read by the labeller."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    os.environ.setdefault("AUDIT_SHARED_DATA", str(shared))
    import tests.ingest.extract.test_final as t  # one reader of the fixture and of the options shown (shared data)

    rows = t._llm_rows(("own", "cmmlu", "tlue"))
    print(f"\nmultilingual LLM responses: {len(rows)} certain, {sum(r['truncated'] for r in rows)} cut off, "
          f"{sum(r['expected'] is None for r in rows)} labelled NONE")
    langs = ("zh-hans", "zh-hant", "bo", "ug", "kk")
    print(f"{'method':<10}{'all':>14}" + "".join(f"{'set ' + str(k):>14}" for k in (2, 3, 4, 5))
          + "".join(f"{x:>14}" for x in langs) + f"{'response rate':>16}")
    read_rate = sum(r["expected"] is not None for r in rows) / len(rows)
    for m in METHODS:
        got = [extract_answer(r["response"], r["n"], m, r["options"] if m == "final" else None) for r in rows]
        cells = []
        for keep in [lambda r: True] + [lambda r, k=k: r["set"] == k for k in (2, 3, 4, 5)] + \
                [lambda r, x=x: r["lang"] == x for x in langs]:
            idx = [i for i, r in enumerate(rows) if keep(r)]
            ok = sum(got[i] == rows[i]["expected"] for i in idx)
            cells.append(f"{ok}/{len(idx)} {ok / len(idx):4.0%}")
        rate = sum(g is not None for g in got) / len(rows)
        print(f"{m:<10}" + "".join(f"{c:>14}" for c in cells) + f"{rate:>10.1%} (read {read_rate:.1%})")


class _Renamed(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Loads the modules of another tree's ``audit/ingest/extract/`` as ``base_extract.*``: their source
    with ``audit.ingest.extract`` renamed, so that they import each other, not this tree's modules (never
    cached as bytecode: the rewritten code must not reach that tree's ``__pycache__``)."""

    def __init__(self, folder: Path):
        self.folder = folder

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "base_extract" and not fullname.startswith("base_extract."):
            return None
        if fullname == "base_extract":
            return importlib.util.spec_from_loader(fullname, self, origin=str(self.folder / "__init__.py"),
                                                   is_package=True)
        return importlib.util.spec_from_loader(fullname, self,
                                               origin=str(self.folder / (fullname.split(".", 1)[1] + ".py")))

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        source = Path(module.__spec__.origin).read_text(encoding="utf-8")
        if module.__spec__.submodule_search_locations is not None:
            module.__path__ = [str(self.folder)]
        code = compile(source.replace("audit.ingest.extract", "base_extract"), module.__spec__.origin, "exec")
        exec(code, module.__dict__)


def _load_base(tree: Path):
    folder = tree / "audit" / "ingest" / "extract"
    if (folder / "__init__.py").is_file():
        sys.meta_path.insert(0, _Renamed(folder))
        return importlib.import_module("base_extract")
    spec = importlib.util.spec_from_file_location("base_extract", tree / "audit" / "ingest" / "_extract.py")
    if spec is None or spec.loader is None:
        sys.exit(f"no extractor in {tree}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compare(base_tree: Path, n: int) -> None:
    """This tree's extraction time over the base tree's, on the same responses, in one run."""
    import audit.ingest.extract as mine

    base = _load_base(base_tree)
    data = make(n)
    runs = [(m, f"synthetic {n:,}", data, None) for m in METHODS]
    root = Path(os.environ.get("AUDIT_SHARED_DATA", Path(__file__).resolve().parents[3] / "shared" / "data"))
    if (root / "uzlib_responses").exists():
        load = lambda name: [json.loads(x) for x in (root / "uzlib_responses" / name).read_text("utf-8").splitlines()]  # noqa: E731
        qs = {q["id"]: q for q in load("questions.jsonl")}
        resp = load("responses.jsonl")
        runs.append(("final", f"uzlib {len(resp):,} + options", [r["response"] for r in resp],
                     [[qs[r["question_id"]][k] for k in "ABCD"] for r in resp]))
    print(f"load average {os.getloadavg()[0]:.1f}; base {base_tree}")
    print(f"{'method':>8}  {'responses':<26}{'base s':>8}{'this s':>8}{'ratio':>8}")
    total_b = total_m = 0.0
    for method, label, texts, opts in runs:
        tb = tm = float("inf")
        for _ in range(5):   # alternate, best of 5 CPU times: the least disturbed by other work
            for mod in (base, mine):
                c = time.process_time()
                mod.extract_answers(texts, 4, method, options=opts)
                d = time.process_time() - c
                if mod is base:
                    tb = min(tb, d)
                else:
                    tm = min(tm, d)
        total_b += tb
        total_m += tm
        print(f"{method:>8}  {label:<26}{tb:8.2f}{tm:8.2f}{tm / tb:8.2f}")
    print(f"{'all':>8}  {'':<26}{total_b:8.2f}{total_m:8.2f}{total_m / total_b:8.2f}")


def main() -> None:
    if "--compare" in sys.argv:
        args = [a for a in sys.argv[1:] if a != "--compare"]
        tree = Path(next((a for a in args if not a.isdigit()), os.environ.get("AUDIT_BASE_TREE", "/work/main")))
        compare(tree, int(next((a for a in args if a.isdigit()), 50_000)))
    elif "--uzlib" in sys.argv:
        uzlib()
    else:
        synthetic(int(sys.argv[1]) if len(sys.argv) > 1 else 200_000)


if __name__ == "__main__":
    main()
