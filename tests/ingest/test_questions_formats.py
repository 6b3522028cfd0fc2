"""Benchmarks of many shapes without a conversion script.

Fixtures are written by the tests in each shape: CMiLBench-style JSON arrays
with nested fields and multi-answer keys, per-model shuffled options, TLUE
5-shot option markers ("A 16～17ཉིན།"), files for ``import auto``.  Every
bad-input case gives ``error: FILE[:LINE]: …``, exit 1 and an unchanged
database."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

from audit.analyze import model_metrics
from audit.ingest import detect, import_predictions, import_questions, import_tlue
from audit.ingest.extract import extract_answer_set
from audit.ingest.formats import parse_tlue_item
from audit.scripts import script_of
from tests.conftest import db_snapshot
from tests.support.common import rows, run_cli

# CMiLBench-like items: a JSON array, options in `option`, explanation in
# metadata.reference, keys "A B D" (multi-answer), Mongolian in Mongolian
# script tagged `mn`, Uyghur in Arabic script.
CMIL = [
    {"id": "mn-1", "question": "ᠮᠣᠩᠭᠣᠯ ᠤᠯᠤᠰ ᠤᠨ ᠨᠡᠶᠢᠰᠯᠡᠯ ᠬᠣᠲᠠ ᠶᠠᠭᠤ ᠪᠤᠢ?", "language": "mn",
     "option": ["ᠤᠯᠠᠭᠠᠨᠪᠠᠭᠠᠲᠤᠷ", "ᠳᠠᠷᠬᠠᠨ", "ᠡᠷᠳᠡᠨᠢᠲᠦ", "ᠴᠣᠢᠪᠠᠯᠰᠠᠩ"], "answer": "A",
     "metadata": {"reference": "ᠤᠯᠠᠭᠠᠨᠪᠠᠭᠠᠲᠤᠷ", "source": "x"}},
    {"id": "mn-2", "question": "Аль нь тэгш тоо вэ?", "language": "mn",
     "option": ["2", "3", "4", "6"], "answer": "A C D", "metadata": {"reference": "2, 4, 6"}},
    {"id": "ug-1", "question": "قايسىلىرى تۈز سان؟", "language": "ug",
     "option": ["2", "4", "5", "9"], "answer": ["A", "C"], "metadata": {"reference": "2, 5"}},
    {"id": "bo-1", "question": "བོད་ཀྱི་རྒྱལ་ས་གང་ཡིན།", "language": "bo",
     "option": ["ལྷ་ས།", "གཞིས་ཀ་རྩེ།", "ཆབ་མདོ།"], "answer": "ABD", "metadata": {"reference": "ལྷ་ས།"}},
]
MAP = ["--map", "option=options", "--map", "metadata.reference=explanation"]


def _write_array(path, records):
    # pretty-printed: each record starts on its own line, so lines can be checked
    path.write_text("[\n" + ",\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n]\n",
                    encoding="utf-8")
    return path


def test_cmilbench_array_with_mapping_and_multi_answer(tmp_path, db_path, capsys):
    f = _write_array(tmp_path / "cmil.json", CMIL)
    code, out, err = run_cli(capsys, "import", "questions", f, "-b", "cmil", *MAP, "--db", db_path)
    assert code == 0, err
    assert "imported 4 questions" in out and "2 with a multi-answer key" in out
    got = {r[0]: r[1:] for r in rows(db_path, "SELECT question_id, answer_key, flags, script, explanation, "
                                            "json_extract_string(source_record, '$.metadata.source') "
                                            "FROM questions WHERE benchmark = 'cmil'")}
    assert got["mn-1"] == ("A", [], "Mong", "ᠤᠯᠠᠭᠠᠨᠪᠠᠭᠠᠲᠤᠷ", "x")      # Mongolian letters → Mong
    assert got["mn-2"][:3] == ("ACD", ["multi_answer"], "Cyrl")           # Cyrillic → Cyrl
    assert got["ug-1"][:3] == ("AC", ["multi_answer"], "Arab")
    # "ABD" on a 3-option item is not a set of its labels: kept as given and flagged
    assert got["bo-1"][:3] == ("ABD", ["key_not_in_options"], "Tibt")


def test_dry_run_shows_items_and_writes_nothing(tmp_path, db_path, capsys):
    f = _write_array(tmp_path / "cmil.json", CMIL)
    before = db_snapshot(db_path)
    code, out, err = run_cli(capsys, "import", "questions", f, "-b", "cmil", *MAP, "--dry-run", "--db", db_path)
    assert code == 0, err
    assert "[mn-2] Аль нь тэгш тоо вэ?" in out and "key: {A, C, D}" in out and "flags: multi_answer" in out
    assert "key_not_in_options" in out and "dry run: nothing was written" in out
    assert db_snapshot(db_path) == before


def test_mapping_file(tmp_path, db_path):
    f = _write_array(tmp_path / "cmil.json", CMIL)
    m = tmp_path / "map.txt"
    m.write_text("# CMiLBench\noption = options\nmetadata.reference = explanation\n")
    code_json = tmp_path / "map.json"
    code_json.write_text(json.dumps({"option": "options", "metadata.reference": "explanation"}))
    from audit.ingest.mapping import parse_map

    assert parse_map(map_file=m) == parse_map(map_file=code_json) == {"option": "options",
                                                                      "metadata.reference": "explanation"}
    s = import_questions(f, benchmark="cmil", db=db_path, mapping=parse_map(map_file=m))
    assert s.questions == 4


def test_multi_answer_scoring_exact_set_match(tmp_path, db_path):
    """Exact set match, checked against an independent count in Python."""
    import_questions(_write_array(tmp_path / "cmil.json", CMIL[:3]), benchmark="cmil", db=db_path,
                     mapping={"option": "options", "metadata.reference": "explanation"})
    preds = [  # (question, model, answer cell, raw response)
        ("mn-1", "m1", "A", ""), ("mn-2", "m1", "D, C, A", ""), ("ug-1", "m1", "", "The primes are A and C."),
        ("mn-1", "m2", "B", ""), ("mn-2", "m2", "AC", ""), ("ug-1", "m2", '["C","A"]', ""),
        ("mn-1", "m3", "", "A"), ("mn-2", "m3", "ACDE", ""), ("ug-1", "m3", "", "A, B, C, D"),
    ]
    p = tmp_path / "p.csv"
    p.write_text("question_id,model,answer,response\n" + "".join(
        f'{q},{m},"{a.replace(chr(34), chr(34) * 2)}","{r}"\n' for q, m, a, r in preds))
    import_predictions(p, benchmark="cmil", db=db_path)
    stored = dict(((q, m), (a, v)) for q, m, a, v in
                  rows(db_path, "SELECT question_id, model, answer, valid FROM predictions"))
    assert stored[("mn-2", "m1")] == ("ACD", True) and stored[("ug-1", "m1")] == ("AC", True)
    assert stored[("ug-1", "m2")] == ("AC", True) and stored[("mn-2", "m2")] == ("AC", True)
    assert stored[("mn-2", "m3")] == (None, False)          # E is not an option of a 4-option item
    assert stored[("ug-1", "m3")] == (None, False)          # listing every option is not an answer (caa)
    keys = {"mn-1": {"A"}, "mn-2": {"A", "C", "D"}, "ug-1": {"A", "C"}}
    expected = {m: sum(1 for (q, mm), (a, v) in stored.items() if mm == m and v and set(a) == keys[q])
                for m in ("m1", "m2", "m3")}
    got = model_metrics("cmil", db=db_path).set_index("model")["n_correct"].to_dict()
    assert got == expected == {"m1": 3, "m2": 1, "m3": 1}


def test_extract_answer_set():
    assert extract_answer_set("Answer: **B** and **D**", 4) == "BD"
    assert extract_answer_set("<think>A? C?</think> Final: C", 4) == "C"
    assert extract_answer_set("no idea", 4) is None


# --- per-model option order ---------------------------------------------------

UG_Q = [{"id": f"t{i}", "question": f"سوئال {i}؟", "options": ["ئالما", "ئۈزۈم", "نان", "سۇ"], "answer": "B"}
        for i in range(4)]


def test_per_model_option_order(tmp_path, db_path):
    """Each model saw its own shuffle: letters are mapped back, the written letter kept."""
    q = _write_array(tmp_path / "ug.json", UG_Q)
    import_questions(q, benchmark="ug", db=db_path)
    rng = np.random.default_rng(7)
    lines, truth = [], {}
    for m in ("m1", "m2", "m3"):
        for i in range(4):
            perm = rng.permutation(4)                        # perm[j] = item index shown at position j
            chosen_item = int(rng.integers(0, 4))
            written = "ABCD"[int(np.where(perm == chosen_item)[0][0])]
            form = i % 3
            shown = ("".join("ABCD"[x] for x in perm) if form == 0 else
                     json.dumps([int(x) for x in perm]) if form == 1 else
                     json.dumps([UG_Q[i]["options"][x] for x in perm], ensure_ascii=False))
            lines.append({"question_id": f"t{i}", "model": m, "answer": written, "options_shown": shown})
            truth[(f"t{i}", m)] = ("ABCD"[chosen_item], written)
    p = tmp_path / "p.jsonl"
    p.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines), encoding="utf-8")
    s = import_predictions(p, benchmark="ug", db=db_path)
    assert s.valid == 12
    got = {(q, m): (a, w) for q, m, a, w in rows(
        db_path, "SELECT p.question_id, p.model, p.answer, w.written FROM predictions p "
                 "JOIN prediction_written w USING (benchmark, question_id, model, run)")}
    assert got == truth


def test_bad_option_order_refused(tmp_path, db_path, capsys):
    import_questions(_write_array(tmp_path / "ug.json", UG_Q), benchmark="ug", db=db_path)
    p = tmp_path / "p.csv"
    p.write_text("question_id,model,answer,options_shown\nt0,m1,A,BADC\nt1,m1,B,ABCA\n")
    before = db_snapshot(db_path)
    code, out, err = run_cli(capsys, "import", "predictions", p, "-b", "ug", "--db", db_path)
    assert code == 1 and re.fullmatch(r"error: \S*p\.csv:3: options_shown is not an order of the item's 4 "
                                      r"options: ABCA\n", err), err
    assert db_snapshot(db_path) == before


# --- TLUE 5-shot markers ---------------------------------------------------------

def _tlue_spaced(n):
    return [{"loc": f"arts{i}", "answer": "B",
             "polished_ti_content": f"ཉིན་ག་ཚོད་ཡོད། {i}\nA 16～17ཉིན།\nB 18～19ཉིན།\nC 20～21ཉིན།\nD 22ཉིན།"}
            for i in range(n)]


def test_tlue_letter_space_markers(tmp_path, db_path):
    p = parse_tlue_item("ཉིན་ག་ཚོད་ཡོད། \nA 16～17ཉིན།\nB 18～19ཉིན།\nC 20ཉིན།\nD 21ཉིན།")
    assert [(o.label, o.text) for o in p.options] == [("A", "16～17ཉིན།"), ("B", "18～19ཉིན།"),
                                                      ("C", "20ཉིན།"), ("D", "21ཉིན།")] and not p.suspect
    d = tmp_path / "tlue5"
    d.mkdir()
    (d / "arts.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in _tlue_spaced(5)),
                                  encoding="utf-8")
    s = import_tlue(d, db=db_path)
    assert (s.items, s.parsed_cleanly, s.suspect) == (5, 5, 0)


def test_tlue_mostly_unparsable_is_refused(tmp_path, db_path, capsys):
    d = tmp_path / "bad"
    d.mkdir()
    recs = [{"loc": f"arts{i}", "answer": "A", "polished_ti_content": f"དྲི་བ་ {i} ལན་མེད།"} for i in range(4)]
    recs.append({"loc": "arts9", "answer": "A", "polished_ti_content": "དྲི་བ། \nA. ཀ\nB. ཁ"})
    (d / "arts.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), encoding="utf-8")
    before = db_snapshot(db_path)
    code, out, err = run_cli(capsys, "import", "tlue", d, "--db", db_path)
    assert code == 1 and err.startswith(f"error: {d}: 4 of 5 items could not be split") and \
        "nothing was imported" in err and "--accept-suspect" in err, err
    assert db_snapshot(db_path) == before
    code, out, err = run_cli(capsys, "import", "tlue", d, "--accept-suspect", "--db", db_path)
    assert code == 0 and "4 marked structure_suspect" in out, (out, err)


# --- script detection -------------------------------------------------------------

def test_script_column_still_wins(tmp_path, db_path):
    f = tmp_path / "q.csv"
    f.write_text("id,question,A,B,answer,language,script\nq1,Монгол хэл,a,b,A,mn,Mong\n"
                 "q2,莎士比亞的《李爾王》是____。,a,b,A,,\n", encoding="utf-8")
    import_questions(f, benchmark="s", db=db_path)
    assert dict(rows(db_path, "SELECT question_id, script FROM questions")) == {"q1": "Mong", "q2": "Hant"}
    assert script_of("ᠮᠣᠩᠭᠣᠯ", "mn") == "Mong" and script_of("Монгол", "mn") == "Cyrl"


# --- import auto ------------------------------------------------------------------

def test_auto_says_what_it_found_then_imports(tmp_path, db_path, capsys):
    f = _write_array(tmp_path / "cmil.json", CMIL)
    code, out, err = run_cli(capsys, "import", "auto", f, "-b", "cmil", *MAP, "--dry-run", "--db", db_path)
    assert code == 0 and out.startswith("found: questions") and "nothing was written" in out, (out, err)
    assert rows(db_path, "SELECT count(*) FROM questions") == [(0,)]
    code, out, err = run_cli(capsys, "import", "auto", f, "-b", "cmil", *MAP, "--db", db_path)
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("found: questions") and lines[-1].startswith("imported 4 questions")
    assert "fields read as: option → options (--map)" in out     # what --map and the recognition chose
    p = tmp_path / "p.csv"
    p.write_text("question_id,m1,m2\nmn-1,A,B\n")
    assert detect(p).format == "predictions-wide"
    d = tmp_path / "t"
    d.mkdir()
    (d / "arts.jsonl").write_text(json.dumps(_tlue_spaced(1)[0], ensure_ascii=False) + "\n", encoding="utf-8")
    assert detect(d).format == "tlue"


def test_auto_unknown_file(tmp_path, db_path, capsys):
    f = tmp_path / "odd.csv"
    f.write_text("foo,bar\n1,2\n")
    before = db_snapshot(db_path)
    code, out, err = run_cli(capsys, "import", "auto", f, "-b", "x", "--db", db_path)
    assert code == 1 and re.match(rf"error: {re.escape(str(f))}: format not recognised \(fields: foo, bar\)", err)
    assert db_snapshot(db_path) == before


# --- bad input: error: FILE[:LINE], exit 1, database unchanged ---------------------

@pytest.mark.parametrize(
    "content,args,pattern",
    [
        (
            '[\n {"id": "a", "question": "x", "option": ["1", "2"], "answer": "A"},\n {"id": "b", "question": "y", '
            '"option": ["1", "2"], "answer": "A"\n]\n',
            MAP[:2],
            r"cmil\.json:4: not valid JSON \(Expecting ',' delimiter",
        ),
        (
            '[\n {"id": "a", "question": "x", "option": ["1", "2"], "answer": "A"},\n 7\n]\n',
            MAP[:2],
            r"cmil\.json:3: expected a JSON object",
        ),
        (
            '[\n {"id": "a", "question": "x", "option": ["1"], "answer": "A"}\n]\n',
            MAP[:2],
            r"cmil\.json:2: 1 option\(s\)",
        ),
        (
            '[\n {"id": "a", "question": "x", "opts": ["1", "2"], "answer": "A"}\n]\n',
            MAP[:2],
            r"cmil\.json: mapped field 'option' is not in the file \(fields: id, question, opts, answer\)",
        ),
        (
            '[\n {"id": "a", "question": "x", "option": ["1", "2"], "answer": "A", "meta": {"r": 1}}\n]\n',
            ["--map", "option=options", "--map", "meta.ref=explanation"],
            r"cmil\.json: mapped field 'meta\.ref' is not in any record",
        ),
        (
            '[\n {"id": "a", "question": "x", "option": ["1", "2"], "answer": "A", "extra": 1}\n]\n',
            MAP[:2],
            r"cmil\.json: unknown column\(s\): extra",
        ),
        (
            '[\n {"id": "a", "question": "x", "option": ["1", "2"], "answer": "A"},\n {"id": "b", "question": "y", '
            '"option": {"a": 1}, "answer": "A"}\n]\n',
            MAP[:2],
            r"cmil\.json:3: 'option' \(read as options\) must be a list, not dict",
        ),
        (
            '[\n {"id": "a", "question": "x", "option": ["1", "2"], "answer": "A"},\n {"id": "b", "q": "", '
            '"option": ["1", "2"], "answer": "A"}\n]\n',
            ["--map", "option=options", "--map", "q=question", "--map", "question="],
            r"cmil\.json:2: empty question text in 'q' \(read as question\) \(id 'a'\)",
        ),
        (
            '[\n {"id": "a", "question": "x", "option": ["1", "2"], "answer": "A"}\n',
            MAP[:2],
            r"cmil\.json:\d+: not valid JSON \(the array is not closed",
        ),
    ],
)
def test_bad_array_inputs(tmp_path, db_path, capsys, content, args, pattern):
    f = tmp_path / "cmil.json"
    f.write_text(content, encoding="utf-8")
    import_questions(_write_array(tmp_path / "ok.json", CMIL[:1]), benchmark="cmil", db=db_path,
                     mapping={"option": "options", "metadata.reference": "explanation"})
    before = db_snapshot(db_path)
    code, out, err = run_cli(capsys, "import", "questions", f, "-b", "cmil", *args, "--db", db_path)
    assert code == 1 and len(err.strip().splitlines()) == 1 and re.match(r"error: \S*" + pattern, err), err
    assert db_snapshot(db_path) == before


def test_bad_map_spec(tmp_path, db_path, capsys):
    f = _write_array(tmp_path / "cmil.json", CMIL)
    before = db_snapshot(db_path)
    code, out, err = run_cli(capsys, "import", "questions", f, "-b", "c", "--map", "option", "--db", db_path)
    assert code == 1 and err.startswith("error: --map expects SOURCE=TARGET"), err
    m = tmp_path / "m.txt"
    m.write_text("option=options\nnonsense\n")
    code, out, err = run_cli(capsys, "import", "questions", f, "-b", "c", "--map-file", m, "--db", db_path)
    assert code == 1 and re.match(rf"error: {re.escape(str(m))}:2: expected SOURCE=TARGET", err), err
    assert db_snapshot(db_path) == before
