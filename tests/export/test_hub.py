"""audit.export.hub: the Hugging Face layout from hand-built frames — the
split tables (included vs excluded, import order, option texts and labels),
the card's YAML metadata and text, CITATION.cff, Croissant's file hashes
(recomputed with hashlib) and responsible-AI fields; no timestamp, token or
reviewer name anywhere."""
from __future__ import annotations

import hashlib
import json

import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml

from audit.export.hub import (
    CARD_NAME,
    CITATION_NAME,
    CROISSANT_NAME,
    HF_DIR,
    HubRelease,
    _size,
    render_card,
    render_citation,
    split_table,
    write_hf_layout,
)


def _opts(*texts):
    return [{"label": "ABCDEF"[i], "text": t} for i, t in enumerate(texts)]


QUESTIONS = pd.DataFrame({
    "question_id": ["q1", "q2", "q3", "q4"],
    "subject": ["agri", "agri", "med", None],
    "language": ["bo", "zh-Hans", "ug", None],
    "stem": ["བོད་ཡིག", "中文", "ئۇيغۇرچە", "plain"],
    "options": [_opts("ཀ", "ཁ"), _opts("甲", "乙", "丙"), _opts("ئا", "ب", "ت", "ج", "خ", "د"), _opts("x", "y")],
})
ITEMS = pd.DataFrame({
    "seq": [4, 1, 2, 3], "question_id": ["q4", "q1", "q2", "q3"], "answer_key": ["A", "B", "C", "A"],
    "original_key": ["A", "A", "C", "A"], "action": ["unchanged", "corrected", "excluded", "unchanged"],
    "included": [True, True, False, True],
})


def _release(**kw):
    base = dict(benchmark="toy", version="1.1", parent="1.0", source="generic", policy_name="default",
                policy_description="the default policy",
                counts={"items": 4, "corrected": 1, "excluded": 1, "unchanged": 2, "reviewed": 2},
                causes=pd.DataFrame({"action": ["corrected"], "cause": ["key_slip"], "n": [1]}),
                models=["m1", "m2"], judges=["j1"], n_reviewers=2, required_reviews="2 for flagged items, 1 otherwise")
    base.update(kw)
    return HubRelease(**base)


def test_split_table_included_and_excluded_in_import_order():
    t = split_table(ITEMS, QUESTIONS)
    assert set(t) == {"test", "excluded"}
    test = t["test"].to_pylist()
    assert [r["question_id"] for r in test] == ["q1", "q3", "q4"]
    assert test[0] == {"question_id": "q1", "subject": "agri", "language": "bo", "question": "བོད་ཡིག",
                       "options": ["ཀ", "ཁ"], "option_labels": ["A", "B"], "answer": "B", "original_answer": "A",
                       "action": "corrected"}
    assert test[1]["option_labels"] == list("ABCDEF") and test[2]["subject"] is None
    assert t["excluded"].to_pylist()[0]["question_id"] == "q2"


def test_no_excluded_split_when_nothing_is_excluded():
    t = split_table(ITEMS.assign(included=True), QUESTIONS)
    assert list(t) == ["test"] and t["test"].num_rows == 4


@pytest.mark.parametrize("n, want", [(0, "n<1K"), (999, "n<1K"), (1000, "1K<n<10K"), (99_999, "10K<n<100K"),
                                     (1_000_000, "n>1M")])
def test_size_category(n, want):
    assert _size(n) == want


def test_card_metadata_and_text():
    tables = split_table(ITEMS, QUESTIONS)
    card = render_card(_release(), tables)
    head, body = card.split("---\n")[1], card.split("---\n", 2)[2]
    meta = yaml.safe_load(head)
    assert meta["license"] == "other" and meta["language"] == ["bo", "ug", "zh"]
    assert meta["size_categories"] == ["n<1K"]
    assert meta["configs"] == [{"config_name": "default", "data_files": [
        {"split": "test", "path": "data/test.parquet"}, {"split": "excluded", "path": "data/excluded.parquet"}]}]
    assert 'load_dataset("ORG/NAME", revision="v1.1")' in body
    assert "| corrected | key_slip | 1 |" in body
    assert "Items: 4; corrected: 1; excluded: 1; unchanged: 2; reviewed: 2." in body
    assert "No key-error estimate" in body and "license: other" in body
    assert "and the source benchmark:" not in body


def test_card_of_a_known_source_with_an_estimate():
    impact = {"scored": True, "level": 0.9, "expected_wrong_keys": {"estimate": 30.4, "low": 20.2, "high": 41.0,
                                                                    "n_items": 300}}
    card = render_card(_release(source="tlue", impact=impact, parent=None), split_table(ITEMS, QUESTIONS))
    assert "license: cc-by-nc-sa-4.0" in card and "https://creativecommons.org/licenses/by-nc-sa/4.0/" in card
    assert "about 30 of the 300 keys were estimated wrong (90% interval 20–41" in card
    assert "@article{gao2025tlue" in card and "none (the original keys)" in card


def test_citation_is_cff_with_the_spdx_licence_only_when_known():
    doc = yaml.safe_load(render_citation(_release(source="mmlu-redux")))
    assert doc["cff-version"] == "1.2.0" and doc["version"] == "1.1" and doc["type"] == "dataset"
    assert doc["license"] == "CC-BY-4.0" and "1 corrected, 1 excluded of 4 items" in doc["abstract"]
    assert "license" not in yaml.safe_load(render_citation(_release()))


def test_write_hf_layout_files_croissant_hashes_and_no_names(tmp_path):
    written = write_hf_layout(tmp_path, _release(), ITEMS, QUESTIONS)
    assert written == sorted([f"{HF_DIR}/{CARD_NAME}", f"{HF_DIR}/{CITATION_NAME}", f"{HF_DIR}/{CROISSANT_NAME}",
                              f"{HF_DIR}/data/test.parquet", f"{HF_DIR}/data/excluded.parquet"])
    root = tmp_path / HF_DIR
    assert pq.read_table(root / "data" / "test.parquet").column("question_id").to_pylist() == ["q1", "q3", "q4"]
    cr = json.loads((root / CROISSANT_NAME).read_text(encoding="utf-8"))
    for d in cr["distribution"]:
        assert d["sha256"] == hashlib.sha256((root / d["contentUrl"]).read_bytes()).hexdigest()
    assert [r["@id"] for r in cr["recordSet"]] == ["test", "excluded"]
    assert [f["name"] for f in cr["recordSet"][0]["field"]] == [
        "question_id", "subject", "language", "question", "options", "option_labels", "answer", "original_answer",
        "action"]
    assert cr["rai:machineAnnotationTools"] == ["j1", "m1", "m2"]
    assert cr["rai:dataLimitations"] == "2 items were never reviewed and may still have a wrong key."
    assert "(2 for flagged items, 1 otherwise)" in cr["rai:dataAnnotationProtocol"]
    assert cr["conformsTo"] == "http://mlcommons.org/croissant/1.0" and cr["inLanguage"] == ["bo", "ug", "zh"]
    # deterministic: the same inputs give the same bytes
    again = tmp_path / "again"
    write_hf_layout(again, _release(), ITEMS, QUESTIONS)
    for name in written:
        assert (again / name).read_bytes() == (tmp_path / name).read_bytes()
    text = "".join((tmp_path / n).read_text(encoding="utf-8") for n in written if not n.endswith(".parquet"))
    assert "created_at" not in text and "alice" not in text and "hf_" not in text
