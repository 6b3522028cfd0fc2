"""Throughput of answer extraction (audit.ingest.extract) on a realistic mix of
raw responses.  Not collected by pytest; run:

    python tests/bench/bench_extract.py [N]

Prints responses per second for CAA and DA.  The mix: bare letters, short
English and Chinese answers, Tibetan answers (Latin and Tibetan letters),
option echoes ("A. … B. … The answer is C"), markdown, and <think> traces.
"""
from __future__ import annotations

import random
import sys
import time

from audit.ingest.extract import extract_answers

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


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    data = make(n)
    chars = sum(map(len, data))
    for method in ("caa", "da"):
        t = time.perf_counter()
        res = extract_answers(data, 4, method)
        dt = time.perf_counter() - t
        valid = sum(r is not None for r in res)
        print(f"{method}: {n:,} responses ({chars / n:.0f} chars avg) in {dt:.2f} s = "
              f"{n / dt:,.0f} responses/s; valid {valid / n:.1%}")


if __name__ == "__main__":
    main()
