"""audit.ingest.formats._mmlu_redux: MMLU-Redux subject CSVs built in
tmp_path in the published layout (question, choices as a Python list
literal, groundtruth_answer, error_type, one column per model) — ids
``<subject>/<row>``, keys from the 0-based index, the human labels stored as
reference labels, cells that are not a letter counted invalid, re-import
replacing, and the refusals that name the file and line."""
import pandas as pd
import pytest

from audit.errors import InputError
from audit.ingest.formats._mmlu_redux import LABEL_SET, import_mmlu_redux
from tests.support.tiny import rows

MODELS = ["openai_gpt-4o", "writer_palmyra-x-004"]


def _subject(folder, name, records, models=MODELS):
    cols = ["question", "choices", "groundtruth_answer", "error_type", *models]
    pd.DataFrame(records, columns=cols).to_csv(folder / f"{name}.csv", index=False)


@pytest.fixture
def redux(tmp_path):
    d = tmp_path / "redux"
    d.mkdir()
    _subject(d, "anatomy", [
        ["Which bone?", "['Femur', 'Tibia', 'Ulna', 'Skull']", 0, "ok", "A", " B "],
        ["Which organ, \"heart\"?", '["Liver", "Heart", "Lung", "Brain"]', 1, "wrong_groundtruth", "C", "answer B"],
    ])
    _subject(d, "global_facts", [
        ["Share in 2016?", "['10%', '20%', '40%']", 2, "", "C", ""],
    ])
    return d


def test_folder_import(redux, db_path):
    s = import_mmlu_redux(redux, db=db_path)
    assert (s.benchmark, s.subjects, s.questions, s.predictions, s.valid, s.invalid) == ("mmlu-redux", 2, 3, 6, 4, 2)
    assert s.error_types == {"ok": 1, "wrong_groundtruth": 1}
    assert "1 questions carry a human error label other than 'ok'" in str(s)
    q = rows(db_path, "SELECT question_id, subject, answer_key, len(options), language FROM questions ORDER BY seq")
    assert q == [("anatomy/0", "anatomy", "A", 4, "en"), ("anatomy/1", "anatomy", "B", 4, "en"),
                 ("global_facts/0", "global_facts", "C", 3, "en")]
    labels = rows(db_path, "SELECT question_id, value FROM reference_labels WHERE label_set = ? ORDER BY 1",
                  [LABEL_SET])
    assert labels == [("anatomy/0", "ok"), ("anatomy/1", "wrong_groundtruth")]
    p = dict(((m, qid), a) for m, qid, a in rows(db_path, "SELECT model, question_id, answer FROM predictions"))
    assert p[("writer_palmyra-x-004", "anatomy/0")] == "B"            # stripped
    assert p[("writer_palmyra-x-004", "anatomy/1")] is None           # not a single letter
    assert p[("writer_palmyra-x-004", "global_facts/0")] is None      # empty cell


def test_reimport_replaces(redux, db_path):
    import_mmlu_redux(redux, db=db_path)
    _subject(redux, "anatomy", [
        ["Which bone?", "['Femur', 'Tibia', 'Ulna', 'Skull']", 0, "bad_question_clarity", "B", "B"],
        ["Which organ, \"heart\"?", '["Liver", "Heart", "Lung", "Brain"]', 1, "ok", "B", "B"],
    ])
    import_mmlu_redux(redux, db=db_path)
    assert rows(db_path, "SELECT count(*) FROM predictions") == [(6,)]
    assert rows(db_path, "SELECT value FROM reference_labels WHERE question_id = 'anatomy/0'") == [
        ("bad_question_clarity",)]


def test_a_key_outside_the_choices_is_kept_and_flagged(tmp_path, db_path):
    _subject(tmp_path, "s", [["Q?", "['a', 'b']", 5, "ok", "A", "B"]])
    import_mmlu_redux(tmp_path / "s.csv", benchmark="r", db=db_path)
    assert rows(db_path, "SELECT answer_key, list_contains(flags, 'key_not_in_options') FROM questions") == [
        ("5", True)]


@pytest.mark.parametrize("choices,message", [
    ("not a list", "'choices' is not a list literal"),
    ("[1, 2]", "must be a list of strings"),
    ("['only']", "1 choices"),
    (str([str(i) for i in range(7)]), "7 choices"),
])
def test_bad_choices_name_the_line(tmp_path, db_path, choices, message):
    _subject(tmp_path, "s", [["Q1?", "['a', 'b']", 0, "ok", "A", "A"], ["Q2?", choices, 0, "ok", "A", "A"]])
    with pytest.raises(InputError, match=message) as e:
        import_mmlu_redux(tmp_path / "s.csv", db=db_path)
    assert "s.csv:3" in str(e.value)
    assert rows(db_path, "SELECT count(*) FROM questions") == [(0,)]


def test_model_columns_must_agree(redux, db_path):
    _subject(redux, "zoology", [["Q?", "['a', 'b']", 0, "ok", "A"]], models=MODELS[:1])
    with pytest.raises(InputError, match="model columns differ from anatomy.csv: writer_palmyra-x-004"):
        import_mmlu_redux(redux, db=db_path)


def test_no_model_columns_and_missing_columns(tmp_path, db_path):
    _subject(tmp_path, "s", [["Q?", "['a', 'b']", 0, "ok"]], models=[])
    with pytest.raises(InputError, match="no model columns"):
        import_mmlu_redux(tmp_path / "s.csv", db=db_path)
    (tmp_path / "t.csv").write_text("question,choices\nQ,\"['a','b']\"\n", encoding="utf-8")
    with pytest.raises(InputError, match="groundtruth_answer"):
        import_mmlu_redux(tmp_path / "t.csv", db=db_path)
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no <subject>.csv files"):
        import_mmlu_redux(tmp_path / "empty", db=db_path)
