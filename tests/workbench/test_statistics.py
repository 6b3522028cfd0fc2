"""The figures the dashboards show are the library's: the kappa masking of
:func:`audit.review.reviewer_agreement` (``min_items``), the control table of
:func:`audit.analyze.scenarios.scenario_summary`, the role ladder of
:func:`audit.accounts.roles.role_allows` and the CSV bytes of
:func:`audit.export.csv_bytes` — each checked against an independent
computation."""
from __future__ import annotations

import io
import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from audit.accounts import ROLES
from audit.accounts.roles import role_allows
from audit.analyze.scenarios import scenario_summary
from audit.errors import AuditError
from audit.export import csv_bytes
from audit.ingest.storing import store_questions
from audit.review import add_review, reviewer_agreement
from audit.review.agreement import MIN_KAPPA_ITEMS
from audit.store import connect, transaction
from audit.store.records import Option, Question


def closed_form_kappa(a: list[str], b: list[str]) -> float:
    """Cohen's kappa, (p_o − p_e) / (1 − p_e), by hand."""
    n = len(a)
    po = sum(x == y for x, y in zip(a, b)) / n
    ca, cb = Counter(a), Counter(b)
    pe = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / n ** 2
    return (po - pe) / (1 - pe)


@pytest.fixture
def db(db_path, monkeypatch):
    monkeypatch.delenv("WORKBENCH_LEADS", raising=False)
    qs = [Question("bench", f"q{i:02d}", f"stem {i}", [Option(x, f"{x}{i}") for x in "ABCD"], "A")
          for i in range(1, 16)]
    with connect(db_path) as con, transaction(con):
        store_questions(con, "bench", "questions", qs)
    return db_path


def test_kappa_of_a_pair_on_too_few_items_is_masked(db):
    # ann and bo share 12 items (enough), ann and cy 4 (too few for a kappa)
    ann = ["key_correct", "ambiguous", "key_correct", "defective", "key_correct", "ambiguous",
           "key_correct", "key_correct", "defective", "key_correct", "ambiguous", "key_correct"]
    bo = ["key_correct", "ambiguous", "ambiguous", "defective", "key_correct", "key_correct",
          "key_correct", "key_correct", "defective", "key_correct", "ambiguous", "defective"]
    cy = ["key_correct", "key_correct", "key_correct", "defective"]
    for who, labels in (("ann", ann), ("bo", bo), ("cy", cy)):
        for i, verdict in enumerate(labels, start=1):
            add_review("bench", f"q{i:02d}", who, verdict, db=db)

    raw = reviewer_agreement("bench", db=db)
    masked = reviewer_agreement("bench", min_items=MIN_KAPPA_ITEMS, db=db)
    assert MIN_KAPPA_ITEMS == 10 and masked.min_items == MIN_KAPPA_ITEMS
    by = masked.pairs.set_index(["rater_a", "rater_b"])
    assert by.loc[("ann", "bo"), "n"] == 12 and by.loc[("ann", "cy"), "n"] == 4
    assert by.loc[("ann", "bo"), "kappa"] == pytest.approx(closed_form_kappa(ann, bo))
    for col in ("kappa", "se", "ci_low", "ci_high"):
        assert math.isnan(by.loc[("ann", "cy"), col])
    # counts and raw agreement stay; nothing else differs from the unmasked pairs
    raw_by = raw.pairs.set_index(["rater_a", "rater_b"])
    assert by.loc[("ann", "cy"), "agreement"] == pytest.approx(3 / 4)
    assert raw_by.loc[("ann", "cy"), "kappa"] == pytest.approx(closed_form_kappa(ann[:4], cy))
    pd.testing.assert_frame_equal(by.drop(index=[("ann", "cy"), ("bo", "cy")]),
                                  raw_by.drop(index=[("ann", "cy"), ("bo", "cy")]))
    assert masked.overall == raw.overall and masked.enough and raw.enough   # 12 items reviewed twice

    # a stricter threshold: no pair reaches it, and the pooled figure is "too few" too
    strict = reviewer_agreement("bench", min_items=13, db=db)
    assert strict.pairs["kappa"].isna().all() and not strict.enough
    assert strict.label.startswith("too few items for kappa: 12 reviewed twice (at least 13")
    with pytest.raises(AuditError, match="min_items"):
        reviewer_agreement("bench", min_items=0, db=db)


def test_scenario_summary_is_the_mean_over_models():
    rng = np.random.default_rng(7)
    rows = []
    for sc in ["baseline", "excl_tier1", "excl_tier1-2", "excl_judge"]:
        for m in ["m1", "m2", "m3"]:
            delta = 0.0 if sc == "baseline" else float(rng.normal(2, 1))
            control = np.nan if (sc, m) == ("excl_tier1-2", "m3") else (0.0 if sc == "baseline" else delta / 3)
            rows.append((sc, m, delta, control))
    table = pd.DataFrame(rows, columns=["scenario", "model", "delta_points", "control_delta_points"])
    got = scenario_summary(table).set_index("scenario")
    assert list(got.index) == ["baseline", "excl_tier1", "excl_tier1-2", "excl_judge"]   # the table's order
    for sc, rows_ in table.groupby("scenario"):
        d = rows_["delta_points"].to_numpy()
        c = rows_["control_delta_points"].to_numpy()
        ok = ~np.isnan(c)
        assert got.at[sc, "change_points"] == pytest.approx(d.sum() / len(d))
        assert got.at[sc, "control_points"] == pytest.approx(c[ok].sum() / ok.sum())
        assert got.at[sc, "explained_points"] == pytest.approx((d[ok] - c[ok]).sum() / ok.sum())


def test_role_ladder():
    for have in (None, *ROLES):
        for need in ROLES:
            assert role_allows(have, need) == (have is not None and ROLES.index(have) >= ROLES.index(need))


def test_csv_download_bytes():
    df = pd.DataFrame({"question_id": ["q1", "=HYPERLINK(1)"], "old_key": ["-A", "ཀ"], "n": [-1.5, 2]})
    data = csv_bytes(df)
    back = pd.read_csv(io.BytesIO(data), encoding="utf-8-sig")
    assert data.startswith("\ufeff".encode("utf-8")) and b"\r" not in data
    assert list(back["question_id"]) == ["q1", "'=HYPERLINK(1)"]
    assert list(back["old_key"]) == ["'-A", "ཀ"] and list(back["n"]) == [-1.5, 2.0]
