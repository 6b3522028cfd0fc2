"""Re-extraction of stored responses (``audit predictions reextract``), the
import default (method "final" with the option texts), the optional LLM
extractor through a local OpenAI-compatible server, and the judge's view of
a linked source (``${source}``, language, cause stored with the verdict)."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from audit.ingest import import_predictions
from audit.ingest.extract import extract_answers
from audit.predict import extraction_methods, reextract
from tests.conftest import shared_path
from tests.support.common import rows, run_cli
from tests.support.judge_server import JudgeServer, make_benchmark

KEY = "sk-test-1122334455667788"

RESPONSES = [
    "A) bir\nB) ikki\n\nTo'g'ri javob: **C) uch**",            # q000: CAA sees A B C → none; final → C
    "Javob: ikki",                                                # q001: only the option's text → B with options
    "B",                                                          # q002: B for every method
    "The answer might be A or it might be D; hard to say.",       # q003: none for every rule
]


def _questions(db, tmp_path):
    from audit.ingest import import_questions

    q = tmp_path / "q.csv"
    pd.DataFrame({"id": [f"q{i:03d}" for i in range(4)], "question": [f"Savol QID=q{i:03d}" for i in range(4)],
                  "A": ["bir"] * 4, "B": ["ikki"] * 4, "C": ["uch"] * 4, "D": ["to'rt"] * 4,
                  "answer": ["A"] * 4}).to_csv(q, index=False)
    import_questions(q, benchmark="jb", db=db)


def _import(db, tmp_path, method=None):
    _questions(db, tmp_path)
    f = tmp_path / "p.jsonl"
    f.write_text("\n".join(json.dumps({"question_id": f"q{i:03d}", "model": "m1", "response": r})
                           for i, r in enumerate(RESPONSES)) + "\n", encoding="utf-8")
    kw = {} if method is None else {"method": method}
    return import_predictions(f, benchmark="jb", db=db, **kw)


def answers(db):
    return rows(db, "SELECT question_id, answer, method, valid FROM predictions ORDER BY 1")


def test_import_default_is_final_with_option_texts(db_path, tmp_path):
    s = _import(db_path, tmp_path)
    assert s.method == "final"
    assert answers(db_path) == [("q000", "C", "final", True), ("q001", "B", "final", True),
                                ("q002", "B", "final", True), ("q003", None, "final", False)]


def test_reextract_switches_methods_and_reports_per_model(db_path, tmp_path, capsys):
    _import(db_path, tmp_path, method="caa")
    caa = extract_answers(RESPONSES, 4, "caa")
    assert [r[1] for r in answers(db_path)] == caa == [None, None, "B", None]
    s = reextract("jb", method="final", db=db_path)
    t = s.table
    assert list(t["model"]) == ["m1"] and int(t["responses"][0]) == 4
    assert (int(t["answered_before"][0]), int(t["answered_after"][0]), int(t["changed"][0])) == (1, 3, 2)
    assert t["methods"][0] == "final"
    assert [r[1] for r in answers(db_path)] == ["C", "B", "B", None]
    # back to CAA through the CLI; the methods per model are listed
    code, out, err = run_cli(capsys, "predictions", "reextract", "--method", "caa", "-b", "jb", "--db", db_path)
    assert code == 0, err
    assert "m1 (default): 4 responses, answered 3 → 1" in out and "methods now: caa" in out
    m = extraction_methods("jb", db=db_path)
    assert m.to_dict("records") == [{"model": "m1", "run": "default", "method": "caa", "n": 4, "answered": 1}]
    code, out, _ = run_cli(capsys, "predictions", "methods", "-b", "jb", "--db", db_path)
    assert code == 0 and "caa" in out
    code, _, err = run_cli(capsys, "predictions", "reextract", "--method", "regex", "-b", "jb", "--db", db_path)
    assert code == 1 and "unknown extraction method" in err


def test_given_letters_are_never_reextracted(db_path, tmp_path):
    _questions(db_path, tmp_path)
    f = tmp_path / "g.csv"
    pd.DataFrame({"question_id": ["q000", "q001"], "model": ["g", "g"], "answer": ["A", "B"],
                  "response": ["I think C", "I think D"]}).to_csv(f, index=False)
    import_predictions(f, benchmark="jb", db=db_path)
    with pytest.raises(Exception, match="no stored raw responses"):
        reextract("jb", method="da", db=db_path)
    assert [r[1:3] for r in answers(db_path)] == [("A", "given"), ("B", "given")]


@pytest.mark.slow
def test_llm_extractor_only_for_unanswered(db_path, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    _import(db_path, tmp_path, method="caa")
    with JudgeServer(default_reply=lambda qid: ("text", "NONE")) as server:
        # the extractor prompt quotes the response; the stem carries QID=…
        server.script["q003"] = [("text", "D")]
        s = reextract("jb", method="final", db=db_path, llm_extractor="openai/extractor", api_base=server.base,
                      input_cost_per_token=1e-6, output_cost_per_token=1e-6, concurrency=2)
        assert sorted(server.requests) == ["q003"]          # only what the rules left unanswered
        assert "hard to say" in server.prompts[0] and "Which single option" in server.prompts[0]
        assert s.llm_asked == 1 and s.llm_answered == 1
        assert answers(db_path)[3] == ("q003", "D", "llm", True)
        assert rows(db_path, "SELECT question_id, extractor, answer, raw_reply FROM llm_extractions") == [
            ("q003", "openai/extractor", "D", "D")]
        assert "llm" in s.table["methods"][0]
        # again: the stored reply is reused, no request
        s2 = reextract("jb", method="final", db=db_path, llm_extractor="openai/extractor", api_base=server.base,
                       input_cost_per_token=1e-6, output_cost_per_token=1e-6)
        assert server.total == 1 and s2.llm_asked == 0 and answers(db_path)[3][1:3] == ("D", "llm")


@pytest.mark.slow
def test_uzbek_responses_reextracted(db_path, tmp_path):
    """Real responses of three models: re-extracting with 'final' answers more
    of them in all, and the stored letters equal the extractor's own output."""
    d = shared_path("uzlib_responses")
    from audit.ingest import import_questions

    import_questions(d / "questions.jsonl", benchmark="uz", db=db_path)
    models = {"Qwen3-8B", "Llama-4-Maverick-17B-128E-Instruct", "gemma-3n-e4b-it"}
    recs = [json.loads(x) for x in (d / "responses.jsonl").read_text("utf-8").splitlines()]
    recs = [r for r in recs if r["model"] in models]
    f = tmp_path / "r.jsonl"
    f.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in recs) + "\n", encoding="utf-8")
    import_predictions(f, benchmark="uz", db=db_path, method="caa")
    s = reextract("uz", method="final", db=db_path)
    t = s.table.set_index("model")
    assert set(t.index) == models and t["answered_after"].sum() > t["answered_before"].sum()
    # the step-by-step model, often cut off: CAA takes the letter left after an echo of the
    # options where "final" reads no commitment (54 responses), and misses the conclusions "final"
    # reads ("… which corresponds to option B", 64): the two answer about as many, differently
    mav = t.loc["Llama-4-Maverick-17B-128E-Instruct"]
    assert abs(int(mav["answered_after"]) - int(mav["answered_before"])) < 30
    assert int(mav["changed"]) >= 100
    qs = {json.loads(x)["id"]: json.loads(x) for x in (d / "questions.jsonl").read_text("utf-8").splitlines()}
    expect = extract_answers([r["response"] for r in recs], 4, "final",
                             options=[[qs[r["question_id"]][k] for k in "ABCD"] for r in recs])
    got = dict(((q, m), a) for q, m, a in rows(db_path, "SELECT question_id, model, answer FROM predictions"))
    assert [got[(r["question_id"], r["model"])] for r in recs] == expect


@pytest.mark.slow  # a judge run through litellm
def test_judge_sees_the_linked_source_and_stores_a_cause(db_path, monkeypatch):
    from audit.judge import run_judge
    from audit.store import connect, transaction

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    make_benchmark(db_path, n=2)
    with connect(db_path) as con, transaction(con):
        con.execute("UPDATE questions SET language = 'bo'")
        con.execute(
            "INSERT INTO parallel_links VALUES ('jb', 'q000', 'cmmlu', 'agronomy.csv:0', 'zh', '原题：一加一？', "
            "[{'label': 'A', 'text': '二'}, {'label': 'B', 'text': '三'}], 'B', false)")
    with JudgeServer() as server:
        server.script["q000"] = [("json", {"answer_key_correct": False, "correct_answer": "B",
                                           "cause": "source_error", "explanation": "the original is wrong too"})]
        server.script["q001"] = [("json", {"answer_key_correct": False, "correct_answer": "C",
                                           "cause": "gremlins", "explanation": "?"})]
        s = run_judge("openai/judge", benchmark="jb", db=db_path, api_base=server.base, progress=False,
                      input_cost_per_token=1e-6, output_cost_per_token=1e-6)
        assert s.n_ok == 2
        p0 = next(p for p in server.prompts if "QID=q000" in p)
        p1 = next(p for p in server.prompts if "QID=q001" in p)
    assert "written in Tibetan" in p0 and "Original question (cmmlu, Chinese):\n原题：一加一？\nA. 二\nB. 三" in p0
    assert "Original answer key: B" in p0 and "(no linked original)" in p1
    got = rows(db_path, "SELECT question_id, correct_answer, cause FROM judge_verdicts ORDER BY 1")
    assert got == [("q000", "B", "source_error"), ("q001", "C", None)]   # an unknown cause is not stored
