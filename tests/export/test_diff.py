"""audit.export._diff: the items whose key or inclusion changed between two
versions of the toy benchmark, against a hand-built expectation — key,
inclusion, key+inclusion, added and (diffing backwards) removed; a version
against itself; unknown and invalid names."""
from __future__ import annotations

import pandas as pd
import pytest

from audit.errors import InputError, NotFoundError
from audit.export import create_version, diff_versions
from audit.export._diff import DIFF_COLUMNS
from audit.ingest import import_questions
from audit.review import add_review
from tests.support.toy_release import BENCH, toy_db


@pytest.fixture(scope="module")
def versions(tmp_path_factory, migrated_template):
    tmp = tmp_path_factory.mktemp("diff")
    db = toy_db(tmp, migrated_template, predictions=False)
    create_version(BENCH, "1.1", db=db, exports_dir=tmp / "exports")
    # then t08, corrected in 1.1, is settled ambiguous by a lead, and a new item arrives
    add_review(BENCH, "t08", "lead", "ambiguous", cause="translation", is_adjudication=True, db=db)
    (tmp / "more.csv").write_text("id,subject,question,A,B,C,D,answer\nt11,math,5 - 5 = ?,0,1,2,3,A\n",
                                  encoding="utf-8")
    import_questions(tmp / "more.csv", benchmark=BENCH, db=db)
    create_version(BENCH, "1.2", db=db, exports_dir=tmp / "exports")
    return db


def _rows(df):
    return [tuple(None if pd.isna(v) else v for v in r) for r in df.itertuples(index=False)]


def test_original_to_first_correction(versions):
    df = diff_versions(BENCH, "1.0", "1.1", db=versions)
    assert list(df.columns) == DIFF_COLUMNS
    assert _rows(df) == [
        ("t02", "math", "key", "A", "B", True, True, None, "key_wrong"),
        ("t04", "=cmd", "key", "C", "D", True, True, None, "key_wrong"),
        ("t05", "lang", "inclusion", "A", "A", True, False, "ambiguous", "ambiguous"),
        ("t06", "lang", "inclusion", "B", "B", True, False, "defective", "defective"),
        ("t08", "math", "key", "A", "C", True, True, None, "key_wrong"),
    ]


def test_key_and_inclusion_together_and_an_added_item(versions):
    assert _rows(diff_versions(BENCH, "1.1", "1.2", db=versions)) == [
        ("t08", "math", "key+inclusion", "C", "A", True, False, "ambiguous", "ambiguous"),
        ("t11", "math", "added", None, "A", None, True, None, None),
    ]


def test_backwards_the_item_is_removed(versions):
    rows = _rows(diff_versions(BENCH, "1.2", "1.1", db=versions))
    assert rows[-1] == ("t11", "math", "removed", "A", None, True, None, None, None)
    assert rows[0][:3] == ("t08", "math", "key+inclusion")


def test_a_version_against_itself_is_empty(versions):
    df = diff_versions(BENCH, "1.1", "1.1", db=versions)
    assert df.empty and list(df.columns) == DIFF_COLUMNS


def test_unknown_and_invalid_versions(versions):
    with pytest.raises(NotFoundError, match="has no version 2.0"):
        diff_versions(BENCH, "1.0", "2.0", db=versions)
    with pytest.raises(InputError):
        diff_versions(BENCH, "1.0", "../1.1", db=versions)
    with pytest.raises(InputError):
        diff_versions("../toy", "1.0", "1.1", db=versions)
