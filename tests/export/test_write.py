"""audit.export._write: the writers of a version's files, on hand-built
frames — CSV formula cells neutralised (read back with the csv module), TLUE
records byte-identical but for a corrected ``answer`` (in the source's label
style), the generic layout as wide as the widest item, the changelog's rows,
exclusion lists, Parquet order check, and the atomic staging folder."""
from __future__ import annotations

import csv
import hashlib
import io
import json
import subprocess
import sys

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from audit.errors import AuditError, InputError
from audit.export._write import (
    CHANGELOG_COLUMNS,
    PARTIAL_MARK,
    _safe_stem,
    _same_script_label,
    changelog_frame,
    csv_bytes,
    generic_frame,
    publish,
    remove_stale_partials,
    sha256_file,
    staged_directory,
    write_changelog,
    write_exclusions,
    write_generic_native,
    write_parquet,
    write_tlue_native,
)


def _opts(*texts):
    return [{"label": "ABCDEF"[i], "text": t} for i, t in enumerate(texts)]


QUESTIONS = pd.DataFrame({
    "question_id": ["q1", "q2", "q3"],
    "subject": ["=cmd", "math", "math"],
    "language": ["bo", "en", "ug"],
    "script": ["Tibt", "Latn", "Arab"],
    "stem": ["བོད་ཡིག", "-1 + 1 = ?", "ئۇيغۇرچە"],
    "options": [_opts("ཀ", "ཁ"), _opts("0", "1", "2", "@SUM(A1)", "x", "y"), _opts("ئا", "ب", "ت")],
    "explanation": [None, "+because", None],
    "source_record": [
        json.dumps({"question": "བོད་ཡིག", "answer": "ཀ", "z": 1}, ensure_ascii=False),
        json.dumps({"answer": "b", "question": "-1 + 1 = ?"}),
        json.dumps({"q": "ئۇيغۇرچە", "answer": "A"}, ensure_ascii=False),
    ],
})


def _items(**over):
    base = {
        "seq": [1, 2, 3], "question_id": ["q1", "q2", "q3"], "subject": ["=cmd", "math", "math"],
        "original_key": ["A", "B", "A"], "answer_key": ["B", "A", "A"], "included": [True, True, False],
        "action": ["corrected", "corrected", "excluded"], "exclusion_list": [None, None, "ambiguous"],
        "verdict": ["key_wrong", "key_wrong", "ambiguous"], "cause": ["key_slip", None, "translation"],
        "rationale": ["=HYPERLINK(\"x\")", None, "-why"], "reviewers": ["alice", "bob", None],
        "review_dates": ["2026-01-01", "2026-01-02", None], "adjudicated": [False, True, False],
        "tier": [1, 2, None], "agreement_count": [3, None, 1], "top_answer": ["B", "A", "C"],
        "judge_verdict": [None, None, None],
    }
    base.update(over)
    return pd.DataFrame(base)


def _read_csv(path):
    return list(csv.reader(io.StringIO(path.read_bytes().decode("utf-8-sig"))))


def test_csv_bytes_has_a_bom_and_neutralises_every_trigger():
    data = csv_bytes(pd.DataFrame({"=h": ["=1+1", "+1", "-1", "@x", "\tt", "\rr", "ok", "ཀ"], "n": range(8)}))
    assert data.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))
    assert rows[0] == ["'=h", "n"]
    assert [r[0] for r in rows[1:]] == ["'=1+1", "'+1", "'-1", "'@x", "'\tt", "'\rr", "ok", "ཀ"]


def test_sha256_file_equals_hashlib(tmp_path):
    p = tmp_path / "f.bin"
    p.write_bytes(b"x" * (3 << 20) + b"tail")   # larger than one read chunk
    assert sha256_file(p) == hashlib.sha256(p.read_bytes()).hexdigest()


@pytest.mark.parametrize("original, new, want", [
    ("ཀ", "B", "ཁ"), (" ག ", "D", "ང"), ("b", "C", "c"), ("A", "D", "D"), (None, "B", "B"), ("ཀ", "F", "F"),
    (3, "B", "B"),
])
def test_a_corrected_key_keeps_the_sources_label_style(original, new, want):
    assert _same_script_label(original, new) == want


@pytest.mark.parametrize("bad", ["", "../x", "a/b", ".hidden", "a..b", "བོད", "x" * 129, None])
def test_unsafe_file_stems_are_refused(bad):
    with pytest.raises(InputError, match="as a file name"):
        _safe_stem(bad, "subject")


def test_tlue_native_rewrites_only_the_corrected_answers(tmp_path):
    items = _items(subject=["agri", "agri", "med"])
    assert write_tlue_native(tmp_path, items, QUESTIONS) == ["agri.jsonl", "med.jsonl"]
    agri = (tmp_path / "agri.jsonl").read_bytes().decode("utf-8").split("\n")
    assert agri[-1] == "" and len(agri) == 3
    assert agri[0] == json.dumps({"question": "བོད་ཡིག", "answer": "ཁ", "z": 1}, ensure_ascii=False)
    assert agri[1] == json.dumps({"answer": "a", "question": "-1 + 1 = ?"})
    # an excluded item stays with its original record, byte for byte
    assert (tmp_path / "med.jsonl").read_text(encoding="utf-8") == QUESTIONS["source_record"][2] + "\n"


def test_tlue_native_refuses_items_without_raw_records_or_answer_field(tmp_path):
    q = QUESTIONS.assign(source_record=[None, QUESTIONS["source_record"][1], QUESTIONS["source_record"][2]])
    with pytest.raises(AuditError, match="no raw record stored for 1 item"):
        write_tlue_native(tmp_path, _items(), q)
    q = QUESTIONS.assign(source_record=['{"question": "x"}', "{}", "{}"])
    with pytest.raises(AuditError, match="has no 'answer' field"):
        write_tlue_native(tmp_path, _items(subject=["a", "a", "a"]), q)


def test_generic_frame_is_as_wide_as_the_widest_item():
    f = generic_frame(_items(), QUESTIONS)
    assert list(f.columns) == ["id", "subject", "language", "script", "question", "A", "B", "C", "D", "E", "F",
                               "answer", "explanation"]
    assert f["answer"].tolist() == ["B", "A", "A"]
    assert f.loc[0, ["A", "B", "C"]].tolist() == ["ཀ", "ཁ", None]
    assert f.loc[1, "D"] == "@SUM(A1)" and f.loc[0, "explanation"] is None


def test_generic_native_csv_is_neutralised_and_jsonl_lossless(tmp_path):
    assert write_generic_native(tmp_path, _items(), QUESTIONS) == ["questions.csv", "questions.jsonl"]
    rows = _read_csv(tmp_path / "questions.csv")
    head = rows[0]
    by = [dict(zip(head, r)) for r in rows[1:]]
    assert by[0]["subject"] == "'=cmd" and by[1]["question"] == "'-1 + 1 = ?" and by[1]["D"] == "'@SUM(A1)"
    assert by[1]["explanation"] == "'+because" and by[2]["question"] == "ئۇيغۇرچە"
    lines = (tmp_path / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    recs = [json.loads(x) for x in lines]
    assert recs[0] == {"id": "q1", "subject": "=cmd", "language": "bo", "script": "Tibt", "question": "བོད་ཡིག",
                       "A": "ཀ", "B": "ཁ", "answer": "B"}            # None fields left out, raw text kept
    assert recs[1]["D"] == "@SUM(A1)" and recs[1]["explanation"] == "+because"


def test_generic_native_of_no_items_writes_an_empty_jsonl(tmp_path):
    empty = _items().iloc[0:0]
    write_generic_native(tmp_path, empty, QUESTIONS.iloc[0:0])
    assert (tmp_path / "questions.jsonl").read_bytes() == b""


def test_changelog_lists_changed_and_reviewed_items_neutralised(tmp_path):
    items = _items(action=["corrected", "unchanged", "unchanged"], reviewers=["alice", None, "carol"],
                   exclusion_list=[None, None, None])
    df = changelog_frame(items)
    assert list(df.columns) == CHANGELOG_COLUMNS
    assert df["question_id"].tolist() == ["q1", "q3"]          # q2: unchanged and never reviewed
    assert df["tier"].tolist()[1] is pd.NA and df["review_status"].isna().all()
    write_changelog(tmp_path, items)
    rows = _read_csv(tmp_path / "CHANGELOG.csv")
    rec = dict(zip(rows[0], rows[1]))
    assert rec["rationale"] == "'=HYPERLINK(\"x\")" and rec["old_key"] == "A" and rec["new_key"] == "B"


def test_exclusion_lists_in_import_order_and_written_even_when_empty(tmp_path):
    items = _items(seq=[3, 1, 2], action=["excluded", "excluded", "excluded"],
                   exclusion_list=["ambiguous", "defective", "ambiguous"])
    names = write_exclusions(tmp_path, items, ("ambiguous", "defective"))
    assert names == ["excluded.txt", "excluded-ambiguous.txt", "excluded-defective.txt"]
    assert (tmp_path / "excluded.txt").read_text() == "q2\nq3\nq1\n"
    assert (tmp_path / "excluded-ambiguous.txt").read_text() == "q3\nq1\n"
    write_exclusions(tmp_path, _items(action=["unchanged"] * 3), ("defective",))
    assert (tmp_path / "excluded.txt").read_bytes() == b"" == (tmp_path / "excluded-defective.txt").read_bytes()
    with pytest.raises(InputError):
        write_exclusions(tmp_path, items, ("../up",))


def _arrow_questions(ids):
    q = QUESTIONS.set_index("question_id").loc[ids].reset_index()
    return pa.table({"question_id": q["question_id"], "subject": q["subject"], "language": q["language"],
                     "script": q["script"], "stem": q["stem"],
                     "options": pa.array(q["options"].tolist(),
                                         pa.list_(pa.struct([("label", pa.string()), ("text", pa.string())])))})


def test_parquet_fixed_schema_and_order_check(tmp_path):
    items = _items()
    write_parquet(tmp_path, items, _arrow_questions(["q1", "q2", "q3"]))
    t = pq.read_table(tmp_path / "questions.parquet")
    assert t.column_names[-5:] == ["original_key", "answer_key", "included", "action", "exclusion_list"]
    assert t.column("answer_key").to_pylist() == ["B", "A", "A"]
    assert t.column("included").to_pylist() == [True, True, False]
    assert t.schema.metadata is None or b"pandas" not in t.schema.metadata
    first = (tmp_path / "questions.parquet").read_bytes()
    write_parquet(tmp_path, items, _arrow_questions(["q1", "q2", "q3"]), name="again.parquet")
    assert (tmp_path / "again.parquet").read_bytes() == first
    with pytest.raises(AuditError, match="not in the same order"):
        write_parquet(tmp_path, items, _arrow_questions(["q2", "q1", "q3"]))


def test_staged_directory_is_removed_on_error_and_when_not_published(tmp_path):
    target = tmp_path / "b" / "1.1"
    with pytest.raises(RuntimeError):
        with staged_directory(target) as tmp:
            (tmp / "half.csv").write_text("x")
            raise RuntimeError("writer failed")
    assert not tmp.exists() and list(target.parent.iterdir()) == []
    with staged_directory(target) as tmp:
        assert tmp.name.startswith(f".1.1{PARTIAL_MARK}")
    assert not tmp.exists() and not target.exists()


def test_publish_renames_once_and_never_overwrites(tmp_path):
    target = tmp_path / "b" / "1.1"
    with staged_directory(target) as tmp:
        (tmp / "hf").mkdir()
        (tmp / "hf" / "a.txt").write_text("a")
        publish(tmp, target)
    assert (target / "hf" / "a.txt").read_text() == "a" and not tmp.exists()
    with pytest.raises(AuditError, match="never overwritten"):
        with staged_directory(target) as tmp2:
            publish(tmp2, target)
    assert not tmp2.exists() and [p.name for p in target.parent.iterdir()] == ["1.1"]


def test_stale_partials_of_dead_processes_are_removed_live_ones_kept(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    import os

    (tmp_path / f".1.1{PARTIAL_MARK}{dead.pid}-abc").mkdir()
    (tmp_path / f".1.2{PARTIAL_MARK}{os.getpid()}-def").mkdir()
    (tmp_path / "1.0").mkdir()
    (tmp_path / f"1.3{PARTIAL_MARK}{dead.pid}-x").mkdir()          # not hidden: never a partial
    assert remove_stale_partials(tmp_path) == [f".1.1{PARTIAL_MARK}{dead.pid}-abc"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [f".1.2{PARTIAL_MARK}{os.getpid()}-def", "1.0", f"1.3{PARTIAL_MARK}{dead.pid}-x"])
    assert remove_stale_partials(tmp_path / "missing") == []
