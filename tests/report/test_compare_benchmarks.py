"""``audit report compare``: over TLUE and its CMMLU source it runs and lists
each parallel item whose keys differ; over three benchmarks of different
sizes its per-benchmark figures equal each benchmark's own report."""
from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
from typer.testing import CliRunner

from audit.cli import app
from audit.demo import build_demo
from audit.ingest import import_mmlu_redux, import_parallel, import_questions, import_tlue

pytestmark = [pytest.mark.slow, pytest.mark.shared_data]
MAPPING = {"Question": "question", "Answer": "answer", "Unnamed: 0": "id"}
NEXT = {"A": "B", "B": "C", "C": "D", "D": "A"}


def _cli(*args):
    res = CliRunner().invoke(app, list(map(str, args)))
    assert res.exit_code == 0, res.output + repr(res.exception)
    return res.output


def test_tlue_and_its_cmmlu_source_list_every_item_whose_keys_differ(tmp_path, tlue_dir, cmmlu_dir):
    db = tmp_path / "p.duckdb"
    src = tmp_path / "cmmlu"
    shutil.copytree(cmmlu_dir, src)
    changed = set()
    for subject, rows in (("agronomy", [1, 4]), ("virology", [0]), ("marketing", [7, 8])):
        f = src / f"{subject}.csv"
        df = pd.read_csv(f, dtype=str, keep_default_na=False)
        for r in rows:
            df.loc[df.iloc[:, 0] == str(r), "Answer"] = NEXT[df.loc[df.iloc[:, 0] == str(r), "Answer"].iloc[0]]
            changed.add(f"{subject}{r}")
        df.to_csv(f, index=False)
    import_tlue(tlue_dir, benchmark="tlue", db=db)
    import_questions(src, benchmark="cmmlu", db=db, mapping=MAPPING, id_template="{file}{id}",
                     constants={"language": "zh-Hans"})
    import_parallel(src, benchmark="tlue", source="cmmlu", db=db)
    out = json.loads(_cli("report", "compare", "tlue", "cmmlu", "--format", "json", "--db", db))
    assert [b["benchmark"] for b in out["benchmarks"]] == ["tlue", "cmmlu"]
    assert [b["items"] for b in out["benchmarks"]] == [670, 670]
    assert out["parallel"][0]["linked"] == 670
    diffs = out["parallel_differences"]
    assert {d["question_id_a"] for d in diffs if d["keys_differ"]} == changed
    assert all(d["question_id_a"] == d["question_id_b"] and "the keys differ" in d["reason"] for d in diffs)
    assert out["parallel"][0]["keys_differ"] == len(changed)
    by = {s["subject"]: s["keys_differ"] for s in out["parallel"][0]["by_subject"]}
    assert by["agronomy"] == 2 and by["virology"] == 1 and sum(by.values()) == len(changed)
    # the other formats say the same in plain words, escaped
    md = _cli("report", "compare", "tlue", "cmmlu", "--format", "md", "--db", db)
    assert "Translation damage" in md and "agronomy1" in md
    page = _cli("report", "compare", "tlue", "cmmlu", "--format", "html", "--db", db)
    assert page.startswith("<!doctype html>") and "agronomy4" in page


def test_three_benchmarks_of_different_sizes_match_their_own_reports(tmp_path, mmlu_redux_dir):
    from audit.analyze import analyze_benchmark
    from audit.review import add_review

    db = tmp_path / "t.duckdb"
    build_demo(db)                                           # 300 items, 8 models
    import_mmlu_redux(mmlu_redux_dir, benchmark="redux", db=db)   # 1500 items, 14 models
    analyze_benchmark("redux", db=db)
    small = tmp_path / "small"
    small.mkdir()
    one = next(iter(sorted(mmlu_redux_dir.glob("*.csv"))))
    shutil.copy(one, small / one.name)
    import_mmlu_redux(small, benchmark="redux-one", db=db)       # 100 items
    analyze_benchmark("redux-one", db=db)
    add_review("redux-one", "abstract_algebra/0", "lead", "key_wrong",
               corrected_answer="B" if _key(db, "redux-one", "abstract_algebra/0") != "B" else "C",
               is_adjudication=True, db=db)
    out = json.loads(_cli("report", "compare", "demo", "redux", "redux-one", "--format", "json", "--db", db))
    assert [b["items"] for b in out["benchmarks"]] == [300, 1500, 100]
    for block in out["benchmarks"]:
        own = json.loads(_cli("report", "--benchmark", block["benchmark"], "--format", "json", "--db", db))
        assert block["models"] == own["run"]["models"]
        assert block["expected_wrong_keys"]["model_based"] == own["expected_wrong_keys"]
        assert block["expected_wrong_keys"]["sampled"] == own.get("expected_wrong_keys_sampled")
        assert block["wrong_key_cost"] == own["wrong_key_cost"]
        assert block["expected_wrong_keys_by_subject"] == own["expected_wrong_keys_by_subject"]
    assert [b["settled_wrong_keys"] for b in out["benchmarks"]] == [0, 0, 1]
    # models present in both MMLU-Redux benchmarks, none shared with the demo
    assert out["models_in_all"] == []
    pair = json.loads(_cli("report", "compare", "redux", "redux-one", "--format", "json", "--db", db))
    assert len(pair["models_in_all"]) == 14
    costs = {b["benchmark"]: {r["model"]: r["cost_points"] for r in b["wrong_key_cost"]} for b in pair["benchmarks"]}
    for row in pair["cost_in_all"]:
        assert row["redux"] == costs["redux"][row["model"]] and row["redux-one"] == costs["redux-one"][row["model"]]
    assert pair["parallel"] == []          # same language, same ids: not parallel


def _key(db, bench, qid):
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT answer_key FROM questions WHERE benchmark = ? AND question_id = ?",
                           [bench, qid]).fetchone()[0]
    finally:
        con.close()
