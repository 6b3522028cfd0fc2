"""audit.judge._store: writing runs and verdicts (types cast, replace on the
same key), the selection of items still to judge (filters, the limit before
done items, which failed replies are asked again), prompt-version
resolution, the derived judge_answer / disputed columns, and the judge's
family (a registered model's first, else the most specific part of the
name) — on a real DuckDB file."""
import pytest

from audit.errors import NotFoundError
from audit.judge._store import (
    REASKED,
    disputed_ids,
    ensure_prompt,
    item_context,
    judge_family,
    list_judges,
    list_runs,
    load_verdicts,
    resolve_prompt_version,
    save_error,
    save_verdicts,
    select_items,
    start_run,
    unparsed_replies,
    update_run,
)
from audit.store import connect
from tests.support.tiny import query, tiny_benchmark


def _v(qid, ok=True, answer=None, *, judge="j", version="p1", parse_ok=True, error=None, **more):
    return {"benchmark": "tiny", "question_id": qid, "judge": judge, "prompt_version": version,
            "answer_key_correct": ok if parse_ok else None, "correct_answer": answer, "raw_reply": "{}",
            "parse_ok": parse_ok, "parse_error": error, "source": "run", **more}


@pytest.fixture
def db(db_path, tmp_path):
    tiny_benchmark(db_path, tmp_path / "w", n=6)
    return db_path


def test_run_row_and_totals(db):
    with connect(db) as con:
        ensure_prompt(con, "p1", "T ${question}")
        ensure_prompt(con, "p1", "T ${question}")              # twice: one row
        rid = start_run(con, benchmark="tiny", judge="j", prompt_version="p1", source="run",
                        config={"temperature": 0, "concurrency": 2})
        update_run(con, rid, n_selected=6, n_ok=5, cost_usd=0.25, status="done")
        save_error(con, run_id=rid, benchmark="tiny", question_id="q6", judge="j", error_type="timeout",
                   message="read timed out", attempts=3)
    runs = list_runs("tiny", db=db)
    assert runs.loc[0, ["n_selected", "n_ok", "cost_usd", "status"]].tolist() == [6, 5, 0.25, "done"]
    assert query(db, "SELECT count(*) AS n FROM judge_prompts")["n"][0] == 1
    assert query(db, "SELECT error_type, attempts FROM judge_errors").values.tolist() == [["timeout", 3]]
    assert list_runs("other", db=db).empty


def test_save_verdicts_casts_and_replaces(db):
    with connect(db) as con:
        save_verdicts(con, [_v("q1", False, "B", confidence="0.9", prompt_tokens=12.0)])
        save_verdicts(con, [_v("q1", True)])              # same (benchmark, item, judge, version): replaced
        save_verdicts(con, [])
    df = load_verdicts("tiny", db=db)
    assert len(df) == 1 and bool(df.loc[0, "answer_key_correct"]) is True
    with connect(db) as con:
        save_verdicts(con, [_v("q2", False, "C", confidence="0.9", prompt_tokens=12.0)])
    row = query(db, "SELECT confidence, prompt_tokens FROM judge_verdicts WHERE question_id = 'q2'")
    assert row.values.tolist() == [[0.9, 12]]


def test_judge_answer_and_disputed(db):
    with connect(db) as con:
        save_verdicts(con, [_v("q1", True), _v("q2", False, "C"), _v("q3", parse_ok=False, error="no JSON object"),
                            _v("q4", False, None)])
    df = load_verdicts("tiny", "j", db=db).set_index("question_id")
    assert df.loc["q1", "judge_answer"] == "A"            # the key, judged correct
    assert df.loc["q2", "judge_answer"] == "C"
    assert df["judge_answer"].isna()[["q3", "q4"]].all()
    assert df["disputed"].to_dict() == {"q1": False, "q2": True, "q3": False, "q4": True}
    assert disputed_ids("tiny", "j", db=db) == {"q2", "q4"}
    j = list_judges("tiny", db=db).iloc[0]
    assert (j["n"], j["n_parse_ok"], j["n_parse_failed"], j["n_disputed"]) == (4, 3, 1, 2)
    un = unparsed_replies("tiny", db=db)
    assert un[["question_id", "parse_error"]].values.tolist() == [["q3", "no JSON object"]]


def test_selection_skips_done_items_and_reasks_failed_replies(db):
    with connect(db) as con:
        save_verdicts(con, [_v("q1"), _v("q2", parse_ok=False, error="no JSON object"),
                            _v("q3", parse_ok=False, error="cut off: the reply hit max_tokens"),
                            _v("q4", parse_ok=False, error="contradictory: x"),
                            _v("q5", parse_ok=False, error="empty reply"),
                            _v("q6", judge="other")])
        n, todo = select_items(con, benchmark="tiny", judge="j", prompt_version="p1")
        assert n == 6 and todo["question_id"].tolist() == ["q3", "q4", "q5", "q6"]
        _, todo = select_items(con, benchmark="tiny", judge="j", prompt_version="p1", retry_unparsed=True)
        assert todo["question_id"].tolist() == ["q2", "q3", "q4", "q5", "q6"]
        _, todo = select_items(con, benchmark="tiny", judge="j", prompt_version="p2")
        assert len(todo) == 6 and list(todo.columns) == ["question_id", "stem", "options", "answer_key", "explanation"]
    assert set(REASKED) == {"empty reply", "cut off", "contradictory"}


def test_limit_counts_before_done_items_are_removed(db):
    with connect(db) as con:
        save_verdicts(con, [_v("q1"), _v("q2")])
        n, todo = select_items(con, benchmark="tiny", judge="j", prompt_version="p1", limit=3)
        assert n == 3 and todo["question_id"].tolist() == ["q3"]
        n, todo = select_items(con, benchmark="tiny", judge="j", prompt_version="p1", question_ids=["q2", "q5", "zz"])
        assert n == 2 and todo["question_id"].tolist() == ["q5"]


def test_prompt_version_resolution(db):
    with connect(db) as con:
        save_verdicts(con, [_v("q1", version="old")])
        save_verdicts(con, [_v("q1", version="new")])
        assert resolve_prompt_version(con, "tiny", "j") == "new"
        assert resolve_prompt_version(con, "tiny", "j", "old") == "old"
        with pytest.raises(NotFoundError, match="no verdicts with prompt version zzz"):
            resolve_prompt_version(con, "tiny", "j", "zzz")
        with pytest.raises(NotFoundError, match="judges with verdicts: j"):
            resolve_prompt_version(con, "tiny", "nobody")


def test_item_context_without_a_linked_original(db):
    with connect(db) as con:
        ctx = item_context(con, "tiny", ["q1", "q2"])
        assert item_context(con, "tiny", []) == {}
    assert set(ctx) == {"q1", "q2"} and ctx["q1"] == {"language": None, "source": None}


@pytest.mark.parametrize("judge,family", [
    ("openrouter/google/gemini-2.5-pro", "google"),
    ("gemini/gemini-2.5-pro", "google"),
    ("groq/llama-3.1-70b", "meta"),
    ("openai/gpt-4o", "openai"),
])
def test_family_from_the_name(db, judge, family):
    with connect(db, read_only=True) as con:
        assert judge_family(con, judge) == family


def test_registered_model_family_wins(db):
    from audit.ingest import set_family

    tiny_benchmark(db, db.parent / "w2", name="t2", n=2, answers={"my-local-judge": ["A", "B"]})
    set_family("my-local-judge", "qwen", db=db)
    with connect(db, read_only=True) as con:
        assert judge_family(con, "openai/my-local-judge") == "qwen"
