"""Item-page geometry in a real browser (Chromium through Playwright) on a
real ``streamlit run workbench/app.py`` server: the real TLUE
``ancient_chinese0`` (with its CMMLU source) and the demo's Uyghur and
Mongolian items, at 1280×720, 1024×768 and 1280 px wide.

Checked with element bounding boxes, not only text:

* at 1280 px the question and its options get at least 60 % of the width;
* at 1280×720 Save is inside the viewport without scrolling (4 options);
* at 1024×768 nothing is cut off: no button's text overflows its box, no
  element of the form sticks out of the viewport or of its column, and the
  page does not scroll sideways;
* Uyghur stays right-to-left (option letters on the right of the text) and
  traditional Mongolian stays vertical (columns taller than wide) inside the
  question column;
* the language switch turns the pages into Chinese and Tibetan and is kept
  as the reviewer's setting.

Screenshots go to ``test-artifacts/layout-*.png`` (git-ignored).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import shared_path
from tests.support.accounts import browser_sign_in, ensure_account
from tests.support.common import copy_db
from tests.support.workbench_server import chromium, workbench_server

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.shared_data]

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"
REVIEWER = "Layout Reviewer"
TLUE_ITEM = "ancient_chinese0"


@pytest.fixture(scope="module")
def layout_db(tmp_path_factory, demo_db) -> Path:
    from audit.ingest import import_parallel, import_tlue

    tlue, cmmlu = shared_path("tlue_subset670"), shared_path("cmmlu_subset670")
    db = copy_db(demo_db, tmp_path_factory.mktemp("wb_layout") / "workbench.duckdb")
    import_tlue(tlue, db=db)
    import_parallel(cmmlu, benchmark="tlue", source="cmmlu", db=db)
    for name in (REVIEWER, "Lhamo Switch"):
        ensure_account(name, db=db)
    return db


@pytest.fixture(scope="module")
def server(layout_db):
    with workbench_server(layout_db) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def _wait_idle(page) -> None:
    page.wait_for_timeout(250)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=30_000)


def _open(browser, base: str, width: int, height: int, bench: str, qid: str):
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    browser_sign_in(page, f"{base}/item?benchmark={bench}&question={qid}", REVIEWER, create=False)
    page.get_by_text(f"Item {qid}").first.wait_for()
    page.locator("[data-script]").first.wait_for()
    page.locator(".st-key-save button").wait_for()
    _wait_idle(page)
    return ctx, page


def _box(locator) -> dict:
    b = locator.bounding_box()
    assert b is not None, f"{locator} has no box (not shown)"
    return b


def _one(page, selector: str) -> dict:
    """The box of the one visible element matching ``selector``."""
    loc = page.locator(f"{selector} >> visible=true")
    assert loc.count() == 1, f"{selector}: {loc.count()} visible elements"
    return _box(loc)


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"layout-{name}.png"))


# Everything in the verdict form and the header: no text overflowing its
# button, nothing outside the viewport horizontally.
_CLIPPED_JS = """(vw) => {
  const out = [];
  const els = document.querySelectorAll(
     '.st-key-item_side button, .st-key-back_queue button, .st-key-nav_prev button, .st-key-nav_next button,'
     + ' .st-key-item_side [data-testid=stSelectbox], .st-key-item_side textarea');
  for (const e of els) {
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || getComputedStyle(e).visibility === 'hidden') continue;
    if (r.left < -1 || r.right > vw + 1) out.push(['outside', e.innerText.slice(0, 40), r.left, r.right]);
    for (const p of [e, ...e.querySelectorAll('*')]) {   // any clipped or ellipsised text
      if (p.clientWidth > 0 && p.scrollWidth > p.clientWidth + 1 && p.tagName !== 'TEXTAREA')
        out.push(['text cut', (p.innerText || '').slice(0, 40), p.scrollWidth, p.clientWidth]);
    }
    const pr = e.closest('[data-testid=stColumn]');
    if (pr) { const c = pr.getBoundingClientRect();
      if (r.right > c.right + 2) out.push(['beyond column', e.innerText.slice(0, 40), r.right, c.right]); }
  }
  const main = document.querySelector('[data-testid=stMain]');
  if (main && main.scrollWidth > main.clientWidth + 2)
    out.push(['page scrolls sideways', main.scrollWidth, main.clientWidth]);
  return out;
}"""


def test_tibetan_item_at_1280x720(server, browser):
    ctx, page = _open(browser, server, 1280, 720, "tlue", TLUE_ITEM)
    try:
        _shot(page, "tlue-1280x720")
        q = _box(page.locator('[data-script="Tibt"]').first)
        assert q["width"] >= 0.60 * 1280, f"the Tibetan question gets {q['width']:.0f} px of 1280"
        opts = page.locator('[data-script="Tibt"] .wb-opt')
        assert opts.count() == 4
        for i in range(4):
            assert _box(opts.nth(i))["width"] >= 0.55 * 1280
        # Save is on screen without scrolling, and so are the five verdict buttons
        save = _one(page, ".st-key-save button")
        assert 0 <= save["y"] and save["y"] + save["height"] <= 720, f"Save at y={save['y']:.0f}"
        for v in ("key_correct", "key_wrong", "ambiguous", "defective", "skip"):
            b = _one(page, f".st-key-vbtn_{v} button")
            assert b["y"] + b["height"] <= 720
        # the form sits right of the question, not under it
        assert save["x"] >= q["x"] + q["width"] - 1
        # the compact vote summary is one short block, and the CMMLU source sits right under the question
        votes = page.locator(".wb-votes")
        if votes.count():
            assert _box(votes.first)["height"] <= 80
        par = _box(page.locator(".wb-par").first)
        assert par["y"] >= q["y"] + q["height"] - 1 and par["width"] >= 0.55 * 1280
        assert page.evaluate(_CLIPPED_JS, 1280) == []
    finally:
        ctx.close()


def test_nothing_cut_off_at_1024x768(server, browser):
    ctx, page = _open(browser, server, 1024, 768, "tlue", TLUE_ITEM)
    try:
        _shot(page, "tlue-1024x768")
        assert page.evaluate(_CLIPPED_JS, 1024) == []
        for v in ("key_correct", "key_wrong", "ambiguous", "defective", "skip"):
            b = _one(page, f".st-key-vbtn_{v} button")
            assert b["x"] >= 0 and b["x"] + b["width"] <= 1024 and b["y"] + b["height"] <= 768
        q = _box(page.locator('[data-script="Tibt"]').first)
        assert q["width"] >= 0.55 * 1024
    finally:
        ctx.close()


def _demo_item(db, script: str, language: str) -> str:
    import audit

    q = audit.review.review_queue("demo", tiers=None, db=db)
    q = q[(q["script"] == script) & (q["language"] == language)]
    assert len(q), f"the demo has no {script}/{language} item"
    return q.iloc[0]["question_id"]


def test_uyghur_stays_right_to_left(server, browser, layout_db):
    qid = _demo_item(layout_db, "Arab", "ug")
    ctx, page = _open(browser, server, 1280, 720, "demo", qid)
    try:
        _shot(page, "uyghur-1280x720")
        block = page.locator('[data-script="Arab"]').first
        assert _box(block)["width"] >= 0.60 * 1280
        text = block.locator(".wb-opt .wb-text").first
        assert text.evaluate("e => getComputedStyle(e).direction") == "rtl"
        opt = block.locator(".wb-opt").first
        label, body = _box(opt.locator(".wb-label")), _box(opt.locator(".wb-body"))
        assert label["x"] > body["x"], "in RTL the option letter is on the right of its text"
        save = _one(page, ".st-key-save button")
        assert save["y"] + save["height"] <= 720
    finally:
        ctx.close()


def test_mongolian_stays_vertical(server, browser, layout_db):
    qid = _demo_item(layout_db, "Mong", "mn-Mong")
    ctx, page = _open(browser, server, 1280, 720, "demo", qid)
    try:
        _shot(page, "mongolian-1280x720")
        wrap = page.locator('[data-script="Mong"]').first
        stem = wrap.locator(".wb-stem .wb-text").first
        assert stem.evaluate("e => getComputedStyle(e).writingMode") == "vertical-lr"
        s = _box(stem)
        assert s["height"] > s["width"], "vertical Mongolian is taller than wide"
        w = _box(wrap)
        col = _box(page.locator(".st-key-item_main"))
        assert w["x"] >= col["x"] - 1 and w["x"] + w["width"] <= col["x"] + col["width"] + 1
        save = _one(page, ".st-key-save button")
        assert save["x"] >= w["x"] + w["width"] - 1, "the vertical text does not run under the form"
    finally:
        ctx.close()


def test_language_switch(server, browser, layout_db):
    import audit

    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    try:
        browser_sign_in(page, server, "Lhamo Switch", create=False)
        page.get_by_role("heading", name="Review queue").wait_for()
        _wait_idle(page)
        for choice, title, start in (("简体中文", "审核队列", "开始审核"), ("བོད་ཡིག", "ཞིབ་བཤེར་གྲལ་རིམ", "ཞིབ་བཤེར་འགོ་འཛུགས")):
            page.locator("[data-testid=stSidebar] [data-testid=stSelectbox]").first.click()
            page.get_by_role("option", name=choice).click()
            page.get_by_role("heading", name=title).wait_for()
            _wait_idle(page)
            assert start in page.locator(".st-key-start_first button >> visible=true").inner_text()
        _shot(page, "queue-bo")
        # the Tibetan title is really drawn in a Tibetan font, not as boxes
        h = page.get_by_role("heading", name="ཞིབ་བཤེར་གྲལ་རིམ")
        assert _box(h)["width"] > 100
        assert audit.accounts.language.get_user_language("Lhamo Switch", db=layout_db) == "bo"
        # another tab of this browser shares the session (its cookie) and the language
        page2 = ctx.new_page()
        page2.goto(server)
        page2.get_by_role("heading", name="ཞིབ་བཤེར་གྲལ་རིམ").wait_for()
    finally:
        ctx.close()
    # a new session of the same reviewer, in another browser, starts in their language
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
    try:
        page3 = ctx.new_page()
        page3.set_default_timeout(30_000)
        browser_sign_in(page3, server, "Lhamo Switch", create=False)
        page3.get_by_role("heading", name="ཞིབ་བཤེར་གྲལ་རིམ").wait_for()
    finally:
        ctx.close()
