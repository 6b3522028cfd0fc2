"""audit.store.sources: prediction sets read in place.  Pins the pure parts
(URI protocol and normalisation, credentials refused in a URI, listing
differences in words, the reasons an error is reduced to, the file token
of a remote listing) and, on local Parquet files and a real DuckDB file,
that a registered source's rows join ``all_predictions`` and that a source
changed or removed after registration fails the read with one line naming
it (other tables stay readable).  S3 and the Hugging Face Hub need a
server and are not exercised here."""
from __future__ import annotations

import json
import os

import pandas as pd
import pytest

from audit.errors import InputError
from audit.store import connect, sources
from audit.store.sources import (
    COLUMNS,
    SourceError,
    SourceListing,
    _reason,
    _token,
    changes,
    list_source,
    normalize_uri,
    parquet_scan_sql,
    source_error,
    source_protocol,
)


@pytest.mark.parametrize("uri, protocol", [
    ("preds/*.parquet", "file"), ("/abs/x.parquet", "file"), ("file:///abs/x.parquet", "file"),
    ("s3://bucket/p/", "s3"), ("S3A://bucket/p/", "s3"), ("hf://datasets/o/n/x.parquet", "hf"),
    ("C:/not/a/scheme", "file"),
])
def test_source_protocol(uri, protocol):
    assert source_protocol(uri) == protocol


@pytest.mark.parametrize("uri, says", [
    ("s3://AKIA:secret@bucket/p/", "credentials do not belong"),
    ("https://example.org/p.parquet", "unsupported source (https://)"),
    ("gs://bucket/p", "unsupported source (gs://)"),
])
def test_source_protocol_refusals(uri, says):
    with pytest.raises(InputError, match=says.replace("(", r"\(").replace(")", r"\)")) as e:
        source_protocol(uri)
    assert "secret" not in str(e.value)


def test_normalize_uri(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert normalize_uri("p/../q.parquet") == str(tmp_path / "q.parquet")
    assert normalize_uri(f"file://{tmp_path}/a/./b.parquet") == str(tmp_path / "a" / "b.parquet")
    assert normalize_uri("  hf://datasets/o/n/ ") == "hf://datasets/o/n/"


def test_changes_in_words():
    a = [("/x/a.parquet", 10, "t1"), ("/x/b.parquet", 5, "t1")]
    assert changes(a, a, "r1", "r2") == "revision r1 -> r2"
    assert changes(a, a + [("/x/c.parquet", 1, "t")], None, None) == "1 file(s) added (e.g. /x/c.parquet)"
    assert changes(a, a[:1], None, None) == "1 file(s) removed (e.g. /x/b.parquet)"
    assert changes(a, [("/x/a.parquet", 10, "t2"), a[1]], None, None) == "/x/a.parquet changed"
    assert changes(a, a, None, None) == "its listing differs"


def test_fingerprint_depends_on_listing_and_revision():
    one = (("/x/a.parquet", 10, "1"),)
    base = SourceListing("u", "file", ("/x/a.parquet",), one, None)
    assert base.fingerprint == SourceListing("other", "file", (), one, None).fingerprint   # the URI is not part
    assert base.fingerprint != SourceListing("u", "hf", (), one, "abc").fingerprint


def test_tokens_of_remote_listings():
    assert _token({"ETag": '"abc"'}) == "abc"
    assert _token({"blob_id": "b1", "mtime": 5}) == "b1"
    assert _token({"lfs": {"sha256": "f00"}}) == "f00"
    assert _token({"LastModified": "2024-01-01"}) == "2024-01-01"
    assert _token({}) == ""


def test_reasons_are_a_few_words_without_secrets(monkeypatch):
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://user:pw@minio:9000")
    assert _reason(ConnectionRefusedError("x")).startswith("connection refused by http://***:***@minio:9000")
    assert _reason(FileNotFoundError("p")) == "not found"
    assert _reason(PermissionError("p")).startswith("access denied")
    assert _reason(RuntimeError("An error occurred (AccessDenied) when calling")).startswith("access denied")
    assert _reason(RuntimeError("Unable to locate credentials")).startswith("no credentials")
    odd = _reason(RuntimeError("bad thing token=abcdefghijkl\nsecond line"))
    assert odd == "RuntimeError: bad thing token=***"


def write_preds(path, rows):
    pd.DataFrame(rows, columns=list(COLUMNS)).to_parquet(path)


ROWS = [["b", "q1", "m1", "r", "A", "A", "letter", True], ["b", "q2", "m1", "r", "ཀ", None, "letter", False]]


def test_list_source_local_file_folder_glob_and_nothing(tmp_path):
    (tmp_path / "d" / "sub").mkdir(parents=True)
    write_preds(tmp_path / "d" / "a.parquet", ROWS)
    write_preds(tmp_path / "d" / "sub" / "b.parquet", ROWS)
    (tmp_path / "d" / "notes.txt").write_text("x")
    folder = list_source(str(tmp_path / "d"))
    assert [os.path.basename(f) for f in folder.files] == ["a.parquet", "b.parquet"]
    assert folder.protocol == "file" and folder.revision is None
    assert all(size > 0 for _, size, _ in folder.listing)
    glob = list_source(str(tmp_path / "d" / "*.parquet"))
    assert [os.path.basename(f) for f in glob.files] == ["a.parquet"]
    with pytest.raises(SourceError, match="unreachable: not found") as e:
        list_source(str(tmp_path / "missing"))
    assert e.value.reason == "not found"
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match="no Parquet file found"):
        list_source(str(tmp_path / "empty"))


def test_parquet_scan_sql_quotes_paths_and_reads_file_rows(tmp_path):
    import duckdb

    p = tmp_path / "it's.parquet"
    write_preds(p, ROWS)
    sql = parquet_scan_sql([str(p)], union_by_name=True)
    assert "union_by_name = true" in sql
    got = duckdb.connect().execute(f"SELECT question_id, file_row_number FROM {sql} ORDER BY 2").fetchall()
    assert got == [("q1", 0), ("q2", 1)]


def test_source_error_reads_only_our_messages():
    assert source_error(RuntimeError("Invalid Input Error: prediction source x is unreachable: y")).uri == ""
    assert str(source_error(RuntimeError("Invalid Input Error: prediction source x is unreachable: y"))) == \
        "prediction source x is unreachable: y"
    assert source_error(RuntimeError("Invalid Input Error: something else")) is None
    assert source_error(RuntimeError("")) is None


def register(db, uri):
    listing = list_source(uri)
    relation = (f"SELECT {', '.join(COLUMNS)} FROM {parquet_scan_sql(listing.files)}")
    with connect(db) as con:
        con.execute("INSERT INTO prediction_sources (benchmark, uri, protocol, files, listing, fingerprint, n_rows, "
                    "n_valid, models, relation_sql) VALUES ('b', ?, 'file', ?, ?, ?, 2, 1, ['m1'], ?)",
                    [uri, list(listing.files), json.dumps([list(x) for x in listing.listing]), listing.fingerprint,
                     relation])
    sources.remember_listing(listing)


def test_a_registered_source_joins_all_predictions_and_a_change_is_one_line(db_path, tmp_path, monkeypatch):
    p = tmp_path / "preds.parquet"
    write_preds(p, ROWS)
    register(db_path, str(p))
    with connect(db_path, read_only=True) as con:
        rows = con.execute("SELECT question_id, response, valid FROM all_predictions ORDER BY 1").fetchall()
    assert rows == [("q1", "A", True), ("q2", "ཀ", False)]

    monkeypatch.setattr(sources, "CHECK_EVERY", 0.0)        # list again on the next connection
    write_preds(p, ROWS + [["b", "q3", "m1", "r", "B", "B", "letter", True]])
    with connect(db_path, read_only=True) as con:                 # what does not read predictions still works
        assert con.execute("SELECT count(*) FROM benchmarks").fetchone()[0] == 0
    # the failing branch raises inside DuckDB; connect turns it into the one line
    with pytest.raises(SourceError, match=r"changed since it was registered: .*preds\.parquet changed") as e:
        with connect(db_path, read_only=True) as con:
            con.execute("SELECT count(*) FROM all_predictions").fetchall()
    assert "--refresh" in str(e.value) and "\n" not in str(e.value)

    p.unlink()
    with pytest.raises(SourceError, match="is unreachable: not found"):
        with connect(db_path, read_only=True) as con:
            con.execute("SELECT * FROM all_predictions").fetchall()
