"""A release the ecosystem loads: ``audit export create`` writes hf/ (card,
Croissant, CITATION.cff, Parquet per split), checked with the real libraries
(datasets, huggingface_hub, mlcroissant when installed), and ``audit export
publish`` pushes it to a local stand-in of the Hub: one commit and the tag,
a second push refused, no token anywhere."""
from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from audit.demo import build_demo, demo_truth
from audit.export import create_version, verify_version
from audit.export.hub import CARD_NAME, CITATION_NAME, CROISSANT_NAME
from audit.review import add_review
from tests.support.hub_server import HubStandIn

pytestmark = pytest.mark.slow
TOKEN = "hf_TestTokenThatMustNeverBeStored0123456789"


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("release")
    db = tmp / "d.duckdb"
    build_demo(db)
    truth = demo_truth(db)
    wrong = sorted(q for q, t in truth.items() if t.get("injected_key_error"))[:4]
    for q in wrong:
        add_review("demo", q, "lead", "key_wrong", corrected_answer=truth[q]["true_answer"], cause="key_slip",
                   is_adjudication=True, db=db)
    other = sorted(q for q, t in truth.items() if not t.get("injected_key_error"))[0]
    add_review("demo", other, "lead", "ambiguous", is_adjudication=True, db=db)
    s = create_version("demo", "1.1", db=db, exports_dir=tmp / "exports")
    return db, s.path, wrong, other


def test_the_version_folder_lists_and_verifies_its_hf_files(release):
    db, folder, _, _ = release
    manifest = json.loads((folder / "manifest.json").read_text())
    assert {"hf/README.md", "hf/croissant.json", "hf/CITATION.cff", "hf/data/test.parquet",
            "hf/data/excluded.parquet"} <= set(manifest["files"])
    assert verify_version(folder) == []
    (folder / "hf" / "data" / "extra.parquet").write_bytes(b"x")
    try:
        assert verify_version(folder) == ["hf/data/extra.parquet: not in the manifest"]
    finally:
        (folder / "hf" / "data" / "extra.parquet").unlink()


def test_load_dataset_gives_the_versions_keys_byte_for_byte(release, tmp_path, monkeypatch):
    datasets = pytest.importorskip("datasets")
    db, folder, wrong, other = release
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    ds = datasets.load_dataset(str(folder / "hf"), cache_dir=str(tmp_path / "cache"))
    assert set(ds) == {"test", "excluded"}
    got = {r["question_id"]: r for split in ds for r in ds[split]}
    own = pq.read_table(folder / "questions.parquet").to_pandas().set_index("question_id")
    native = {json.loads(line)["id"]: json.loads(line) for line in
              (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()}
    assert set(got) == set(own.index) == set(native)
    for qid, r in got.items():
        assert r["answer"].encode("utf-8") == own.loc[qid, "answer_key"].encode("utf-8")
        assert r["answer"].encode("utf-8") == native[qid]["answer"].encode("utf-8")
        assert r["original_answer"] == own.loc[qid, "original_key"]
        assert r["options"] == [o["text"] for o in own.loc[qid, "options"]]
    assert [r["question_id"] for r in ds["excluded"]] == [other]
    assert {q for q, r in got.items() if r["action"] == "corrected"} == set(wrong)
    assert all(r["answer"] != r["original_answer"] for q, r in got.items() if q in wrong)


def test_the_dataset_card_validates(release):
    from huggingface_hub import DatasetCard

    _, folder, _, _ = release
    card = DatasetCard.load(folder / "hf" / CARD_NAME)
    data = card.data.to_dict()
    assert data["license"] == "cc0-1.0"
    assert data["task_categories"] == ["multiple-choice", "question-answering"]
    assert {f["split"]: f["path"] for f in data["configs"][0]["data_files"]} == {
        "test": "data/test.parquet", "excluded": "data/excluded.parquet"}
    assert {"bo", "zh"} <= set(data["language"])
    text = card.text
    for heading in ("## What changed in this version", "## Key-error estimates", "## Licence", "## Citation"):
        assert heading in text
    assert "corrected: 4; excluded: 1" in text
    cff = (folder / "hf" / CITATION_NAME).read_text()
    import yaml
    c = yaml.safe_load(cff)
    assert c["cff-version"] == "1.2.0" and c["version"] == "1.1" and c["authors"] and c["license"] == "CC0-1.0"


def test_the_croissant_file(release):
    _, folder, _, _ = release
    path = folder / "hf" / CROISSANT_NAME
    doc = json.loads(path.read_text())
    # the JSON-LD structure Croissant 1.0 asks for
    assert doc["@type"] == "sc:Dataset" and doc["conformsTo"] == "http://mlcommons.org/croissant/1.0"
    ctx = doc["@context"]
    assert ctx["cr"] == "http://mlcommons.org/croissant/" and ctx["rai"] == "http://mlcommons.org/croissant/RAI/"
    ids = {d["@id"] for d in doc["distribution"]}
    from audit.export._write import sha256_file
    for d in doc["distribution"]:
        assert d["sha256"] == sha256_file(folder / "hf" / d["contentUrl"])
    for rs in doc["recordSet"]:
        for f in rs["field"]:
            assert f["source"]["fileObject"]["@id"] in ids and f["@id"].startswith(rs["@id"] + "/")
    rai = {k: v for k, v in doc.items() if k.startswith("rai:")}
    assert len(rai) >= 12 and all(v for v in rai.values())
    assert "reviewed by 1 reviewer" in doc["rai:annotationsPerItem"]
    # the real validator, when installed
    mlc = pytest.importorskip("mlcroissant")
    ds = mlc.Dataset(jsonld=str(path))
    rows = list(ds.records(record_set="test"))
    own = pq.read_table(folder / "questions.parquet").to_pandas()
    inc = own[own["included"]]
    assert len(rows) == len(inc)
    assert sorted(r["test/answer"].decode() for r in rows) == sorted(inc["answer_key"])


def test_publish_to_a_hub_stand_in_once(release, monkeypatch, capsys):
    from typer.testing import CliRunner

    from audit.cli import app

    db, folder, _, _ = release
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    with HubStandIn() as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.endpoint)
        monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
        monkeypatch.delenv("HF_TOKEN", raising=False)
        runner = CliRunner()
        args = ["export", "publish", "--benchmark", "demo", "--version", "1.1", "--repo", "org/demo-keys",
                "--db", str(db)]
        res = runner.invoke(app, args)
        assert res.exit_code == 1 and "HF_TOKEN" in str(res.exception or res.output)
        assert hub.calls == []
        monkeypatch.setenv("HF_TOKEN", TOKEN)
        res = runner.invoke(app, args)
        assert res.exit_code == 0, res.output
        assert "tag v1.1" in res.output
        repo = hub.repos["org/demo-keys"]
        assert len(repo["commits"]) == 1 and repo["tags"] == {"v1.1": repo["commits"][0]["oid"]}
        assert sorted(repo["files"]) == ["CITATION.cff", "README.md", "croissant.json", "data/excluded.parquet",
                                         "data/test.parquet"]
        for name, data in repo["files"].items():
            assert data == (folder / "hf" / name).read_bytes()
        assert all(a == f"Bearer {TOKEN}" for a in hub.auth)
        n_calls = len(hub.calls)
        res2 = runner.invoke(app, args)
        assert res2.exit_code == 1
        assert "already has the tag v1.1" in str(res2.exception)
        assert len(repo["commits"]) == 1          # nothing pushed the second time
        assert [c for c in hub.calls[n_calls:] if c[0] == "POST"] == []
    # nothing secret in the folder, the output or the database
    after = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert after == before
    assert not any(TOKEN.encode() in b for b in after.values())
    assert TOKEN not in res.output + res2.output + str(res2.exception)
    assert TOKEN.encode() not in db.read_bytes()
    wal = db.with_suffix(".duckdb.wal")
    assert not wal.exists() or TOKEN.encode() not in wal.read_bytes()
    out = capsys.readouterr()
    assert TOKEN not in out.out + out.err
