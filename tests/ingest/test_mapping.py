"""audit.ingest.mapping: ``--map`` pairs and mapping files (JSON object or
SOURCE=TARGET lines with comments) parsed with every conflict refused and
the file and line named; dotted paths into nested records, fields joined
with ``+``, dropped fields, and a misspelt source never silently ignored."""
import pandas as pd
import pytest

from audit.errors import InputError
from audit.ingest.mapping import apply_mapping, get_path, json_array_records, parse_map


def test_pairs_and_a_lines_file(tmp_path):
    f = tmp_path / "m.txt"
    f.write_text("# how the file names its fields\nq = question\n\nmeta.ref=explanation  # nested\nextra=\n",
                 encoding="utf-8")
    assert parse_map(["ans=answer"], f) == {"q": "question", "meta.ref": "explanation", "extra": "", "ans": "answer"}


def test_a_json_file(tmp_path):
    f = tmp_path / "m.json"
    f.write_text('{"option": "options", "junk": null, "问题": "question"}', encoding="utf-8")
    assert parse_map(None, f) == {"option": "options", "junk": "", "问题": "question"}


@pytest.mark.parametrize("content,message,line", [
    ('["a"]', "must be a JSON object", None),
    ('{"a": 1}', "must be a JSON object", None),
    ('{"a": "b",\n "c": }', "not valid JSON", 2),
])
def test_bad_json_files(tmp_path, content, message, line):
    f = tmp_path / "m.json"
    f.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=message) as e:
        parse_map(None, f)
    assert str(f) in str(e.value)
    if line:
        assert f":{line}" in str(e.value)


def test_bad_line_names_the_line(tmp_path):
    f = tmp_path / "m.txt"
    f.write_text("a=b\nno equals sign here\n", encoding="utf-8")
    with pytest.raises(InputError, match="expected SOURCE=TARGET") as e:
        parse_map(None, f)
    assert f"{f}:2" in str(e.value)


@pytest.mark.parametrize("specs,message", [
    (["nosign"], "--map expects SOURCE=TARGET"),
    (["=question"], "empty field name"),
    (["a..b=question"], "empty field name"),
    (["_line=id"], "bookkeeping"),
    (["x=_row"], "bookkeeping"),
    (["a=question", "a=stem"], "mapped twice"),
    (["a=question", "b=question"], "two fields are mapped to 'question'"),
])
def test_conflicts_are_refused(specs, message):
    with pytest.raises(InputError, match=message):
        parse_map(specs)


def test_the_same_pair_twice_is_fine():
    assert parse_map(["a=b", "a=b"]) == {"a": "b"}


def test_get_path():
    rec = {"a": {"b": {"c": 0}}, "x.y": 5, "l": [1]}
    assert get_path(rec, "a.b.c") == 0 and get_path(rec, "x.y") == 5
    assert get_path(rec, "a.z") is get_path(rec, "l.0")          # absent: the same sentinel
    assert get_path(rec, "a.z") is not None


def _df(**cols):
    n = len(next(iter(cols.values())))
    return pd.DataFrame({**cols, "_line": list(range(2, n + 2))})


def test_rename_nested_and_drop():
    df = _df(q=["x", "y"], meta=[{"ref": "r1", "src": "s"}, "not an object"], extra=[1, 2])
    out = apply_mapping(df, {"q": "question", "meta.ref": "explanation", "extra": ""}, "f.jsonl")
    assert out.columns.tolist() == ["_line", "question", "explanation"]
    assert out["explanation"][0] == "r1" and pd.isna(out["explanation"][1])
    assert out.attrs["mapped_from"] == {"question": "q", "explanation": "meta.ref"}
    assert "q" in df.columns          # the input frame is left alone


def test_fields_joined_with_plus():
    df = _df(context=["ཀ་ཁ།", None, "  "], q=["ག?", "Why?", "How?"])
    out = apply_mapping(df, {"context+q": "question"}, "f")
    assert out["question"].tolist() == ["ཀ་ཁ།\n\nག?", "Why?", "How?"]
    assert "context" not in out.columns and "q" not in out.columns


def test_a_parent_mapped_onto_its_own_name():
    df = _df(question=[{"stem": "s1"}, {"stem": "s2"}])
    assert apply_mapping(df, {"question.stem": "question"}, "f")["question"].tolist() == ["s1", "s2"]


@pytest.mark.parametrize("mapping,message", [
    ({"nope": "question"}, "mapped field 'nope' is not in the file .fields: q, meta"),
    ({"meta.nope": "explanation"}, "mapped field 'meta.nope' is not in any record"),
    ({"q": "meta"}, "the file already has a field 'meta'"),
    ({"q+": "question"}, "empty field name"),
])
def test_mapping_errors(mapping, message):
    df = _df(q=["x"], meta=[{"ref": "r"}])
    with pytest.raises(InputError, match=message):
        apply_mapping(df, mapping, "f")


def test_empty_mapping_returns_the_frame():
    df = _df(q=["x"])
    assert apply_mapping(df, {}, "f") is df


def test_json_array_records_keep_their_lines():
    text = '[\n  {"a": 1},\n\n  {"a": "ཀ"}\n]'
    assert list(json_array_records(text, "f")) == [(2, {"a": 1}), (4, {"a": "ཀ"})]
