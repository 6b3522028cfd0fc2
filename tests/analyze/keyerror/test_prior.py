"""audit.analyze.keyerror._prior: the evidence log likelihood ratios (the
stated assumptions) and the agreement share."""
import math

import numpy as np
import pytest

from audit.analyze.keyerror._prior import (
    LLR_DUPLICATE_OPTIONS,
    LLR_PARALLEL_MATCH,
    LLR_PARALLEL_MISMATCH,
    agreement_share,
)


def test_evidence_ratios_are_the_stated_assumptions():
    assert math.exp(LLR_PARALLEL_MISMATCH) == pytest.approx(0.5 / 0.1)
    assert math.exp(LLR_PARALLEL_MATCH) == pytest.approx(0.5 / 0.9)
    assert math.exp(LLR_DUPLICATE_OPTIONS) == pytest.approx(3.0)


def test_agreement_share_ignores_the_key_and_letters_past_the_item():
    counts = np.array([
        [2, 5, 1, 0, 0, 0],     # key A: top other B (5) of 8
        [0, 0, 0, 0, 0, 0],     # no answers
        [1, 1, 0, 0, 0, 7],     # key A, only 4 options: the F column is not an option of the item
        [0, 0, 0, 0, 0, 10],    # 6 options, key F: every model on the key
    ])
    x = agreement_share(counts, [0, 1, 0, 5], [4, 4, 4, 6])
    assert x.tolist() == pytest.approx([5 / 8, 0.0, 1 / 9, 0.0])


def test_agreement_share_without_columns():
    assert agreement_share(np.zeros((3, 0)), [0, 0, 0], [4, 4, 4]).tolist() == [0.0, 0.0, 0.0]
