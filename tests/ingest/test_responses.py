"""audit.ingest.responses: stored raw responses read back with their items'
option texts, letters extracted per option count (items of 2 to 6 options;
others get none), written back with their method, and the 'final' import's
second pass that answers by option text what the letters left open."""
import pandas as pd
import pytest

from audit.ingest import import_predictions
from audit.ingest.responses import answer_by_option_text, extract_rows, stored_responses, write_letters
from audit.store import connect, transaction
from tests.support.tiny import rows, tiny_benchmark


@pytest.fixture
def db(db_path, tmp_path):
    tiny_benchmark(db_path, tmp_path / "w", n=4)
    f = tmp_path / "resp.csv"
    pd.DataFrame({"question_id": ["q1", "q2", "q3", "q4", "q1"],
                  "model": ["m", "m", "m", "m", "given-model"],
                  "response": ["The answer is B.", "opt 2c", "I cannot tell", "A B C D", None],
                  "answer": [None, None, None, None, "A"]}).to_csv(f, index=False)
    import_predictions(f, benchmark="tiny", db=db_path, method="caa")
    return db_path


def test_stored_responses_carry_option_texts(db):
    with connect(db, read_only=True) as con:
        df = stored_responses(con, "p.benchmark = ?", ["tiny"])
    assert df["question_id"].tolist() == ["q1", "q2", "q3", "q4"]          # the given answer has no response
    assert df.loc[1, "options"].tolist() == ["opt 2a", "opt 2b", "opt 2c", "opt 2d"]
    assert df["method"].unique().tolist() == ["caa"]
    assert df["answer"].tolist()[0] == "B" and df["answer"].isna().tolist()[1:] == [True, True, True]


def test_extract_rows_groups_by_option_count():
    df = pd.DataFrame({"response": ["Answer: B", "Paris", "E", "A", "C"],
                       "options": [["x", "y"], ["Rome", "Paris", "Oslo"], list("abcdef"), ["only"],
                                   [str(i) for i in range(10)]]})
    assert extract_rows(df, "final") == ["B", "B", "E", None, None]      # 1 and 10 options: no letters
    assert extract_rows(df.iloc[:0], "final") == []


def test_write_letters_and_the_option_text_pass(db):
    with connect(db) as con, transaction(con):
        df = stored_responses(con, "p.benchmark = ? AND p.question_id = 'q3'", ["tiny"])
        write_letters(con, "tiny", df, ["D"], "manual")
    assert rows(db, "SELECT answer, valid, method FROM predictions WHERE question_id = 'q3' AND model = 'm'") == [
        ("D", True, "manual")]
    # mark every response of m as 'final' and unanswered, then let the text pass settle what it can
    with connect(db) as con, transaction(con):
        con.execute("UPDATE predictions SET method = 'final', answer = NULL, valid = false WHERE model = 'm'")
        con.execute("CREATE TEMP TABLE _pairs AS SELECT 'm' AS model, 'default' AS run")
        n = answer_by_option_text(con, "tiny", "_pairs")
    got = dict(rows(db, "SELECT question_id, answer FROM predictions WHERE model = 'm'"))
    assert got["q2"] == "C"          # "opt 2c" is option C's text
    assert got["q1"] == "B" and got["q3"] is None
    assert n == sum(v is not None for v in got.values())
    assert rows(db, "SELECT answer, method FROM predictions WHERE model = 'given-model'") == [("A", "given")]


def test_option_text_pass_without_open_responses(db):
    with connect(db) as con, transaction(con):
        con.execute("CREATE TEMP TABLE _pairs AS SELECT 'nobody' AS model, 'default' AS run")
        assert answer_by_option_text(con, "tiny", "_pairs") == 0
