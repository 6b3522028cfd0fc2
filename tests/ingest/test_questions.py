"""import_questions: formats, options, answers, scripts, NFC (real DuckDB files)."""
from __future__ import annotations

import json
import unicodedata

import pandas as pd
import pytest

from audit.errors import InputError
from audit.ingest import import_questions
from audit.scripts import script_of
from tests.support.common import rows


def test_csv_with_option_columns(tmp_path, db_path):
    f = tmp_path / "q.csv"
    f.write_text("id,question,A,B,C,D,answer,subject,explanation\n"
                 "q1,Capital of France?,Paris,Rome,Oslo,Bern,a,geo,because\n"
                 "q2,Two options,yes,no,,,B,,\n", encoding="utf-8")
    s = import_questions(f, benchmark="b1", db=db_path)
    assert (s.questions, s.key_not_in_options) == (2, 0)
    got = rows(db_path, "SELECT question_id, len(options), answer_key, subject, explanation, script, flags "
                        "FROM questions ORDER BY seq")
    assert got == [("q1", 4, "A", "geo", "because", "Latn", []), ("q2", 2, "B", None, None, "Latn", [])]
    opts = rows(db_path, "SELECT options FROM questions WHERE question_id = 'q1'")[0][0]
    assert opts == [{"label": "A", "text": "Paris"}, {"label": "B", "text": "Rome"},
                    {"label": "C", "text": "Oslo"}, {"label": "D", "text": "Bern"}]


def test_jsonl_options_list_and_answers(tmp_path, db_path):
    f = tmp_path / "q.jsonl"
    items = [
        {"id": "t1", "question": "ཀ་ཁ།", "options": ["ཀ", "ཁ", "ག"], "answer": "ཁ"},   # Tibetan letter → B
        {"id": "t2", "question": "这个问题", "options": ["一", "二"], "answer": 1},      # 0-based index → B
        {"id": "t3", "question": "這個問題", "options": ["一", "二", "三"], "answer": "0"},  # → A
        {"id": "t4", "question": "ئۇيغۇرچە سوئال", "options": ["a", "b"], "answer": "C"},  # not a label
        {"id": "t5", "question": "ᠮᠣᠩᠭᠣᠯ", "options": ["a", "b", "c", "d", "e", "f"], "answer": "F",
         "language": "mn-Mong"},
    ]
    f.write_text("\n".join(json.dumps(i, ensure_ascii=False) for i in items) + "\n", encoding="utf-8")
    s = import_questions(f, benchmark="b", db=db_path)
    assert s.questions == 5 and s.key_not_in_options == 1
    got = dict((r[0], r[1:]) for r in rows(db_path, "SELECT question_id, answer_key, script, flags FROM questions"))
    assert got["t1"] == ("B", "Tibt", [])
    assert got["t2"] == ("B", "Hans", [])
    assert got["t3"] == ("A", "Hant", [])
    assert got["t4"] == ("C", "Arab", ["key_not_in_options"])   # imported as given, flagged
    assert got["t5"] == ("F", "Mong", [])


def test_csv_options_as_python_or_json_literal(tmp_path, db_path):
    f = tmp_path / "q.csv"
    pd.DataFrame(
        {
            "id": ["a", "b"],
            "question": ["x?", "y?"],
            "options": ["['p', \"q's\"]", json.dumps(["r", "s", "t"])],
            "answer": ["B", "C"],
        }
    ).to_csv(f, index=False)
    import_questions(f, benchmark="b", db=db_path)
    got = rows(db_path, "SELECT question_id, [o.text for o in options] FROM questions ORDER BY seq")
    assert got == [("a", ["p", "q's"]), ("b", ["r", "s", "t"])]


def test_parquet_input(tmp_path, db_path):
    f = tmp_path / "q.parquet"
    pd.DataFrame({"id": [1, 2], "question": ["x?", "y?"], "options": [["a", "b"], ["c", "d", "e"]],
                  "answer": ["A", "E"]}).to_parquet(f)
    s = import_questions(f, benchmark="b", db=db_path)
    assert s.questions == 2 and s.key_not_in_options == 1
    assert rows(db_path, "SELECT question_id, answer_key FROM questions ORDER BY seq") == [("1", "A"), ("2", "E")]


def test_reimport_refuses_changed_content_unless_replace(tmp_path, db_path):
    from audit.errors import InputError
    from tests.conftest import db_snapshot

    f = tmp_path / "q.csv"
    f.write_text("id,question,A,B,answer\nq1,old,x,y,A\n")
    import_questions(f, benchmark="b", db=db_path)
    f.write_text("id,question,A,B,answer\nq1,new,x,y,B\nq2,other,x,y,A\n")
    before = db_snapshot(db_path)
    with pytest.raises(
        InputError, match=r"1 question already stored in 'b' with different content: 'q1' \(stem, key\)"
    ):
        import_questions(f, benchmark="b", db=db_path)
    assert db_snapshot(db_path) == before
    s = import_questions(f, benchmark="b", db=db_path, replace=True)
    assert (s.report.new, s.report.changed, s.report.unchanged) == (1, ["q1"], 0)
    assert rows(db_path, "SELECT question_id, stem, answer_key, seq FROM questions ORDER BY question_id") == [
        ("q1", "new", "B", 0), ("q2", "other", "A", 2)]    # a replaced item keeps its place


def test_option_gap_is_an_error(tmp_path, db_path):
    f = tmp_path / "q.csv"
    f.write_text("id,question,A,B,C,answer\nq1,x,a,,c,A\n")
    with pytest.raises(InputError, match=r"q\.csv:2: option B is empty but a later option is filled"):
        import_questions(f, benchmark="b", db=db_path)


def test_one_option_is_an_error(tmp_path, db_path):
    f = tmp_path / "q.jsonl"
    f.write_text(json.dumps({"id": "x", "question": "q", "options": ["only"], "answer": "A"}) + "\n")
    with pytest.raises(InputError, match=r"q\.jsonl:1: 1 option\(s\); an item has 2–10"):
        import_questions(f, benchmark="b", db=db_path)


def test_benchmark_required(tmp_path, db_path):
    f = tmp_path / "q.csv"
    f.write_text("id,question,A,B,answer\nq1,x,a,b,A\n")
    with pytest.raises(InputError, match="benchmark name is required"):
        import_questions(f, benchmark=" ", db=db_path)


@pytest.mark.parametrize("text,lang,expected", [
    ("བོད་ཀྱི་སྐད་ཡིག", None, "Tibt"),
    ("学习汉语的人们", None, "Hans"),
    ("學習漢語的人們", None, "Hant"),
    ("قازاق تىلى", None, "Arab"),
    ("ᠮᠣᠩᠭᠣᠯ ᠪᠢᠴᠢᠭ", None, "Mong"),
    ("Монгол хэл", None, "Cyrl"),
    ("What is 2+2?", None, "Latn"),
    # the letters decide, not the language code alone
    ("anything", "bo", "Latn"),
    ("12345", "bo", "Tibt"),
    ("ᠮᠣᠩᠭᠣᠯ ᠪᠢᠴᠢᠭ", "mn", "Mong"),
    ("Монгол хэл", "mn", "Cyrl"),
    ("莎士比亞的《李爾王》是____。", None, "Hant"),
    ("莎士比亞的《李爾王》是____。", "zh", "Hant"),
    ("莎士比亚的《李尔王》是____。", "zh-TW", "Hans"),
    ("中文", "zh-TW", "Hant"),
    ("中文", None, "Hans"),
    ("anything", "kk-Arab", "Arab"),
    ("anything", "zh-Hant", "Hant"),
    ("12345", None, None),
])
def test_script_of(text, lang, expected):
    assert script_of(text, lang) == expected


def test_tibetan_nfd_and_nfc_compare_equal_after_import(tmp_path, db_path):
    # Two encodings of the same Tibetan text: precomposed GHA (U+0F43) with the
    # vowel marks in non-canonical order, vs the decomposed, canonically ordered
    # form.  Tibetan's precomposed letters are composition exclusions, so NFC
    # is the decomposed form.
    typed = "\u0f43\u0f72\u0f71\u0f0b\u0f56\u0f7c\u0f51"
    canonical = "\u0f42\u0fb7\u0f71\u0f72\u0f0b\u0f56\u0f7c\u0f51"
    assert typed != canonical and unicodedata.normalize("NFC", typed) == canonical
    assert unicodedata.normalize("NFD", typed) == canonical
    f = tmp_path / "q.jsonl"
    f.write_text("\n".join(json.dumps(o, ensure_ascii=False) for o in [
        {"id": "a", "question": typed, "options": [typed, "x"], "answer": "A"},
        {"id": "b", "question": canonical, "options": ["y", "x"], "answer": "A"},
    ]) + "\n", encoding="utf-8")
    import_questions(f, benchmark="b", db=db_path)
    (a_stem, a_raw, a_opt, a_flags), (b_stem, b_raw, _, b_flags) = rows(
        db_path, "SELECT stem, raw_text, options[1].text, flags FROM questions ORDER BY question_id")
    assert a_stem == b_stem == canonical          # equal after import
    assert a_opt == canonical
    assert a_raw == typed and b_raw == canonical  # raw text kept exactly as imported
    assert "normalized_nfc" in a_flags and "normalized_nfc" not in b_flags
    n = rows(db_path, "SELECT count(DISTINCT stem) FROM questions")[0][0]
    assert n == 1
