"""audit.export.publish: what is checked before anything is pushed — the tag
name, the repository name, the token only from ``$HF_TOKEN``, the lead role,
an unknown or changed version — each refused with one line and no network
call (the push itself, to a local Hub stand-in, is in test_hub_release)."""
from __future__ import annotations

from pathlib import Path

import pytest

from audit.accounts import set_leads
from audit.errors import AuditError, InputError, NotFoundError, PermissionDeniedError
from audit.export import create_version
from audit.export.publish import TOKEN_ENV, PublishSummary, _check_repo, publish_version, tag_name
from tests.support.toy_release import BENCH, toy_db

TOKEN = "hf_NeverStoredNeverPrinted0123456789abcdef"


@pytest.fixture(scope="module")
def version(tmp_path_factory, migrated_template):
    tmp = tmp_path_factory.mktemp("publish")
    db = toy_db(tmp, migrated_template, predictions=False, reviews=False)
    s = create_version(BENCH, "1.1", db=db, exports_dir=tmp / "exports")
    return db, Path(s.path)


@pytest.fixture
def no_hub(monkeypatch):
    # nothing listens here: a request that got through the checks would fail with a connection error
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setenv(TOKEN_ENV, TOKEN)


def test_tag_and_repository_names():
    assert tag_name("1.1") == "v1.1" and tag_name("2.0.1") == "v2.0.1"
    with pytest.raises(InputError):
        tag_name("v1.1")
    assert _check_repo("org/tlue-keys.v2") == "org/tlue-keys.v2"
    for bad in ("tlue", "org/", "/name", "org/a/b", "org/..", "org/na me", "-org/x", "org/བོད", "", None):
        with pytest.raises(InputError, match="invalid repository"):
            _check_repo(bad)


def test_summary_line():
    s = PublishSummary("toy", "1.1", "org/x", "v1.1", "0123456789abcdef0123", ("README.md", "data/test.parquet"))
    assert str(s) == "published toy 1.1 to dataset org/x: commit 0123456789ab, tag v1.1, 2 files"


def test_no_token_no_push(version, monkeypatch):
    db, _ = version
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    with pytest.raises(InputError, match=f"environment variable {TOKEN_ENV}"):
        publish_version(BENCH, "1.1", "org/toy", db=db)
    monkeypatch.setenv(TOKEN_ENV, "   ")
    with pytest.raises(InputError, match="it is read from nowhere else"):
        publish_version(BENCH, "1.1", "org/toy", db=db)


def test_unknown_and_changed_versions_are_refused_before_the_hub(version, no_hub):
    db, folder = version
    with pytest.raises(NotFoundError, match="has no version 1.5"):
        publish_version(BENCH, "1.5", "org/toy", db=db)
    card = folder / "hf" / "README.md"
    saved = card.read_bytes()
    card.write_bytes(saved + b"\nedited after the export\n")
    try:
        with pytest.raises(AuditError, match="hf/README.md: sha256 differs; nothing was published") as e:
            publish_version(BENCH, "1.1", "org/toy", db=db)
        assert TOKEN not in str(e.value)
    finally:
        card.write_bytes(saved)


def test_publishing_is_for_leads(version, no_hub):
    db, _ = version
    set_leads(["lead"], db=db)
    try:
        with pytest.raises(PermissionDeniedError, match="lead reviewers"):
            publish_version(BENCH, "1.1", "org/toy", db=db)
    finally:
        set_leads([], db=db)


def test_invalid_names_are_refused_first(version, no_hub):
    db, _ = version
    with pytest.raises(InputError):
        publish_version("../toy", "1.1", "org/toy", db=db)
    with pytest.raises(InputError):
        publish_version(BENCH, "1.1", "org//toy", db=db)
