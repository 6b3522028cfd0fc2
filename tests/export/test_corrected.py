"""One implementation of corrected keys and original-vs-corrected accuracy:
what the Dashboards page shows (``audit.export._corrected.corrected_key_accuracy``
under the chosen policy) and what ``DATASHEET.md`` of a version exported
under the same policy prints are the same numbers, under every policy."""
from __future__ import annotations

import pandas as pd
import pytest

from audit.export import corrected_key_accuracy, corrected_keys, create_version
from audit.export.policy import POLICIES
from audit.store import connect
from tests.export.test_create import MODELS, B, toy, toy_template  # noqa: F401  (fixtures)


def _datasheet_rows(path) -> dict[str, list[str]]:
    rows = {}
    text = path.read_text(encoding="utf-8").split("## Scores under every key version")[0]   # the accuracy table only
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] in MODELS:
            rows[cells[0]] = cells
    return rows


def _pct(x: float) -> str:
    return "–" if pd.isna(x) else f"{100 * x:.1f}"


@pytest.mark.slow
def test_page_and_datasheet_agree_under_every_policy(toy, tmp_path):  # noqa: F811
    policies = [p for p in sorted(POLICIES) if p != "original"]
    assert len(policies) >= 4
    seen = {}
    for i, policy in enumerate(policies, start=1):
        version = f"1.{i}"
        s = create_version(B, version, policy=policy, db=toy, exports_dir=tmp_path / "exports")
        sheet = _datasheet_rows(s.path / "DATASHEET.md")
        page = corrected_key_accuracy(B, policy=policy, db=toy).set_index("model")
        assert sorted(sheet) == sorted(page.index) == sorted(MODELS)
        for model, cells in sheet.items():
            r = page.loc[model]
            assert cells[1] == str(int(r.n_valid_original))
            assert (
                cells[2]
                == f"{_pct(r.accuracy_original)} [{_pct(r.accuracy_original_low)}, {_pct(r.accuracy_original_high)}]"
            )
            assert cells[3] == str(int(r.n_valid_corrected))
            assert cells[4] == (f"{_pct(r.accuracy_corrected)} [{_pct(r.accuracy_corrected_low)}, "
                                f"{_pct(r.accuracy_corrected_high)}]")
            assert cells[5] == f"{r.difference_points:+.1f}"
        # the keys behind the page are the version's keys
        keys, exclude = corrected_keys(B, policy=policy, db=toy)
        with connect(toy, read_only=True) as con:
            got = con.execute("SELECT question_id, action, answer_key FROM key_version_items "
                              "WHERE benchmark = ? AND version = ? AND action <> 'unchanged'", [B, version]).fetchall()
        assert {q for q, a, _ in got if a == "excluded"} == exclude
        assert {(q, k) for q, a, k in got if a == "corrected"} == set(zip(keys["question_id"], keys["answer_key"]))
        assert page.attrs == {"n_corrected": len(keys), "n_excluded": len(exclude)}
        seen[policy] = (len(keys), len(exclude))
    # the policies really differ on this benchmark, so agreement is not trivial
    assert seen["corrections-only"][1] == 0 < seen["default"][1]
    assert seen["adjudicated-only"][0] < seen["default"][0]


def test_audit_report_shows_the_same_figures(toy):  # noqa: F811
    import audit.export  # noqa: F401  (registers the report section)
    from audit.analyze import analyze_benchmark
    from audit.export._corrected import REPORT_TITLE
    from audit.report import build_report

    analyze_benchmark(B, db=toy)
    rep = build_report(B, db=toy)
    got = pd.DataFrame(rep["extra"][REPORT_TITLE]).set_index("model")
    page = corrected_key_accuracy(B, db=toy).set_index("model")
    assert sorted(got.index) == sorted(MODELS)
    pd.testing.assert_frame_equal(got[page.columns], page, check_dtype=False, check_exact=False, rtol=1e-12)
