"""audit.report.compare: two parallel benchmarks — the toy benchmark and a
copy in another language with its own keys and answers, paired by id —
against a hand-built expectation: items whose current keys differ, items
whose models' agreement with the key differs, per-subject counts, reasons;
each benchmark's block equal to its own report; rendering escapes names."""
from __future__ import annotations

import json

import pytest

from audit.analyze import analyze_benchmark
from audit.errors import InputError, NotFoundError
from audit.ingest import import_predictions, import_questions
from audit.report.compare import (
    AGREEMENT_GAP,
    DIFFERENCE_COLUMNS,
    MIN_SHARED_MODELS,
    compare_benchmarks,
    parallel_differences,
    render_comparison,
)
from audit.report.full import build_report
from tests.support.toy_release import BENCH, ITEMS, MODELS, toy_db, write_questions

pytestmark = pytest.mark.slow  # analyses and full reports: well over 5 s

OTHER = "toy-bo"
OTHER_KEYS = {**{q: v[3] for q, v in ITEMS.items()}, "t03": "C"}


def _write_other(folder):
    lines = ["id,subject,language,question,A,B,C,D,answer"]
    for q, (subject, stem, opts, _) in ITEMS.items():
        lines.append(f"{q},{subject},bo,བོད་ཡིག {q},{','.join('ཀཁགང')},{OTHER_KEYS[q]}")
    (folder / "bo.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    # every model answers the key in this language
    preds = ["question_id," + ",".join(MODELS)] + [f"{q}," + ",".join([OTHER_KEYS[q]] * 3) for q in ITEMS]
    (folder / "bo-pred.csv").write_text("\n".join(preds) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def pair(tmp_path_factory, migrated_template):
    tmp = tmp_path_factory.mktemp("compare")
    db = toy_db(tmp, migrated_template)
    _write_other(tmp)
    import_questions(tmp / "bo.csv", benchmark=OTHER, db=db)
    import_predictions(tmp / "bo-pred.csv", benchmark=OTHER, layout="wide", db=db)
    import_questions(write_questions(tmp / "bare.csv"), benchmark="bare", db=db)
    analyze_benchmark(BENCH, db=db)
    analyze_benchmark(OTHER, db=db)
    return db


def test_parallel_differences_against_a_hand_expectation(pair):
    # current toy keys (default policy, after analysis: t08 flagged with one review keeps A):
    # t02 A→B and t04 C→D corrected; the other language keeps its keys, with t03 C instead of B.
    summary, d = parallel_differences(BENCH, OTHER, db=pair)
    assert list(d.columns) == DIFFERENCE_COLUMNS
    assert d["question_id_a"].tolist() == ["t02", "t03", "t04", "t06", "t08"]
    keyed = d.set_index("question_id_a")
    assert keyed["keys_differ"].tolist() == [True, True, True, False, False]
    # t06 (key B): alpha C, beta B, gamma A → 1 of 3 models right here, 3 of 3 in toy-bo: a gap of 2/3
    assert keyed.loc["t06", "agree_a"] == pytest.approx(1 / 3) and keyed.loc["t06", "agree_b"] == 1.0
    # t08 (key A in both): every model answered C here → 0 of 3, against 3 of 3
    assert keyed.loc["t08", "agree_a"] == 0.0
    assert keyed["agreement_differs"].tolist() == [False, False, False, True, True]
    assert (keyed["n_models"] == 3).all() and 2 / 3 >= AGREEMENT_GAP and MIN_SHARED_MODELS == 3
    assert keyed.loc["t06", "reason"] == "of the 3 models that answered both, 1 chose the key in toy and 3 in toy-bo"
    assert keyed.loc["t08", "reason"] == "of the 3 models that answered both, 0 chose the key in toy and 3 in toy-bo"
    assert keyed.loc["t03", "reason"] == "the keys differ: B in toy, C in toy-bo"
    assert summary == {"benchmark_a": BENCH, "benchmark_b": OTHER, "linked": 10, "keys_differ": 3,
                       "agreement_differs": 2, "by_subject": [
                           {"subject": "=cmd", "linked": 1, "keys_differ": 1, "agreement_differs": 0},
                           {"subject": "lang", "linked": 5, "keys_differ": 0, "agreement_differs": 1},
                           {"subject": "math", "linked": 4, "keys_differ": 2, "agreement_differs": 1}]}


def test_the_pair_read_the_other_way_round(pair):
    summary, d = parallel_differences(OTHER, BENCH, db=pair)
    assert (summary["linked"], summary["keys_differ"], summary["agreement_differs"]) == (10, 3, 2)
    assert d["question_id_a"].tolist() == ["t02", "t03", "t04", "t06", "t08"]


def test_unrelated_benchmarks_are_not_parallel(pair):
    summary, d = parallel_differences(BENCH, "bare", db=pair)   # the same ids in the same (no) language
    assert summary["linked"] == 0 and d.empty


@pytest.fixture(scope="module")
def comparison(pair):
    return compare_benchmarks([BENCH, OTHER, BENCH], db=pair)


def test_each_block_is_the_benchmarks_own_report(pair, comparison):
    blocks = {b["benchmark"]: b for b in comparison["benchmarks"]}
    assert list(blocks) == [BENCH, OTHER]                     # duplicates dropped, order kept
    rep = build_report(BENCH, db=pair)
    assert blocks[BENCH]["expected_wrong_keys"]["model_based"] == json.loads(json.dumps(rep["expected_wrong_keys"]))
    # settled: t02 t04 key_wrong, t05 ambiguous, t06 defective, t07 key_correct (t08 now needs a second review)
    assert (blocks[BENCH]["settled_wrong_keys"], blocks[BENCH]["settled_items"]) == (2, 5)
    assert (blocks[OTHER]["settled_wrong_keys"], blocks[OTHER]["settled_items"]) == (0, 0)
    assert blocks[OTHER]["languages"] == ["bo"] and blocks[BENCH]["languages"] == []
    assert comparison["models_in_all"] == MODELS
    assert [c["model"] for c in comparison["cost_in_all"]] == MODELS
    assert len(comparison["parallel"]) == 1 and len(comparison["parallel_differences"]) == 5
    json.dumps(comparison)


def test_rendering_escapes_names_and_reasons(comparison):
    hostile = json.loads(json.dumps(comparison))
    hostile["parallel"][0]["benchmark_a"] = "<script>x</script>|"
    hostile["parallel_differences"][0]["reason"] = "<img src=x onerror=alert(1)>"
    html = render_comparison(hostile, "html")
    assert "<script>x" not in html and "&lt;script&gt;" in html and "<img" not in html
    md = render_comparison(hostile, "md")
    assert "&lt;script&gt;x&lt;/script&gt;\\|" in md and "<img" not in md
    table = render_comparison(comparison, "table")
    assert "toy ↔ toy-bo: 10 parallel items, 3 with different keys, 2 with different model agreement" in table
    assert json.loads(render_comparison(comparison, "json")) == json.loads(json.dumps(comparison))
    with pytest.raises(InputError):
        render_comparison(comparison, "csv")


def test_never_analysed_benchmarks_and_refusals(pair):
    cmp = compare_benchmarks(["bare", OTHER], db=pair)
    assert cmp["benchmarks"][0]["models"] == [] and cmp["models_in_all"] == []
    assert "No model is present in every benchmark." in render_comparison(cmp, "md")
    with pytest.raises(InputError, match="at least two"):
        compare_benchmarks([BENCH, BENCH], db=pair)
    with pytest.raises(NotFoundError, match="no benchmark named 'nope'"):
        compare_benchmarks([BENCH, "nope"], db=pair)
