"""The whole interface in the browser's language (issue 21), in a real
Chromium through Playwright against ``streamlit run workbench/app.py``.

With Chromium's locale set to Tibetan (then Chinese) and nothing chosen, the
sign-in page and every page after it show no interface string outside that
language's catalogue: every visible text, once the data it may quote
(account and model names, item ids, subjects, numbers) is taken out, holds
no Latin word that the catalogue itself does not use.  Benchmark text,
commands in code spans, the statistics engineer's evidence block
(``.st-key-item_evidence``) and the sentences ``audit.judge`` writes
(``.wb-reading``) are data or the library's, not the interface's, and are
left out of the check.

A second test writes screenshots of every page in the three languages at
1280 × 900 and 1024 × 768 into ``test-artifacts/screenshots/``.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import audit
from tests._accounts import ADMIN, PASSWORD, ensure_account
from tests.test_workbench_browser import browser  # noqa: F401 - pytest fixture
from tests.test_workbench_campaign_browser import server  # noqa: F401 - pytest fixture (on this module's wb_db)
from workbench import i18n

pytestmark = [pytest.mark.browser, pytest.mark.slow]
SHOTS = Path(__file__).resolve().parents[1] / "test-artifacts" / "screenshots"
PAGES = ["queue", "item", "dashboards", "judges", "export", "admin", "label-studio"]
NOT_CHECKED: set[str] = set()
LATIN = re.compile(r"[A-Za-z][A-Za-z'’]+")

_VISIBLE_TEXTS = """(skip) => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const n = walker.currentNode, e = n.parentElement;
    const text = n.textContent.trim();
    if (!text || !e || e.closest(skip)) continue;
    const r = e.getBoundingClientRect(), cs = getComputedStyle(e);
    if (!r.width || !r.height || r.bottom < 0 || r.right < 0 || cs.visibility === 'hidden' || cs.display === 'none') continue;
    out.push(text);
  }
  return out;
}"""
SKIP = ("script, style, svg, code, pre, [data-script], .wb-text, .wb-preview, .wb-stem, .wb-opt, "
        "[data-testid*=Icon], [data-testid=stIconMaterial], [data-testid=stDataFrame], .wb-card-who, "
        "[data-testid=stSidebarNavSeparator], .st-key-wb_cookie")


@pytest.fixture(scope="module")
def wb_db(tmp_path_factory) -> Path:
    from audit.demo import build_demo

    db = tmp_path_factory.mktemp("wb_i18n") / "workbench.duckdb"
    build_demo(db)
    ensure_account("Pema I18n", db=db)
    return db


def _data_words(db: Path) -> set[str]:
    """Words the interface may quote from the data (never from a catalogue)."""
    from audit.store import connect

    with connect(db, read_only=True) as con:
        rows = con.execute("""
            SELECT DISTINCT x FROM (
              SELECT subject AS x FROM questions UNION ALL SELECT question_id FROM questions
              UNION ALL SELECT benchmark FROM questions UNION ALL SELECT name FROM accounts
              UNION ALL SELECT model FROM predictions UNION ALL SELECT language FROM questions
            ) WHERE x IS NOT NULL""").fetchall()
    words = set()
    for (x,) in rows:
        words |= set(LATIN.findall(str(x)))
    from audit.store import connect as _c

    with _c(db, read_only=True) as con:
        for (f,) in con.execute("SELECT DISTINCT family FROM models WHERE family IS NOT NULL").fetchall():
            words |= set(LATIN.findall(str(f)))
    q = audit.review.review_queue("demo", db=db).iloc[0]["question_id"]
    for fam in audit.review.item_view("demo", q, db=db).families:   # run and method names of the item shown
        for m in fam.answers:
            words |= set(LATIN.findall(f"{m.method} {m.run} {m.model} {fam.family}"))
    return words | {"audit", "demo"}


def _catalogue_words(lang: str) -> set[str]:
    words = set()
    for text in i18n.messages(lang).values():
        words |= set(LATIN.findall(text))
    return words


# Streamlit's own accessibility link, drawn only while it has the keyboard focus (not translatable from the app)
STREAMLIT_OWN = {"Skip to main content"}


def _foreign(texts: list[str], allowed: set[str]) -> list[str]:
    return sorted({t for t in texts if t not in STREAMLIT_OWN and any(w not in allowed for w in LATIN.findall(t))})


def _sign_in(page, base: str, name: str) -> None:
    """The sign-in form by its widget keys (its labels are in the page's language)."""
    page.goto(base)
    page.locator(".st-key-signin_name input").fill(name)
    page.locator(".st-key-signin_password input").fill(PASSWORD)
    page.locator("[data-testid=stForm] button").last.click()


def _idle(page) -> None:
    """No script running and every element drawn (no skeleton placeholders)."""
    page.wait_for_timeout(400)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]') && "
                           "!document.querySelector('[data-testid=\"stSkeleton\"]')", timeout=60_000)
    page.wait_for_timeout(300)


def _start(browser, base: str, locale: str, size: tuple[int, int]):
    """A fresh browser context in ``locale`` at the sign-in page: (context, page)."""
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale=locale)
    page = ctx.new_page()
    page.set_default_timeout(60_000)
    page.goto(base)
    page.locator("[data-testid=stForm]").first.wait_for()
    _idle(page)
    return ctx, page


def _open(page, base: str, name: str, qid: str) -> None:
    path = {"item": f"item?benchmark=demo&question={qid}", "queue": ""}.get(name, name)
    page.goto(f"{base}/{path}")
    page.locator("h1, h4").first.wait_for()
    _idle(page)


@pytest.mark.parametrize("locale,lang", [("bo-CN", "bo"), ("zh-CN", "zh-Hans")])
def test_every_visible_string_is_in_the_browsers_language(server, browser, wb_db, locale, lang):
    allowed = _catalogue_words(lang) | _data_words(wb_db)
    ctx, page = _start(browser, server, locale, (1280, 900))
    try:
        # the sign-in page follows Accept-Language before anyone signs in
        assert page.get_by_role("heading", name=i18n.translate("signin.title", lang)).count() == 1
        bad = {"sign-in": _foreign(page.evaluate(_VISIBLE_TEXTS, SKIP), allowed)}
        _sign_in(page, server, ADMIN)
        page.get_by_role("heading", name=i18n.translate("queue.title", lang)).wait_for()
        qid = audit.review.review_queue("demo", db=wb_db).iloc[0]["question_id"]
        for name in PAGES:
            _open(page, server, name, qid)
            if name not in NOT_CHECKED:
                bad[name] = _foreign(page.evaluate(_VISIBLE_TEXTS, SKIP), allowed)
            tabs = page.locator("[data-testid=stMain] [role=tab]")
            for i in range(1, tabs.count()):   # every tab of the page, not only the first one shown
                tabs.nth(i).click()
                _idle(page)
                if name not in NOT_CHECKED:
                    bad[f"{name}#{i}"] = _foreign(page.evaluate(_VISIBLE_TEXTS, SKIP), allowed)
        bad = {k: v for k, v in bad.items() if v}
        assert bad == {}, f"strings outside the {lang} catalogue: {bad}"
    finally:
        ctx.close()


def test_screenshots_of_every_page_in_three_languages(server, browser, wb_db):
    SHOTS.mkdir(parents=True, exist_ok=True)
    qid = audit.review.review_queue("demo", db=wb_db).iloc[0]["question_id"]
    written = []
    for locale, lang in (("en-US", "en"), ("bo-CN", "bo"), ("zh-CN", "zh-Hans")):
        for w, h in ((1280, 900), (1024, 768)):
            ctx, page = _start(browser, server, locale, (w, h))
            try:
                path = SHOTS / f"{lang}-{w}x{h}-sign-in.png"
                page.screenshot(path=str(path))
                written.append(path)
                _sign_in(page, server, ADMIN)
                page.get_by_role("heading", name=i18n.translate("queue.title", lang)).wait_for()
                for name in PAGES:
                    _open(page, server, name, qid)
                    path = SHOTS / f"{lang}-{w}x{h}-{name}.png"
                    page.screenshot(path=str(path))
                    written.append(path)
            finally:
                ctx.close()
    assert len(written) == 3 * 2 * (len(PAGES) + 1)
    assert all(p.stat().st_size > 10_000 for p in written)
