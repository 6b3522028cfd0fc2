"""audit.export._listing: a benchmark's versions in numeric order with their
lineage and counts, whether each folder is still on disk and, with
``verify=True``, whether it is intact (the first problem per version)."""
from __future__ import annotations

import shutil

import pytest

from audit.errors import InputError
from audit.export import create_version, list_versions
from audit.export._listing import LIST_COLUMNS
from audit.export.policy import Policy
from tests.support.toy_release import BENCH, toy_db


@pytest.fixture(scope="module")
def versions(tmp_path_factory, migrated_template):
    tmp = tmp_path_factory.mktemp("listing")
    db = toy_db(tmp, migrated_template, predictions=False)
    create_version(BENCH, "1.2", db=db, exports_dir=tmp / "exports")
    create_version(BENCH, "1.10", policy=Policy("keep-all", "corrections, no exclusion", exclude=()), db=db,
                   exports_dir=tmp / "exports")
    return db


def test_versions_in_numeric_order_with_lineage_and_counts(versions):
    df = list_versions(BENCH, db=versions)
    assert list(df.columns) == LIST_COLUMNS
    assert df["version"].tolist() == ["1.0", "1.2", "1.10"]
    assert df["parent"].tolist()[1:] == ["1.0", "1.2"] and df["parent"].isna().tolist()[0]
    assert df["policy"].tolist() == ["original", "default", "keep-all"]
    got = df[["n_items", "n_corrected", "n_excluded", "n_unchanged", "n_reviewed"]].values.tolist()
    assert got == [[10, 0, 0, 10, 7], [10, 3, 2, 5, 7], [10, 3, 0, 7, 7]]
    assert df["on_disk"].all() and df["data_sha256"].str.fullmatch("[0-9a-f]{64}").all()


def test_verify_reports_the_first_problem_per_version(versions):
    df = list_versions(BENCH, db=versions, verify=True)
    assert df["intact"].all() and df.attrs["problems"] == {}
    paths = dict(zip(df["version"], df["path"]))
    from pathlib import Path

    csv = Path(paths["1.2"]) / "questions.csv"
    saved = csv.read_bytes()
    moved = Path(paths["1.10"]).with_name("moved-away")
    try:
        csv.write_bytes(saved + b"\"x\"\n")
        shutil.move(paths["1.10"], moved)
        df = list_versions(BENCH, db=versions, verify=True)
        assert df["intact"].tolist() == [True, False, False]
        assert df["on_disk"].tolist() == [True, True, False]
        assert df.attrs["problems"] == {"1.2": "questions.csv: sha256 differs",
                                        "1.10": "the folder is no longer on disk"}
    finally:
        csv.write_bytes(saved)
        shutil.move(moved, paths["1.10"])
    assert list_versions(BENCH, db=versions, verify=True)["intact"].all()


def test_a_benchmark_without_versions_and_an_invalid_name(versions):
    df = list_versions("never-exported", db=versions)
    assert df.empty and list(df.columns) == LIST_COLUMNS
    with pytest.raises(InputError):
        list_versions("../toy", db=versions)
