"""Round trip with the real TLUE subset (../shared/data/tlue_subset670):
import → record verdicts → export → re-import the export → questions
identical and keys changed exactly where the policy says; the exported
<subject>.jsonl files are byte-identical to the input except the ``answer``
field of corrected items; two derivations are byte-identical."""
from __future__ import annotations

import json
import shutil

import pytest

from audit.export import create_version, diff_versions, read_manifest
from audit.ingest import import_tlue
from audit.review import add_review
from audit.store import connect


def _questions(db, benchmark):
    with connect(db, read_only=True) as con:
        return con.execute(
            "SELECT question_id, subject, stem, options, raw_text, structure_suspect, flags, answer_key, seq "
            "FROM questions WHERE benchmark = ? ORDER BY seq", [benchmark]).fetchall()


@pytest.fixture
def reviewed(tlue_dir, db_path):
    import_tlue(tlue_dir, benchmark="tlue", db=db_path)
    qs = _questions(db_path, "tlue")
    by_id = {q[0]: q for q in qs}
    # pick items spread over subjects, deterministically (every 97th item)
    picks = [qs[i][0] for i in range(3, len(qs), 97)][:7]
    assert len(picks) == 7

    def other(qid):
        key = by_id[qid][7]
        labels = [o["label"] for o in by_id[qid][3]]
        return next(l for l in labels if l != key)

    agree, single, adjud, amb, defect, dispute, correct = picks
    r = lambda *a, **k: add_review("tlue", *a, db=db_path, **k)  # noqa: E731
    r(agree, "tenzin", "key_wrong", corrected_answer=other(agree), cause="translation", rationale="ལན་ནོར།")
    r(agree, "dolma", "key_wrong", corrected_answer=other(agree), cause="translation")
    r(single, "tenzin", "key_wrong", corrected_answer=other(single), cause="key_slip")
    r(adjud, "tenzin", "key_correct")
    r(adjud, "dolma", "key_wrong", corrected_answer=other(adjud), cause="cultural")
    r(adjud, "pema", "key_wrong", corrected_answer=other(adjud), cause="cultural", is_adjudication=True)
    r(amb, "dolma", "ambiguous", cause="translation")
    r(defect, "tenzin", "defective", cause="formatting")
    r(dispute, "tenzin", "key_wrong", corrected_answer=other(dispute), cause="key_slip")
    r(dispute, "dolma", "key_correct")
    r(correct, "dolma", "key_correct")
    expected = {
        "corrected": {agree: other(agree), single: other(single), adjud: other(adjud)},
        "excluded": {amb, defect},
    }
    return db_path, expected


@pytest.mark.slow
def test_tlue_round_trip_byte_identical_and_deterministic(reviewed, tlue_dir, tmp_path):
    db, expected = reviewed
    copy = tmp_path / "copy.duckdb"
    shutil.copy(db, copy)
    out = tmp_path / "exports"
    s = create_version("tlue", "1.1", db=db, exports_dir=out)
    assert s.counts["corrected"] == 3 and s.counts["excluded"] == 2 and s.counts["items"] == 670
    v = out / "tlue" / "1.1"

    # 1. native files: same names, and byte-identical except the answer of corrected items
    inputs = sorted(p.name for p in tlue_dir.glob("*.jsonl"))
    assert sorted(p.name for p in v.glob("*.jsonl")) == inputs
    corrected = expected["corrected"]
    n_diff_lines = 0
    for name in inputs:
        a = (tlue_dir / name).read_bytes()
        b = (v / name).read_bytes()
        la, lb = a.split(b"\n"), b.split(b"\n")
        assert len(la) == len(lb)
        for x, y in zip(la, lb):
            if x == y:
                rec = json.loads(x) if x else None
                assert rec is None or rec["loc"] not in corrected
                continue
            n_diff_lines += 1
            rx, ry = json.loads(x), json.loads(y)
            assert rx["loc"] in corrected and list(rx) == list(ry)
            assert {k: v_ for k, v_ in rx.items() if k != "answer"} == {k: v_ for k, v_ in ry.items() if k != "answer"}
            assert ry["answer"] == corrected[rx["loc"]] != rx["answer"]
            # the only bytes that differ are the answer value
            assert x.replace(f'"answer": "{rx["answer"]}"'.encode(), f'"answer": "{ry["answer"]}"'.encode()) == y
    assert n_diff_lines == 3
    # version 1.0 (created automatically) is byte-identical to the input
    for name in inputs:
        assert (out / "tlue" / "1.0" / name).read_bytes() == (tlue_dir / name).read_bytes()

    # 2. re-import the export as another benchmark: questions identical, keys changed exactly per policy
    import_tlue(v, benchmark="tlue-v1.1", db=db)
    a, b = _questions(db, "tlue"), _questions(db, "tlue-v1.1")
    assert [r[:7] for r in a] == [r[:7] for r in b]
    changed = {x[0]: y[7] for x, y in zip(a, b) if x[7] != y[7]}
    assert changed == corrected
    assert (v / "excluded.txt").read_text().split() == [q for q in (r[0] for r in a) if q in expected["excluded"]]

    # 3. diff lists exactly the corrected and excluded items
    d = diff_versions("tlue", "1.0", "1.1", db=db)
    assert set(d["question_id"]) == set(corrected) | expected["excluded"]

    # 4. a second derivation of the same database state is byte-identical
    out2 = tmp_path / "exports2"
    create_version("tlue", "1.1", db=copy, exports_dir=out2)
    for version in ("1.0", "1.1"):
        files = sorted(p.relative_to(out / "tlue" / version).as_posix() for p in (out / "tlue" / version).rglob("*")
                       if p.is_file())
        assert files == sorted(p.relative_to(out2 / "tlue" / version).as_posix()
                               for p in (out2 / "tlue" / version).rglob("*") if p.is_file())
        for name in files:
            if name != "manifest.json":
                assert (out / "tlue" / version / name).read_bytes() == (out2 / "tlue" / version / name).read_bytes(), (
                    name
                )
        m1, m2 = read_manifest(out / "tlue" / version), read_manifest(out2 / "tlue" / version)
        assert m1["files"] == m2["files"] and m1["data_sha256"] == m2["data_sha256"]
