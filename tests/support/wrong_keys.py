"""A benchmark whose every 7th key most models reject, shared by the
evidence tests (``make_benchmark`` of ``tests.support.analyze_data`` stores it)."""
from __future__ import annotations

import random


def wrong_key_votes(n_items: int, per_subject: int, seed: int, n_models: int = 5):
    """``(questions, preds, fams, rng)`` for ``make_benchmark``: items
    ``q00``… with 4 options, key A, subject ``s{i // per_subject}``; models
    ``m0``… of families ``f0``…, each answering A with probability 0.85
    (else B, C or D at random); on every item with ``i % 7 == 3`` all models
    but the last agree on C (a key most models reject).  ``rng`` is the
    generator, for callers that draw more from the same sequence."""
    fams = {f"m{j}": f"f{j}" for j in range(n_models)}
    rng = random.Random(seed)
    questions, preds = [], {}
    for i in range(n_items):
        qid = f"q{i:02d}"
        questions.append((qid, 4, "A", f"s{i // per_subject}"))
        for m in fams:
            preds[(qid, m)] = "A" if rng.random() < 0.85 else rng.choice("BCD")
        if i % 7 == 3:                 # wrong keys: most models agree on another answer
            for j, m in enumerate(fams):
                preds[(qid, m)] = "C" if j < n_models - 1 else "A"
    return questions, preds, fams, rng
