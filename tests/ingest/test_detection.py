"""Layouts in their published shape, written here (ARC option
objects, HF ARC ``{text: [...], label: [...]}``, folders of colliding ids,
two-field stems, embedded options, map files over folders, constants), key
bases, ids, and the smaller blocks of item 7."""
from __future__ import annotations

import json

import pytest

from audit.errors import InputError
from audit.ingest import import_predictions
from audit.ingest._questions import import_questions
from tests.conftest import db_snapshot
from tests.support.common import rows, run_cli


def _jsonl(path, recs):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), encoding="utf-8")
    return path


def stored(db, benchmark="b"):
    return {r[0]: r[1:] for r in rows(db, "SELECT question_id, answer_key, [o.text FOR o IN options], subject, "
                                          "script, stem FROM questions WHERE benchmark = ?", [benchmark])}


def test_arc_layout_auto_uses_the_labels(tmp_path, db_path, capsys):
    f = _jsonl(tmp_path / "arc.jsonl", [
        {"id": "Mercury_7", "question": {"stem": "Which gas do plants take in?", "choices": [
            {"text": "oxygen", "label": "1"}, {"text": "carbon dioxide", "label": "2"},
            {"text": "helium", "label": "3"}, {"text": "neon", "label": "4"}]}, "answerKey": "2"},
        {"id": "Mercury_8", "question": {"stem": "Which is largest?", "choices": [
            {"text": "ant", "label": "A"}, {"text": "whale", "label": "B"}, {"text": "cat", "label": "C"}]},
         "answerKey": "B"},
    ])
    code, out, err = run_cli(capsys, "import", "auto", f, "-b", "b", "--db", db_path)
    assert code == 0, err
    assert "question.stem → question, question.choices → options, answerKey → answer" in out
    got = stored(db_path)
    assert got["Mercury_7"][:2] == ("B", ["oxygen", "carbon dioxide", "helium", "neon"])   # label "2" = 2nd option
    assert got["Mercury_8"][0] == "B"


def test_hf_arc_choices_object_and_lettered_dict(tmp_path, db_path):
    f = _jsonl(tmp_path / "q.jsonl", [
        {"id": "h1", "question": "x?", "options": {"text": ["a", "b", "c"], "label": ["1", "2", "3"]}, "answer": "3"},
        {"id": "h2", "question": "y?", "options": {"A": "red", "B": "blue"}, "answer": "B"},
    ])
    import_questions(f, benchmark="b", db=db_path)
    got = stored(db_path)
    assert got["h1"][:2] == ("C", ["a", "b", "c"]) and got["h2"][:2] == ("B", ["red", "blue"])


@pytest.mark.parametrize("answers, base, keys", [
    (["0", "3", "1"], None, ["A", "D", "B"]),          # a 0: counted from 0
    (["1", "4", "2"], None, ["A", "D", "B"]),          # a 4 of 4 options and no 0: from 1
    (["1", "2", "2"], 1, ["A", "B", "B"]),             # undecidable: the flag decides
    (["1", "2", "2"], 0, ["B", "C", "C"]),
])
def test_key_bases(tmp_path, db_path, answers, base, keys):
    f = tmp_path / "q.csv"
    f.write_text("question,option_1,option_2,option_3,option_4,answer\n"
                 + "".join(f"q{i},a,b,c,d,{a}\n" for i, a in enumerate(answers)), encoding="utf-8")
    import_questions(f, benchmark="b", db=db_path, key_base=base)
    assert [stored(db_path)[f"q/{i}"][0] for i in range(3)] == keys   # no id field: <file>/<row>


def test_undecidable_and_contradictory_key_bases_refused(tmp_path, db_path):
    f = tmp_path / "q.csv"
    f.write_text("id,question,A,B,C,D,answer\na,x,w,x,y,z,1\nb,y,w,x,y,z,2\n", encoding="utf-8")
    before = db_path.read_bytes()
    with pytest.raises(InputError, match="pass --key-base 0 or --key-base 1"):
        import_questions(f, benchmark="b", db=db_path)
    f.write_text("id,question,A,B,C,D,answer\na,x,w,x,y,z,0\nb,y,w,x,y,z,4\n", encoding="utf-8")
    with pytest.raises(InputError, match="cannot all count from the same base"):
        import_questions(f, benchmark="b", db=db_path)
    assert db_path.read_bytes() == before


def test_folder_with_colliding_ids_and_a_map_file_missing_a_field(tmp_path, db_path, capsys):
    d = tmp_path / "cmil"
    d.mkdir()
    _jsonl(d / "kk.jsonl", [{"no": 1, "q": "Сұрақ?", "opts": ["а", "ә"], "ans": "A", "ref": "r1"}])
    _jsonl(d / "mn.jsonl", [{"no": 1, "q": "ᠠᠰᠠᠭᠤᠯᠲᠠ?", "opts": ["x", "y"], "ans": "B"}])   # no 'ref'
    m = tmp_path / "map.txt"
    m.write_text("no=id\nq=question\nopts=options\nans=answer\nref=explanation\n", encoding="utf-8")
    before = db_path.read_bytes()
    code, out, err = run_cli(capsys, "import", "questions", d, "-b", "b", "--map-file", m, "--db", db_path)
    # ids that repeat across files are refused, never renamed (renaming would depend on the other files)
    assert code == 1 and "the ids of kk.jsonl and mn.jsonl collide ('1')" in err and "--id" in err, err
    assert db_path.read_bytes() == before
    code, out, err = run_cli(capsys, "import", "questions", d, "-b", "b", "--map-file", m, "--id", "{file}/{id}",
                             "--db", db_path)
    assert code == 0, err
    assert "mapped field 'ref' absent from 1 file(s): mn.jsonl" in out
    got = stored(db_path)
    assert set(got) == {"kk/1", "mn/1"} and got["kk/1"][2:4] == ("kk", "Cyrl") and got["mn/1"][2:4] == ("mn", "Mong")


def test_id_template_and_constants(tmp_path, db_path, capsys):
    f = _jsonl(tmp_path / "bio.jsonl", [{"subject": "bio", "n": 7, "question": "x?", "options": ["a", "b"],
                                         "answer": "a"}])
    code, out, err = run_cli(capsys, "import", "questions", f, "-b", "b", "--map", "n=", "--id", "{subject}-{n}",
                             "--set", "language=kk", "--db", db_path)
    assert code == 1 and "--id names the field 'n'" in err          # a dropped field is not there
    code, out, err = run_cli(capsys, "import", "questions", f, "-b", "b", "--id", "{file}:{subject}-{row}",
                             "--set", "language=kk", "--set", "explanation=given", "--map", "n=", "--db", db_path)
    assert code == 0, err
    assert rows(db_path, "SELECT question_id, language, explanation FROM questions") == [("bio:bio-0", "kk", "given")]
    code, out, err = run_cli(capsys, "import", "questions", f, "-b", "c", "--set", "subject=x", "--db", db_path)
    assert code == 1 and "--set subject=…: the file already has a field 'subject'" in err


def test_two_field_stem_and_embedded_options(tmp_path, db_path):
    f = tmp_path / "q.csv"
    f.write_text('id,ctx,q,answer\ns1,"Read: the cat sat.","What sat?\nA. the cat\nB. the dog",A\n', encoding="utf-8")
    import_questions(f, benchmark="b", db=db_path, mapping={"ctx+q": "question"})
    got = stored(db_path)["s1"]
    assert got[0] == "A" and got[1] == ["the cat", "the dog"] and got[4] == "Read: the cat sat.\n\nWhat sat?"


def test_script_is_decided_by_the_stem_first(tmp_path, db_path):
    f = tmp_path / "q.csv"
    f.write_text("id,question,A,B,C,D,answer\n"
                 "m1,下列哪个是正确的化学式？,H2O,CO2,NaCl,KMnO4,A\n"
                 "m2,Қай формула дұрыс?,H2O,CO2,NaCl,KMnO4,A\n", encoding="utf-8")
    import_questions(f, benchmark="b", db=db_path)
    got = stored(db_path)
    assert got["m1"][3] == "Hans" and got["m2"][3] == "Cyrl"


def _questions_and_predictions(tmp_path, db_path, questions: str, predictions: str):
    """Import a question CSV; write a prediction CSV; return both paths."""
    f, p = tmp_path / "q.csv", tmp_path / "p.csv"
    f.write_text("id,question,A,B,answer\n" + questions, encoding="utf-8")
    import_questions(f, benchmark="b", db=db_path)
    p.write_text("question_id,model,answer\n" + predictions, encoding="utf-8")
    return f, p


def test_replace_lists_items_with_predictions(tmp_path, db_path, capsys):
    f, p = _questions_and_predictions(tmp_path, db_path, "q1,x,a,b,A\nq2,y,a,b,A\n", "q1,m,A\n")
    import_predictions(p, benchmark="b", db=db_path)
    f.write_text("id,question,A,B,answer\nq1,x,a,b,B\nq2,y changed,a,b,A\nq3,z,a,b,A\n", encoding="utf-8")
    before = db_snapshot(db_path)
    code, out, err = run_cli(capsys, "import", "questions", f, "-b", "b", "--db", db_path)
    assert code == 1 and "2 questions already stored in 'b' with different content: 'q1' (key); 'q2' (stem)" in err
    assert db_snapshot(db_path) == before
    code, out, err = run_cli(capsys, "import", "questions", f, "-b", "b", "--replace", "--db", db_path)
    assert code == 0, err
    assert "1 new; 2 replaced with changed content (q1, q2)" in out
    assert "replaced items that already had predictions or verdicts: q1" in out


def test_predictions_for_unknown_ids_skipped_with_a_report(tmp_path, db_path, capsys):
    f, p = _questions_and_predictions(tmp_path, db_path, "q1,x,a,b,A\n", "q1,m,B\nzz,m,A\n")
    code, out, err = run_cli(capsys, "import", "predictions", p, "-b", "b", "--db", db_path)
    assert code == 1 and "--skip-unknown" in err
    code, out, err = run_cli(capsys, "import", "predictions", p, "-b", "b", "--skip-unknown", "--db", db_path)
    assert code == 0 and "skipped 1 row(s) for question ids the benchmark does not have (e.g. 'zz' (line 3))" in out
    assert rows(db_path, "SELECT question_id, answer FROM predictions") == [("q1", "B")]


def test_auto_dry_run_of_predictions_writes_nothing(tmp_path, db_path, capsys):
    f, p = _questions_and_predictions(tmp_path, db_path, "q1,x,a,b,A\n", "q1,m,B\nzz,m,A\n")
    before = db_path.read_bytes()
    code, out, err = run_cli(capsys, "import", "auto", p, "-b", "b", "--dry-run", "--db", db_path)
    assert code == 1 and "does not have" in err      # the dry run runs the import's checks
    p.write_text("question_id,model,answer\nq1,m,B\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "import", "auto", p, "-b", "b", "--dry-run", "--db", db_path)
    assert code == 0 and "nothing was written; it would report: imported 1 predictions" in out
    assert db_path.read_bytes() == before


def test_auto_nested_option_and_metadata_fields(tmp_path, db_path, capsys):
    f = tmp_path / "cmil.json"
    f.write_text(json.dumps([
        {"query": "Which river?", "option": {"A": "Ili", "B": "Ural", "C": "Syr"}, "gold": "B",
         "metadata": {"subject": "geo", "source": "x"}},
        {"query": "Which lake?", "option": {"A": "Balkhash", "B": "Aral"}, "gold": "a",
         "metadata": {"subject": "geo"}}], ensure_ascii=False), encoding="utf-8")
    code, out, err = run_cli(capsys, "import", "auto", f, "-b", "b", "--db", db_path)
    assert code == 0, err
    assert "metadata.subject → subject" in out
    got = stored(db_path)
    assert got["cmil/0"][:3] == ("B", ["Ili", "Ural", "Syr"], "geo") and got["cmil/1"][:2] == (
        "A",
        ["Balkhash", "Aral"],
    )
    src = rows(db_path, "SELECT json_extract_string(source_record, '$.metadata.source') FROM questions "
                        "WHERE question_id = 'cmil/0'")
    assert src == [("x",)]          # the rest of the record is kept
