"""audit._util.files: the strict readers every importer uses.  Pins, on
small files in tmp_path: what is refused before reading (folders, FIFOs,
missing files, the size limit and its variable), the UTF-8 check (line of
the bad byte, a BOM dropped, an empty file), strict JSON (NaN refused
unless asked, the line of an error in a JSON array), CSV read by DuckDB as
text with line numbers (a short or long row, a duplicated or reserved
header, a glob character in the file name), and the small helpers
(``one_line``, ``require_columns``, ``nfc``)."""
from __future__ import annotations

import math
import os
import unicodedata

import pandas as pd
import pytest

from audit._util.files import (
    DEFAULT_MAX_INPUT,
    MAX_INPUT_ENV,
    check_input_file,
    check_utf8,
    csv_header,
    iter_table,
    json_array_records,
    load_json,
    max_input_bytes,
    nfc,
    one_line,
    read_csv,
    read_jsonl,
    read_table,
    read_text,
    require_columns,
)
from audit.errors import InputError


def write(tmp_path, name, data):
    p = tmp_path / name
    if isinstance(data, bytes):
        p.write_bytes(data)
    else:
        p.write_text(data, encoding="utf-8")
    return p


# ---------------------------------------------------------------- what may be read

def test_max_input_bytes_default_and_variable(monkeypatch):
    monkeypatch.delenv(MAX_INPUT_ENV, raising=False)
    assert max_input_bytes() == DEFAULT_MAX_INPUT == 4 * 2**30
    monkeypatch.setenv(MAX_INPUT_ENV, " 1000 ")
    assert max_input_bytes() == 1000
    monkeypatch.setenv(MAX_INPUT_ENV, "1e3")
    with pytest.raises(InputError, match="must be a number of bytes"):
        max_input_bytes()


def test_the_size_limit_is_inclusive(tmp_path, monkeypatch):
    p = write(tmp_path, "q.csv", "a\n1234\n")      # 7 bytes
    monkeypatch.setenv(MAX_INPUT_ENV, "7")
    assert check_input_file(p) == p
    monkeypatch.setenv(MAX_INPUT_ENV, "6")
    with pytest.raises(InputError, match=r"has 7 bytes, more than the limit of 6") as e:
        check_input_file(p)
    assert e.value.path == str(p)


def test_refused_before_reading(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        check_input_file(tmp_path / "none.csv")
    with pytest.raises(InputError, match="is a folder"):
        check_input_file(tmp_path)
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):    # would block if opened
        read_text(fifo)
    link = tmp_path / "zero.csv"
    link.symlink_to("/dev/zero")
    with pytest.raises(InputError, match="not a regular file"):
        read_table(link)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file(tmp_path):
    p = write(tmp_path, "q.csv", "a\n1\n")
    p.chmod(0)
    with pytest.raises(InputError, match="permission denied"):
        check_input_file(p)


# ---------------------------------------------------------------- text

def test_read_text_drops_a_bom_and_names_the_line_of_a_bad_byte(tmp_path):
    assert read_text(write(tmp_path, "a.txt", "\ufeffབོད\n")) == "བོད\n"
    p = write(tmp_path, "b.txt", b"ok\nstill ok\n\xff bad\n")
    with pytest.raises(InputError, match="byte 0xff at offset 12") as e:
        read_text(p)
    assert e.value.line == 3


def test_check_utf8_lines_and_empty_files(tmp_path):
    p = write(tmp_path, "a.csv", "a\n" + "ཀ" * 10 + "\n\xe9".encode("latin-1").decode("latin-1"))
    check_utf8(p)   # é written as UTF-8 above: fine
    bad = write(tmp_path, "b.csv", "a\nb\n".encode() + b"\xc3(\n")
    with pytest.raises(InputError) as e:
        check_utf8(bad, chunk_size=3)
    assert e.value.line == 3
    for blank in (b"", b"\xef\xbb\xbf", b" \n\r\n\t"):
        with pytest.raises(InputError, match="the file is empty"):
            check_utf8(write(tmp_path, "e.csv", blank))


def test_a_tibetan_character_cut_by_every_chunk_size_is_fine(tmp_path):
    p = write(tmp_path, "t.csv", "stem\nབསྒྲུབས\n")
    for size in range(1, 8):
        check_utf8(p, chunk_size=size)


def test_nfc():
    assert nfc("e\u0301") == "\u00e9"
    assert nfc(None) is None and nfc(3) == 3
    assert nfc(unicodedata.normalize("NFD", "\u0f73")) == unicodedata.normalize("NFC", "\u0f73")


# ---------------------------------------------------------------- JSON

def test_load_json_is_strict_unless_asked():
    assert load_json('{"a": [1, "ཀ"]}', "x.json") == {"a": [1, "ཀ"]}
    for const in ("NaN", "Infinity", "-Infinity"):
        with pytest.raises(InputError, match=f"{const} is not a JSON value"):
            load_json(f'{{"a": {const}}}', "x.json", 4)
    assert math.isnan(load_json('{"a": NaN}', "x.json", allow_nan=True)["a"])


def test_load_json_error_names_file_line_and_column():
    with pytest.raises(InputError) as e:
        load_json('{"a": 1,\n "b": }', "x.json")
    assert e.value.line == 2 and "column 7" in str(e.value) and str(e.value).startswith("x.json:2: ")


def test_deep_nesting_names_the_line_it_starts_on():
    with pytest.raises(InputError, match="nested too deeply") as e:
        load_json('{"a":\n\n' + "[" * 50_000, "x.json", 10)
    assert e.value.line == 12


def test_read_jsonl_skips_blank_lines_and_refuses_non_objects(tmp_path):
    p = write(tmp_path, "a.jsonl", '{"id": "1"}\n\n{"id": "2"}\n')
    assert list(read_jsonl(p)) == [(1, {"id": "1"}), (3, {"id": "2"})]
    with pytest.raises(InputError, match="expected a JSON object on each line") as e:
        list(read_jsonl(write(tmp_path, "b.jsonl", '{"id": 1}\n[1, 2]\n')))
    assert e.value.line == 2
    with pytest.raises(InputError, match="the file is empty"):
        list(read_jsonl(write(tmp_path, "c.jsonl", "\n  \n")))


@pytest.mark.parametrize("text, message, line", [
    ('[\n{"a": 1},\n{"a": 2},\n]', "trailing commas", 4),
    ('[\n{"a": 1}\n{"a": 2}]', "expected ','", 3),
    ('[\n{"a": 1}', "not closed", 2),
    ('[{"a": 1}] extra', "text after the closing", 1),
    ('[\n{"a": 1},\n2]', "a JSON object for each record", 3),
    ('[\n{"a": NaN}]', "NaN is not a JSON value", 2),
])
def test_json_array_errors_name_the_line(text, message, line):
    with pytest.raises(InputError, match=message) as e:
        list(json_array_records(text, "f.json"))
    assert e.value.line == line


def test_json_array_empty_and_one_record():
    assert list(json_array_records("[]", "f")) == []
    assert list(json_array_records('  [ {"q": "ཀ"} ]  ', "f")) == [(1, {"q": "ཀ"})]


# ---------------------------------------------------------------- tables

def test_read_csv_keeps_text_and_numbers_lines(tmp_path):
    p = write(tmp_path, "q.csv", 'id,stem,key\n01,"a, b",A\n002,"two\nlines",\n')
    df = read_csv(p)
    assert list(df.columns) == ["id", "stem", "key", "_line"]
    assert df["id"].tolist() == ["01", "002"]               # no type guessing
    assert df["stem"].tolist() == ["a, b", "two\nlines"]
    assert df["key"].tolist() == ["A", ""]                 # empty cell: ""
    assert df["_line"].tolist() == [2, 3]


def test_read_csv_row_length_errors_name_the_line(tmp_path):
    with pytest.raises(InputError, match="more fields than the header") as e:
        read_csv(write(tmp_path, "a.csv", "a,b\n1,2\n1,2,3\n"))
    assert e.value.line == 3
    with pytest.raises(InputError, match="the row has 1 field, the header has 2") as e:
        read_csv(write(tmp_path, "b.csv", "a,b\n1,2\n3\n"))
    assert e.value.line == 3
    with pytest.raises(InputError, match="a header but no rows"):
        read_csv(write(tmp_path, "c.csv", "a,b\n"))


def test_csv_header_rules(tmp_path):
    assert csv_header(write(tmp_path, "a.csv", "\ufeff,q,A\n0,x,y\n")) == ["Unnamed: 0", "q", "A"]
    with pytest.raises(InputError, match="names column 'm1' twice") as e:
        csv_header(write(tmp_path, "b.csv", "id,m1,m1\n1,A,B\n"))
    assert e.value.line == 1
    with pytest.raises(InputError, match="reserved"):
        csv_header(write(tmp_path, "c.csv", "id,_line\n1,2\n"))
    with pytest.raises(InputError, match="no header row"):
        csv_header(write(tmp_path, "d.csv", ",,\n1,2,3\n"))


def test_tsv_and_glob_characters_in_the_name(tmp_path):
    write(tmp_path, "g1.tsv", "a\tb\nwrong\tfile\n")
    p = write(tmp_path, "g[12].tsv", "a\tb\nx\tཀ\n")
    df = read_table(p)
    assert df[["a", "b"]].values.tolist() == [["x", "ཀ"]]


def test_read_table_jsonl_keeps_big_ids_exact_and_refuses_reserved(tmp_path):
    p = write(tmp_path, "p.jsonl", '{"id": 9007199254740993, "v": 1}\n{"id": null, "v": 2}\n')
    df = read_table(p)
    assert df["id"].tolist()[0] == 9007199254740993        # not rounded through float64
    assert df["_line"].tolist() == [1, 2]
    with pytest.raises(InputError, match="'_source'") as e:
        read_table(write(tmp_path, "r.jsonl", '{"a": 1}\n{"_source": 2}\n'))
    assert e.value.line == 2


def test_read_table_parquet_and_unknown_suffix(tmp_path):
    p = tmp_path / "t.parquet"
    pd.DataFrame({"q": ["a", "b", "c"]}).to_parquet(p)
    assert read_table(p)["_line"].tolist() == [1, 2, 3]
    empty = tmp_path / "e.parquet"
    pd.DataFrame({"q": pd.Series([], dtype=str)}).to_parquet(empty)
    with pytest.raises(InputError, match="no rows"):
        read_table(empty)
    with pytest.raises(InputError, match="unsupported file type '.xlsx'"):
        read_table(write(tmp_path, "x.xlsx", "x"))
    with pytest.raises(InputError, match="cannot read Parquet"):
        read_table(write(tmp_path, "bad.parquet", "not parquet"))


def test_iter_table_chunks_continue_line_numbers(tmp_path):
    p = write(tmp_path, "q.csv", "id\n" + "".join(f"{i}\n" for i in range(7)))
    chunks = list(iter_table(p, chunk_rows=3))
    lines = [n for c in chunks for n in c["_line"]]
    assert lines == list(range(2, 9))
    assert [x for c in chunks for x in c["id"]] == [str(i) for i in range(7)]
    with pytest.raises(InputError, match="a header but no rows"):
        list(iter_table(write(tmp_path, "h.csv", "id\n")))
    assert len(list(iter_table(write(tmp_path, "one.jsonl", '{"a": 1}\n')))) == 1


def test_one_line_and_require_columns():
    assert one_line("a\nb\tc") == "a b c"
    assert one_line("x" * 50, width=10) == "x" * 9 + "…"
    df = pd.DataFrame(columns=["id", "stem\nwith newline", "_line"])
    with pytest.raises(InputError, match=r"missing required column\(s\): key \(found: id, stem with newline\)"):
        require_columns(df, ["id", "key"], "f.csv")
    with pytest.raises(InputError, match=r"unknown column\(s\): stem with newline \(allowed: id\)"):
        require_columns(df, ["id"], "f.csv", allowed={"id"})
    require_columns(df, ["id"], "f.csv", allowed={"id", "stem\nwith newline"})
