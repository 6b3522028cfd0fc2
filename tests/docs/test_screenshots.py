"""The documentation's pictures of the workbench come from this test, so they
follow the interface: a real ``streamlit run workbench/app.py`` on the demo
database, driven by Debian's Chromium, writes into ``docs/img/``:

- ``workbench-item.png``: the item page of a Tibetan item (README, home page);
- ``reviewers/queue-<lang>.png`` and ``reviewers/item-<lang>.png`` for the
  reviewer's guide in English (``en``), Chinese (``zh``) and Tibetan (``bo``),
  each taken in that interface language (the reviewer's stored setting).

Each picture is taken only after the page shows the heading in its language,
and must be a real PNG of the viewport's size.  Commit the files it writes
when the interface changed."""
from __future__ import annotations

import struct
from pathlib import Path

import pytest

from tests.support.accounts import browser_sign_in, ensure_account
from tests.support.common import copy_db
from tests.support.workbench_server import chromium, wait_settled, workbench_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
IMG = REPO / "docs" / "img"
VIEWPORT = {"width": 1280, "height": 720}
# interface language → (file suffix, the queue's heading, the reviewer)
LANGUAGES = {
    "en": ("en", "Review queue", "Docs Reviewer"),
    "zh-Hans": ("zh", "审核队列", "Docs Reviewer Zh"),
    "bo": ("bo", "ཞིབ་བཤེར་གྲལ་རིམ", "Docs Reviewer Bo"),
}


@pytest.fixture(scope="module")
def docs_db(tmp_path_factory, demo_db) -> Path:
    import audit

    db = copy_db(demo_db, tmp_path_factory.mktemp("docs_shots") / "workbench.duckdb")
    for lang, (_, _, name) in LANGUAGES.items():
        ensure_account(name, db=db)
        audit.accounts.language.set_user_language(name, lang, db=db)
    return db


@pytest.fixture(scope="module")
def server(docs_db):
    with workbench_server(docs_db) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def _tibetan_item(db) -> str:
    import audit

    q = audit.review.review_queue("demo", db=db)
    q = q[q["script"] == "Tibt"]
    assert len(q), "the demo has no Tibetan item in Tier 1-2"
    return str(q["question_id"].iloc[0])




def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


def _shoot(page, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    wait_settled(page, 500)
    page.screenshot(path=str(path))
    assert _png_size(path) == (VIEWPORT["width"], VIEWPORT["height"])


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_reviewer_guide_screenshots(server, browser, docs_db, lang):
    suffix, heading, name = LANGUAGES[lang]
    qid = _tibetan_item(docs_db)
    ctx = browser.new_context(viewport=VIEWPORT, locale="en-US")
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    try:
        browser_sign_in(page, server, name, create=False)
        page.get_by_role("heading", name=heading).wait_for()
        _shoot(page, IMG / "reviewers" / f"queue-{suffix}.png")
        item = ctx.new_page()  # a second tab at the item's address: the session cookie signs it in
        item.set_default_timeout(30_000)
        item.goto(f"{server}/item?benchmark=demo&question={qid}")
        page = item
        page.locator("[data-script=Tibt]").first.wait_for()
        page.locator(".st-key-save button").first.wait_for()
        _shoot(page, IMG / "reviewers" / f"item-{suffix}.png")
        if lang == "en":
            _shoot(page, IMG / "workbench-item.png")
    finally:
        ctx.close()
