"""audit.ingest.formats._parallel: CMMLU-style source CSVs built in tmp_path
(first column the row index, Question, A–D, Answer) linked to a benchmark's
questions by subject + row index — key matches and mismatches, counterparts
without a key, unmatched rows skipped, re-import replacing the source's
links, and the refusals."""
import pandas as pd
import pytest

from audit.errors import InputError
from audit.ingest.formats._parallel import import_parallel
from tests.support.tiny import rows, write_questions


@pytest.fixture
def bench(db_path, tmp_path):
    from audit.ingest import import_questions

    items = [("agronomy0", "ཞིང་ལས།", ["ཀ", "ཁ", "ག", "ང"], "B"), ("agronomy1", "ས་ཞིང་།", ["a", "b", "c", "d"], "C"),
             ("agronomy2", "ལྷ་ས།", ["a", "b", "c", "d"], "A")]
    import_questions(write_questions(tmp_path / "q.csv", items), benchmark="tlue", db=db_path)
    return db_path


def _source(folder, name, records):
    folder.mkdir(exist_ok=True)
    pd.DataFrame(records, columns=["", "Question", "A", "B", "C", "D", "Answer"]).to_csv(folder / f"{name}.csv",
                                                                                        index=False)


def test_links_and_mismatches(bench, tmp_path):
    src = tmp_path / "cmmlu"
    _source(src, "agronomy", [
        [0, "农业生产中最主要的基本生产资料是", "农业生产工具", "土地", "劳动力", "资金", "B"],
        [1, "温度为24～26°C", "36°C", "37.8°C", "36.5°C", "", "A"],         # a three-option row
        [2, "没有答案", "a", "b", "c", "d", ""],
        [99, "不在基准中", "a", "b", "c", "d", "A"],
    ])
    s = import_parallel(src, benchmark="tlue", db=bench)
    assert (s.links, s.mismatches, s.unmatched_rows, s.without_key, s.mismatch_ids) == (3, 1, 1, 1, ["agronomy1"])
    text = str(s)
    assert "1 key mismatch(es) (agronomy1)" in text and "1 rows had no question" in text and "no key" in text
    links = rows(bench, "SELECT question_id, counterpart_id, counterpart_language, len(counterpart_options), "
                        "counterpart_key, key_match FROM parallel_links ORDER BY 1")
    assert links == [("agronomy0", "agronomy.csv:0", "zh-Hans", 4, "B", True),
                     ("agronomy1", "agronomy.csv:1", "zh-Hans", 3, "A", False),
                     ("agronomy2", "agronomy.csv:2", "zh-Hans", 4, None, None)]


def test_reimport_replaces_and_other_sources_stay(bench, tmp_path):
    src = tmp_path / "cmmlu"
    _source(src, "agronomy", [[0, "Q", "a", "b", "c", "d", "A"]])
    import_parallel(src, benchmark="tlue", db=bench)
    import_parallel(src / "agronomy.csv", benchmark="tlue", source="mmlu", db=bench)
    _source(src, "agronomy", [[1, "Q", "a", "b", "c", "d", "C"]])
    import_parallel(src, benchmark="tlue", db=bench)
    assert rows(bench, "SELECT counterpart_source, question_id, counterpart_language FROM parallel_links "
                       "ORDER BY 1, 2") == [("cmmlu", "agronomy1", "zh-Hans"), ("mmlu", "agronomy0", "en")]


@pytest.mark.parametrize("records,message", [
    ([["x", "Q", "a", "b", "c", "d", "A"]], "row index 'x' in the first column is not a number"),
    ([[0, "Q", "a", "b", "c", "d", "A"], ["00", "Q", "a", "b", "c", "d", "A"]], "row index 0 repeats line 2"),
    ([[50, "Q", "a", "b", "c", "d", "A"]], "no row matches a question of 'tlue'"),
])
def test_refusals(bench, tmp_path, records, message):
    _source(tmp_path / "src", "agronomy", records)
    with pytest.raises(InputError, match=message):
        import_parallel(tmp_path / "src", benchmark="tlue", db=bench)
    assert rows(bench, "SELECT count(*) FROM parallel_links") == [(0,)]


def test_first_column_must_be_the_index(bench, tmp_path):
    f = tmp_path / "agronomy.csv"
    f.write_text("Question,A,B,C,D,Answer\nQ,a,b,c,d,A\n", encoding="utf-8")
    with pytest.raises(InputError, match="first column must be the row index"):
        import_parallel(f, benchmark="tlue", db=bench)


def test_benchmark_without_questions(db_path, tmp_path):
    _source(tmp_path / "src", "agronomy", [[0, "Q", "a", "b", "c", "d", "A"]])
    with pytest.raises(InputError, match="has no questions; import them first"):
        import_parallel(tmp_path / "src", benchmark="tlue", db=db_path)
    with pytest.raises(InputError, match="not found"):
        import_parallel(tmp_path / "nope", db=db_path)
