"""Importers on the real reference data in ../shared/data (skipped when absent).
Every expected figure is recomputed independently from the raw files."""
from __future__ import annotations

import ast
import json
import shutil

import pandas as pd
import pytest

from audit.ingest import import_helm, import_mmlu_redux, import_parallel
from audit.ingest.storing import store_questions
from audit.store import connect, transaction
from audit.store.records import Option, Question
from tests.conftest import db_snapshot
from tests.support.common import rows, run_cli

pytestmark = pytest.mark.shared_data


@pytest.mark.slow
def test_mmlu_redux(mmlu_redux_dir, db_path, capsys):
    code, out, err = run_cli(capsys, "import", "mmlu-redux", mmlu_redux_dir, "--db", db_path)
    assert code == 0, err
    # independent reading of the raw files with pandas
    frames = []
    for f in sorted(mmlu_redux_dir.glob("*.csv")):
        df = pd.read_csv(f, dtype=str, keep_default_na=False)
        df.insert(0, "question_id", [f"{f.stem}/{i}" for i in range(len(df))])
        frames.append(df)
    raw = pd.concat(frames, ignore_index=True)
    model_cols = [c for c in raw.columns if c not in ("question_id", "question", "choices", "groundtruth_answer",
                                                      "error_type")]
    assert len(raw) == 1500 and len(model_cols) == 14
    long = raw.melt(id_vars=["question_id", "choices"], value_vars=model_cols, var_name="model", value_name="v")
    labels = long["choices"].map(lambda c: "ABCDEF"[: len(ast.literal_eval(c))])
    valid = [v.strip() in lab and len(v.strip()) == 1 for v, lab in zip(long["v"], labels)]
    n_invalid = len(valid) - sum(valid)
    assert f"21,000 predictions of 14 models ({n_invalid} invalid)" in out
    assert rows(db_path, "SELECT count(*) FROM questions WHERE benchmark = 'mmlu-redux'") == [(1500,)]
    assert rows(db_path, "SELECT count(*), count(*) FILTER (NOT valid), count(DISTINCT model) FROM predictions") == [
        (21000, n_invalid, 14)]
    assert n_invalid > 0  # the data has a few non-letter cells ("This", "I", …)
    # keys = letter of groundtruth_answer
    db_keys = dict(rows(db_path, "SELECT question_id, answer_key FROM questions"))
    assert db_keys == {q: "ABCD"[int(g)] for q, g in zip(raw["question_id"], raw["groundtruth_answer"])}
    # per-model valid answers equal the raw cells
    db_ans = {(q, m): a for q, m, a in rows(db_path, "SELECT question_id, model, answer FROM predictions")}
    for (q, m, v), ok in zip(long[["question_id", "model", "v"]].itertuples(index=False), valid):
        assert db_ans[(q, m)] == (v.strip() if ok else None)
    # error_type labels
    got = dict(rows(db_path, "SELECT value, count(*) FROM reference_labels WHERE label_set = 'mmlu_redux_error_type' "
                             "GROUP BY value"))
    assert got == raw["error_type"].value_counts().to_dict()
    fams = dict(rows(db_path, "SELECT name, family FROM models"))
    assert {fams[m] for m in model_cols} == {m.split("_", 1)[0] for m in model_cols}
    assert rows(db_path, "SELECT DISTINCT language, script FROM questions") == [("en", "Latn")]
    # re-import: same counts, no duplicates
    import_mmlu_redux(mmlu_redux_dir, db=db_path)
    assert rows(db_path, "SELECT count(*) FROM predictions") == [(21000,)]
    assert rows(db_path, "SELECT count(*) FROM reference_labels") == [(1500,)]


def test_helm_global_facts(helm_dir, db_path, capsys):
    code, out, err = run_cli(capsys, "import", "helm", helm_dir, "--db", db_path)
    assert code == 0, err
    assert "100 questions and 1,000 predictions of 10 models" in out and "'helm_global_facts'" in out
    expected = {}
    for f in helm_dir.glob("*.json"):
        d = json.loads(f.read_text(encoding="utf-8"))
        model = d["adapter_spec"]["model"]
        correct = 0
        for rs in d["request_states"]:
            letter = rs["result"]["completions"][0]["text"].strip()
            shown_text = rs["output_mapping"].get(letter)
            correct += any("correct" in r["tags"] and r["output"]["text"] == shown_text
                           for r in rs["instance"]["references"])
        expected[model] = correct
    got = dict(rows(db_path, "SELECT p.model, count(*) FILTER (p.answer = q.answer_key) FROM predictions p "
                             "JOIN questions q USING (benchmark, question_id) GROUP BY 1"))
    assert got == expected and len(got) == 10
    assert rows(db_path, "SELECT count(*), count(DISTINCT question_id) FROM predictions WHERE benchmark = "
                         "'helm_global_facts'") == [(1000, 100)]
    fams = dict(rows(db_path, "SELECT name, family FROM models"))
    assert fams["openai/gpt-4o-2024-05-13"] == "openai" and fams["google/text-unicorn@001"] == "google"


def test_helm_maps_shuffled_letters_back(helm_dir, tmp_path, db_path):
    """A presentation that shows the references in another order: the letter
    the model wrote is mapped through output_mapping to the stored label."""
    d = json.loads((helm_dir / "openai_gpt-4o-2024-05-13.json").read_text(encoding="utf-8"))
    d["request_states"] = d["request_states"][:5]
    for rs in d["request_states"]:
        texts = [r["output"]["text"] for r in rs["instance"]["references"]]
        rs["output_mapping"] = dict(zip("ABCD", reversed(texts)))
        correct = next(r["output"]["text"] for r in rs["instance"]["references"] if "correct" in r["tags"])
        rs["result"]["completions"][0]["text"] = " " + "ABCD"[list(reversed(texts)).index(correct)]
    f = tmp_path / "global_facts.json"
    f.write_text(json.dumps(d))
    s = import_helm(f, db=db_path)
    assert s.benchmark == "global_facts"
    assert rows(db_path, "SELECT count(*) FILTER (p.answer = q.answer_key), count(*) FROM predictions p "
                         "JOIN questions q USING (benchmark, question_id)") == [(5, 5)]


def _tlue_questions(tlue_dir) -> list[Question]:
    """TLUE ids and keys straight from the files (the option parser is not under test here)."""
    out = []
    for f in sorted(tlue_dir.glob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            if line.strip():
                o = json.loads(line)
                out.append(Question("tlue", o["loc"], o["polished_ti_content"], [Option(L, L) for L in "ABCD"],
                                    o["answer"].strip(), subject=f.stem))
    return out


@pytest.fixture
def tlue_db(tlue_dir, db_path):
    with connect(db_path) as con, transaction(con):
        store_questions(con, "tlue", "tlue", _tlue_questions(tlue_dir))
    return db_path


@pytest.mark.slow
def test_parallel_cmmlu(cmmlu_dir, tlue_db, capsys):
    code, out, err = run_cli(capsys, "import", "parallel", cmmlu_dir, "--source", "cmmlu", "--db", tlue_db)
    assert code == 0, err
    assert out.strip() == "linked 670 questions of 'tlue' to cmmlu: 0 key mismatch(es)"
    assert rows(tlue_db, "SELECT count(*), count(*) FILTER (key_match), count(DISTINCT counterpart_id) "
                         "FROM parallel_links") == [(670, 670, 670)]
    got = rows(tlue_db, "SELECT counterpart_id, counterpart_language, counterpart_key, counterpart_options[2].text "
                        "FROM parallel_links WHERE question_id = 'agronomy1'")
    raw = pd.read_csv(cmmlu_dir / "agronomy.csv", dtype=str, keep_default_na=False)
    r = raw[raw.iloc[:, 0] == "1"].iloc[0]
    assert got == [("agronomy.csv:1", "zh-Hans", r["Answer"], r["B"])]


@pytest.mark.slow
def test_parallel_mismatch_on_a_modified_copy(cmmlu_dir, tlue_db, tmp_path):
    copy = tmp_path / "cmmlu"
    shutil.copytree(cmmlu_dir, copy)
    df = pd.read_csv(copy / "agronomy.csv", dtype=str, keep_default_na=False)
    row = df.index[df.iloc[:, 0] == "7"][0]
    old = df.loc[row, "Answer"]
    df.loc[row, "Answer"] = "ABCD"[("ABCD".index(old) + 1) % 4]
    df.to_csv(copy / "agronomy.csv", index=False)
    s = import_parallel(copy, db=tlue_db)
    assert (s.links, s.mismatches, s.mismatch_ids) == (670, 1, ["agronomy7"])
    assert rows(tlue_db, "SELECT question_id, counterpart_key FROM parallel_links WHERE NOT key_match") == [
        ("agronomy7", df.loc[row, "Answer"])]
    # re-importing the original replaces the links
    s = import_parallel(cmmlu_dir, db=tlue_db)
    assert (s.links, s.mismatches) == (670, 0)
    assert rows(tlue_db, "SELECT count(*) FROM parallel_links") == [(670,)]


def test_parallel_with_no_matching_rows_changes_nothing(cmmlu_dir, tlue_db, capsys):
    before = db_snapshot(tlue_db)
    code, out, err = run_cli(capsys, "import", "parallel", cmmlu_dir / "agronomy.csv", "--benchmark", "other",
                             "--db", tlue_db)
    assert code == 1 and "benchmark 'other' has no questions" in err
    assert db_snapshot(tlue_db) == before


def test_mmlu_redux_import_then_analyze_gives_the_issue_tiers(mmlu_redux_dir, db_path, capsys):
    """End to end through the CLI: the issue's independent check (its figures
    come from the methodology, not from this code)."""
    assert run_cli(capsys, "import", "mmlu-redux", mmlu_redux_dir, "--db", db_path)[0] == 0
    code, out, err = run_cli(capsys, "analyze", "--preset", "tlue4", "--db", db_path)  # the methodology's rule
    assert code == 0, err
    from audit.analyze import tier_counts

    got = {int(r.tier): int(r.n) for r in tier_counts("mmlu-redux", db=db_path).itertuples()}
    assert got == {0: 813, 1: 27, 2: 22, 3: 488, 4: 47, 5: 103}
