"""Real-browser tests of the workbench: a real ``streamlit run workbench/app.py``
server on 127.0.0.1 with a temporary database, driven by Debian's Chromium
through Playwright.

Covers: reviewing one item end to end with keyboard shortcuts (and the row
in the database), untrusted HTML in a question (nothing executes, the text
shows literally), and full-page screenshots of the queue and of Tibetan,
Uyghur and Mongolian items in ``test-artifacts/`` (git-ignored), after
checking that fonts for those scripts are installed.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.support.accounts import browser_sign_in, ensure_account
from tests.support.common import copy_db
from tests.support.workbench_server import chromium, workbench_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"
XSS_BENCH = "xss-check"
XSS_STEM = '<script>window.__xss = "script";</script> Which option is right?'
XSS_OPTION = '<img src=x onerror="window.__xss = \'img\'; alert(1)">'
XSS_SUBJECT = "![tracker](http://127.0.0.1:9/t.png) <i>subject</i>"
REVIEWER = "Dolma Browser"


@pytest.fixture(scope="module")
def wb_db(tmp_path_factory, demo_db) -> Path:
    """Demo database plus a benchmark whose question carries HTML."""
    from audit.ingest import import_questions

    d = tmp_path_factory.mktemp("wb_browser")
    db = copy_db(demo_db, d / "workbench.duckdb")
    src = d / "xss.jsonl"
    src.write_text(json.dumps({"id": "x1", "question": XSS_STEM, "A": XSS_OPTION, "B": "<b>bold?</b>",
                               "C": "plain", "answer": "A", "language": "en",
                               "subject": XSS_SUBJECT}) + "\n", encoding="utf-8")
    import_questions(src, benchmark=XSS_BENCH, db=db)
    ensure_account(REVIEWER, db=db)
    return db


@pytest.fixture(scope="module")
def server(wb_db):
    with workbench_server(wb_db) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture
def page(browser, request):
    ctx = browser.new_context(viewport={"width": 1440, "height": 1000}, locale="en-US")
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    dialogs: list[str] = []
    pg.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    pg.dialogs = dialogs
    yield pg
    try:  # the last state of every test, to look at when one fails
        ARTIFACTS.mkdir(exist_ok=True)
        pg.screenshot(path=str(ARTIFACTS / f"last-{request.node.name}.png"))
    except Exception:
        pass
    ctx.close()


def _sign_in(page, url: str) -> None:
    browser_sign_in(page, url, REVIEWER, create=False)  # the account is made with the database (wb_db)


def _wait_idle(page) -> None:
    """Wait until the app is not running a script (the running indicator
    shows only after a moment, so give a rerun time to start first)."""
    page.wait_for_timeout(300)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=30_000)


def _open_item(page, base: str, bench: str, qid: str) -> None:
    _sign_in(page, f"{base}/item?benchmark={bench}&question={qid}")
    page.get_by_text(f"Item {qid}").first.wait_for()
    page.locator("[data-script]").first.wait_for()
    _wait_idle(page)


def _shot(page, name: str) -> None:
    """Full-page screenshot: Streamlit scrolls inside its main container, so
    grow the viewport to the content's height first."""
    ARTIFACTS.mkdir(exist_ok=True)
    h = page.evaluate("""() => Math.max(...[...document.querySelectorAll(
        '[data-testid=stMain], [data-testid=stAppViewContainer], [data-testid=stMainBlockContainer]')]
        .map(e => e.scrollHeight), document.body.scrollHeight)""")
    page.set_viewport_size({"width": 1440, "height": int(min(max(h + 40, 900), 8000))})
    page.wait_for_timeout(400)
    _wait_idle(page)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)
    page.set_viewport_size({"width": 1440, "height": 1000})


def _first_item(db, script: str, language: str | None = None) -> str:
    import audit

    q = audit.review.review_queue("demo", tiers=None, db=db)
    q = q[q["script"] == script]
    if language:
        q = q[q["language"] == language]
    assert len(q), f"the demo has no {script} item"
    return q.iloc[0]["question_id"]


@pytest.mark.parametrize("lang,script", [("bo", "Tibetan"), ("ug", "Uyghur (Arabic)"), ("mn", "Mongolian")])
def test_fonts_for_scripts_are_installed(lang, script):
    out = subprocess.run(["fc-list", f":lang={lang}", "family"], capture_output=True, text=True, check=True).stdout
    assert out.strip(), (f"no font for {script} (fc-list :lang={lang} is empty): install fonts-noto-core, "
                         "or the workbench shows empty boxes instead of text")


def test_review_one_item_with_keyboard_shortcuts(server, page, wb_db):
    import audit

    ARTIFACTS.mkdir(exist_ok=True)
    _sign_in(page, server)
    page.get_by_role("heading", name="Review queue").wait_for()
    progress = audit.review.queue.queue_progress("demo", db=wb_db)
    assert progress.total > 0
    page.get_by_text(f"0 of {progress.total} reviewed").first.wait_for()
    _wait_idle(page)
    _shot(page, "queue.png")

    first = audit.review.review_queue("demo", db=wb_db).iloc[0]
    qid, key = first["question_id"], first["answer_key"]
    page.get_by_role("button", name=qid, exact=True).click()
    page.get_by_text(f"Item {qid}").first.wait_for()
    page.get_by_text("Your verdict").wait_for()
    _wait_idle(page)

    # 2 = "key wrong": its button becomes the highlighted (primary) one
    page.get_by_role("heading", name="Your verdict").click()  # focus on the page, not a text box
    page.keyboard.press("2")
    page.locator('[data-testid="stBaseButton-primary"]', has_text="Key wrong").first.wait_for()
    assert page.locator('[data-testid="stBaseButton-primary"]', has_text="Key correct").count() == 0
    _wait_idle(page)
    # corrected answer: the first option that is not the key
    page.get_by_label("Corrected answer").click()
    options = page.get_by_role("option")
    options.first.wait_for()
    choice = options.first.inner_text().strip().split()[0]  # "B (ཁ)": the Latin label is stored
    options.first.click()
    _wait_idle(page)
    assert choice != key
    rationale = page.get_by_label("Why?")
    rationale.fill("ས་ཚིགས་ Checked by hand: the key letter was shifted.")
    page.get_by_role("heading", name="Your verdict").click()  # leave the text box so shortcuts work
    _wait_idle(page)
    page.keyboard.press("s")
    page.get_by_text(f"Verdict saved for {qid}").wait_for()

    rows = audit.review.list_reviews("demo", qid, db=wb_db)
    assert len(rows) == 1
    r = rows.iloc[0]
    assert (r["reviewer"], r["verdict"], r["corrected_answer"], r["source"], r["app_version"]) == (
        REVIEWER, "key_wrong", choice, "workbench", audit.__version__)
    assert r["rationale"] == "ས་ཚིགས་ Checked by hand: the key letter was shifted."
    # Save moved on to the next item that still needs this reviewer
    nxt = audit.review.queue.next_for_reviewer("demo", REVIEWER, after=qid, db=wb_db)
    assert nxt is not None and nxt != qid
    page.get_by_text(f"Item {nxt}").first.wait_for()
    # p = back to the saved item: its history shows the row and the outcome in plain words
    _wait_idle(page)
    page.keyboard.press("p")
    page.get_by_text(f"Item {qid}").first.wait_for()
    page.get_by_role("heading", name="History").first.wait_for()   # (a rerun may briefly show two)
    page.locator("[data-testid=wb-history] .wb-card").first.wait_for()   # the verdict as a card
    page.get_by_text("Waiting for a second reviewer").first.wait_for()
    # n = next item in the queue
    _wait_idle(page)
    page.keyboard.press("n")
    page.get_by_text(f"Item {nxt}").first.wait_for()


def test_dashboards_page(server, page):
    _sign_in(page, f"{server}/dashboards")
    page.get_by_role("heading", name="Dashboards").wait_for()
    page.get_by_role("tab", name="What wrong keys cost").wait_for()     # first tab
    page.get_by_text("keys are probably wrong").first.wait_for()
    page.get_by_role("tab", name="Tiers per subject").click()
    page.locator("[data-testid=stVegaLiteChart]").first.wait_for()
    _shot(page, "dashboards.png")


def test_untrusted_html_in_a_question_does_not_execute(server, page):
    _open_item(page, server, XSS_BENCH, "x1")
    page.wait_for_timeout(1000)  # give an injected onerror handler time to fire
    assert page.evaluate("() => window.__xss") is None
    assert page.dialogs == []
    assert page.locator("[data-script] img").count() == 0
    assert page.locator("[data-script] script").count() == 0
    assert page.locator('img[src*="127.0.0.1:9"]').count() == 0  # Markdown in benchmark text stays text
    page.get_by_text(XSS_SUBJECT).first.wait_for()
    # the markup shows as text, literally
    page.get_by_text(XSS_STEM).first.wait_for()
    page.get_by_text(XSS_OPTION).first.wait_for()
    page.get_by_text("<b>bold?</b>").first.wait_for()


@pytest.mark.parametrize("name,script,language,check", [
    ("tibetan", "Tibt", "bo", None),
    ("uyghur", "Arab", "ug", "rtl"),
    ("mongolian", "Mong", "mn-Mong", "vertical"),
])
def test_items_render_in_their_script(server, page, wb_db, name, script, language, check):
    ARTIFACTS.mkdir(exist_ok=True)
    qid = _first_item(wb_db, script, language)
    _open_item(page, server, "demo", qid)
    block = page.locator(f'[data-script="{script}"]').first
    text = block.locator(".wb-text").first
    style = text.evaluate("e => { const s = getComputedStyle(e); return {ff: s.fontFamily, wm: s.writingMode, "
                          "dir: s.direction, size: parseFloat(s.fontSize)} }")
    want_font = {"Tibt": "Noto Serif Tibetan", "Arab": "Noto Naskh Arabic", "Mong": "Noto Sans Mongolian"}[script]
    assert want_font in style["ff"]
    if script == "Tibt":
        assert style["size"] >= 22, "Tibetan needs a large size for stacked letters"
    if check == "rtl":
        assert style["dir"] == "rtl"
        assert text.get_attribute("dir") == "rtl"
    if check == "vertical":
        assert style["wm"] == "vertical-lr"
        box = text.bounding_box()
        assert box["height"] > box["width"], "vertical Mongolian is taller than wide"
    _shot(page, f"item-{name}.png")
