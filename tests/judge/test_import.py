"""Strict reply parsing, prompt versions, and importing methodology judge
files (bad input refused with file:line, database unchanged)."""
from __future__ import annotations

import json

import duckdb
import pytest

from audit.errors import InputError, NotFoundError
from audit.judge import import_judge
from audit.judge._parse import parse_reply
from audit.judge._prompt import default_prompt, make_prompt, prompt_version
from tests.conftest import db_snapshot
from tests.support.judge_server import make_benchmark, run_cli

L4 = "ABCD"


@pytest.mark.parametrize("reply, ok, key_ok, answer", [
    ('{"answer_key_correct": false, "correct_answer": "B", "explanation": "e", "confidence": 0.7}', True, False, "B"),
    ('  {"answer_key_correct": true}  ', True, True, None),
    ('{"answer_key_correct": true, "correct_answer": "A"}', True, True, None),        # the key itself
    ('{"answer_key_correct": "No", "correct_answer": "(c)"}', True, False, "C"),
    ('{"answer_key_correct": false, "correct_answer": "D."}', True, False, "D"),
    ('{"answer_key_correct": false, "correct_answer": null}', True, False, None),     # no option correct
    ('{"answer_key_correct": false, "correct_answer": "ང"}', True, False, "D"),
    ('Answer follows {"answer_key_correct": false, "correct_answer": "B", "note": {"x": 1}} end', True, False, "B"),
    ('The set {1, 2} aside, {"answer_key_correct": false, "correct_answer": "C"}', True, False, "C"),
    ('```json\n{"answer_key_correct": false, "correct_answer": "B"}\n```', True, False, "B"),
    ('{"answer_key_correct": false, "correct_answer": "B"} {"answer_key_correct": false, "correct_answer": "B"}',
     False, None, None),                                                              # two objects: ambiguous
    ('{"answer_key_correct": false, "correct_answer": "E"}', False, None, None),     # not an option
    ('{"answer_key_correct": false, "correct_answer": 2}', False, None, None),
    ('{"answer_key_correct": "maybe", "correct_answer": "B"}', False, None, None),
    ('{"answer_key_correct": false, "correct_answer": "A"}', False, None, None),     # wrong yet gives the key
    ('{"answer_key_correct": true, "correct_answer": "B"}', False, None, None),      # correct yet another
    ('[{"answer_key_correct": true}]', False, None, None),
    ('The key is wrong, the answer is B.', False, None, None),                        # never guessed
    ('{"answer_key_correct": false, "correct_answer": "B"', False, None, None),
    ('', False, None, None),
    (None, False, None, None),
])
def test_parse_reply(reply, ok, key_ok, answer):
    v = parse_reply(reply, labels=L4, answer_key="A")
    assert v.parse_ok is ok
    assert v.answer_key_correct is key_ok
    assert v.correct_answer == answer
    assert (v.parse_error is None) == ok


def test_confidence_rules():
    def conf(c):
        return parse_reply(
            json.dumps({"answer_key_correct": True, "confidence": c}), labels=L4, answer_key="A"
        ).confidence

    assert conf(0.25) == 0.25 and conf("0.5") == 0.5 and conf(85) == 0.85
    assert conf("high") is None and conf(-1) is None and conf(500) is None and conf(True) is None


def test_prompt_version_is_template_hash():
    p = default_prompt()
    assert p.version == prompt_version(p.template) and p.version.startswith("p") and len(p.version) == 13
    other = make_prompt(p.template + " ")
    assert other.version != p.version
    with pytest.raises(InputError, match="lacks"):
        make_prompt("${question} ${options}")
    with pytest.raises(InputError, match=r"\$\$"):
        make_prompt("${question} ${options} ${answer_key} costs $5")
    # a literal brace needs no escaping; $$ is a dollar sign
    text = make_prompt('${question} ${options} ${answer_key} {"a": 1} $$5').render(
        stem="S", options=[("A", "x")], answer_key="A")
    assert text.endswith('{"a": 1} $5')


# ---------------------------------------------------------------- import

def write(path, lines):
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) if not isinstance(x, str) else x for x in lines) + "\n",
                    encoding="utf-8")
    return path


def rec(loc, ok=False, ans="C", expl="because", conf=0.9):
    return {"loc": loc, "polished_ti_content": "…", "llm_validation": {
        "answer_key_correct": ok, "correct_answer": ans, "answer_explanation": expl, "confidence": conf}}


def test_import_methodology_file(db_path, tmp_path):
    make_benchmark(db_path, name="tlue", n=5)
    f = write(tmp_path / "j.jsonl", [rec("q000"), rec("q001", ok=True, ans="A"), rec("q002", ans="ཁ"),
                                     rec("q003", ok=True, ans="B"), rec("q004", ok="false", ans="D", conf=None)])
    s = import_judge(f, judge="gemini-2.5-pro", db=db_path)
    assert (s.n_stored, s.n_disputed, s.n_parse_failed) == (5, 3, 1)
    con = duckdb.connect(str(db_path), read_only=True)
    got = {r[0]: r[1:] for r in con.execute(
        "SELECT question_id, parse_ok, answer_key_correct, correct_answer, explanation, confidence, source, "
        "prompt_version FROM judge_verdicts").fetchall()}
    run = con.execute("SELECT source, status, n_ok, n_parse_failed, file_path FROM judge_runs").fetchall()
    con.close()
    assert got["q000"] == (True, False, "C", "because", 0.9, "import", "imported")
    assert got["q001"][:3] == (True, True, None)
    assert got["q002"][:3] == (True, False, "B")        # Tibetan letter mapped
    assert got["q003"][0] is False                       # contradictory: stored, counted
    assert got["q004"][:3] == (True, False, "D") and got["q004"][4] is None
    assert run == [("import", "finished", 4, 1, str(f))]
    # importing again replaces, not duplicates
    import_judge(f, judge="gemini-2.5-pro", db=db_path)
    con = duckdb.connect(str(db_path), read_only=True)
    assert con.execute("SELECT count(*) FROM judge_verdicts").fetchone()[0] == 5
    con.close()


@pytest.mark.parametrize("lines, message", [
    ([rec("q000"), rec("nope1"), rec("q001"), rec("nope2")], r"2 id\(s\) are not questions.*'nope1' \(line 2\)"),
    ([rec("q000"), {"llm_validation": rec("q1")["llm_validation"]}], r":2: the field 'loc'"),
    ([rec("q000"), {"loc": "q001"}], r":2: the field 'llm_validation'"),
    ([{"loc": "q000", "llm_validation": {"correct_answer": "B"}}], r":1: llm_validation.answer_key_correct is missing"),
    ([rec("q000"), rec("q001", ans="E")], r":2: q001: correct_answer \"E\" is not one of this item's options"),
    ([rec("q000"), rec("q001", ans="7")], r":2: .*not one of this item's options"),
    ([rec("q000"), rec("q000")], r":2: 'q000' appears twice \(first at .*bad.jsonl:1\)"),
    ([rec("q000"), "{not json"], r":2: not valid JSON"),
    ([{"loc": "q000", "llm_validation": {"answer_key_correct": "perhaps"}}], r":1: .*must be true or false"),
])
def test_import_bad_input_changes_nothing(db_path, tmp_path, lines, message):
    make_benchmark(db_path, name="tlue", n=3)
    import_judge(write(tmp_path / "ok.jsonl", [rec("q002")]), judge="g", db=db_path)
    before = db_snapshot(db_path)
    with pytest.raises(InputError, match=message):
        import_judge(write(tmp_path / "bad.jsonl", lines), judge="g", db=db_path)
    assert db_snapshot(db_path) == before


def test_import_unknown_benchmark_and_cli(db_path, tmp_path, capsys):
    make_benchmark(db_path, name="tlue", n=2)
    f = write(tmp_path / "j.jsonl", [rec("q000"), rec("zz9")])
    with pytest.raises(NotFoundError):
        import_judge(f, judge="g", benchmark="other", db=db_path)
    before = db_snapshot(db_path)
    code, out, err = run_cli(capsys, "import", "judge", f, "--judge", "g", "--db", db_path)
    assert code == 1
    assert err.count("\n") == 1 and err.startswith("error: ") and "'zz9' (line 2)" in err
    assert db_snapshot(db_path) == before
    write(f, [rec("q000"), rec("q001", ok=True, ans="A")])
    code, out, _ = run_cli(capsys, "import", "judge", f, "--judge", "g", "--db", db_path)
    assert code == 0 and "imported 2 verdicts" in out and "key disputed 1" in out


def test_import_folder_of_subject_files(db_path, tmp_path):
    make_benchmark(db_path, name="tlue", n=4)
    d = tmp_path / "validation"
    d.mkdir()
    write(d / "s1.jsonl", [rec("q000"), rec("q002", ok=True, ans="A")])
    write(d / "s2.jsonl", [rec("q001"), rec("q003")])
    (d / "notes.txt").write_text("not a judge file", encoding="utf-8")
    s = import_judge(d, judge="g", db=db_path)
    assert (s.n_stored, s.n_disputed) == (4, 3)
    write(d / "s3.jsonl", [rec("q001")])
    before = db_snapshot(db_path)
    with pytest.raises(InputError, match=r"s3.jsonl:1: 'q001' appears twice \(first at .*s2.jsonl:1\)"):
        import_judge(d, judge="g", db=db_path)
    write(d / "s3.jsonl", [rec("zz")])
    with pytest.raises(InputError, match=r"'zz' \(s3.jsonl:1\)"):
        import_judge(d, judge="g", db=db_path)
    assert db_snapshot(db_path) == before
