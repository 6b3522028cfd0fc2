"""The whole interface in the browser's language, in a real
Chromium through Playwright against ``streamlit run workbench/app.py``.

With Chromium's locale set to Tibetan (then Chinese) and nothing chosen, the
sign-in page and every page after it show no interface string outside that
language's catalogue: every visible text, once the data it may quote
(account and model names, item ids, subjects, numbers) is taken out, holds
no Latin word that the catalogue itself does not use.  Benchmark text and
commands in code spans are data, left out of the check; the item's "why this
item is here" block and the sentences of reading ``audit.judge`` writes
(from their keys and figures) are checked like the rest.  The database has
two LLM judges and a few settled items, so the Judges page shows every kind
of reading.

In every language, English included, no page (nor any of its tabs and
tables) shows a stored code (``key_wrong``, ``needs_second_review``,
``verdict_b``…) or a missing value as ``None`` / ``NaN``.

The same visit, in English too, writes screenshots of every page in the
three languages at 1280 × 900 and 1024 × 768 into
``test-artifacts/screenshots/`` (each page loaded once and pictured at both
sizes, the viewport resized in between; the strings are read at 1280 × 900,
before any resize).
"""
from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

import audit
from audit import i18n
from tests.support.accounts import ADMIN, PASSWORD, ensure_account
from tests.support.workbench_server import wait_settled
from tests.workbench.test_browser import browser  # noqa: F401 - pytest fixture
from tests.workbench.test_campaign_browser import server  # noqa: F401 - pytest fixture (on this module's wb_db)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
PAGES = ["queue", "item", "dashboards", "judges", "export", "admin", "label-studio", "help"]
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
    if (!r.width || !r.height || r.bottom < 0 || r.right < 0
        || cs.visibility === 'hidden' || cs.display === 'none') continue;
    out.push(text);
  }
  return out;
}"""
SKIP = ("script, style, svg, code, pre, [data-script], .wb-text, .wb-preview, .wb-stem, .wb-opt, "
        "[data-testid*=Icon], [data-testid=stIconMaterial], [data-testid=stDataFrame], .wb-card-who, "
        "[data-testid=stSidebarNavSeparator], .st-key-wb_cookie, .st-key-wb_guide")
# Raw codes and missing values are looked for in tables too (their cells are in the page's accessible grid).
SKIP_CODES = SKIP.replace(", [data-testid=stDataFrame]", "")
_CELLS = """() => [...document.querySelectorAll(
    '[data-testid=stDataFrame] [role=gridcell], [data-testid=stDataFrame] [role=columnheader]')]
  .map(c => c.textContent.trim()).filter(Boolean)"""
# A stored code (key_wrong, needs_second_review, key_a, verdict_b …) or a missing value shown as such.
# A path or an address (letters after "/" or ".") is not a code.
RAW = re.compile(r"(?<![\w/.\-])(?:[a-z][a-z0-9]*(?:_[a-z0-9]+)+|None|NaN|nan|null|True|False)(?![\w/.\-])")


def _raw_codes(page) -> list[str]:
    texts = page.evaluate(_VISIBLE_TEXTS, SKIP_CODES) + page.evaluate(_CELLS)
    return sorted({t for t in texts if RAW.search(t)})


@pytest.fixture(scope="module")
def wb_db(tmp_path_factory) -> Path:
    from tests.support.review_campaign import build

    db = tmp_path_factory.mktemp("wb_i18n") / "workbench.duckdb"
    build(db, judges=False)       # a dispute, settled items, a published version, guidelines
    ensure_account("Pema I18n", db=db)
    _add_judges(db)
    return db


def _add_judges(db: Path) -> None:
    """Two LLM judges on every demo item (one of a judged family) and a few
    items settled by two reviewers, so the Judges page writes every kind of
    reading (bias, bias versus accuracy, scenarios, agreement)."""
    import json

    from audit.judge import import_judge
    from audit.store import connect

    ensure_account(ADMIN, "admin", db=db)   # importing verdicts is a lead's or admin's act
    with connect(db, read_only=True) as con:
        items = con.execute("SELECT question_id, answer_key FROM questions WHERE benchmark = 'demo' "
                            "ORDER BY question_id").fetchall()
    for judge, every in (("gemini-2.5-pro", 3), ("gpt-4o", 4)):
        f = db.parent / f"{judge}.jsonl"
        f.write_text("".join(json.dumps({"loc": q, "llm_validation": {
            "answer_key_correct": i % every != 0, "correct_answer": None if i % every else ("B" if k == "A" else "A")}})
            + "\n" for i, (q, k) in enumerate(items)), encoding="utf-8")
        import_judge(f, judge=judge, benchmark="demo", db=db, actor=ADMIN)
    ensure_account("Rev One I18n", db=db)
    ensure_account("Rev Two I18n", db=db)
    for i, (q, k) in enumerate(items[:12:2]):
        verdict = ("key_wrong", "B" if k == "A" else "A") if i % 2 else ("key_correct", None)
        for who in ("Rev One I18n", "Rev Two I18n"):
            audit.review.add_review("demo", q, who, verdict[0], corrected_answer=verdict[1], db=db)


def _data_words(db: Path) -> set[str]:
    """Words the interface may quote from the data (never from a catalogue)."""
    from audit.store import connect

    with connect(db, read_only=True) as con:
        rows = con.execute("""
            SELECT DISTINCT x FROM (
              SELECT subject AS x FROM questions UNION ALL SELECT question_id FROM questions
              UNION ALL SELECT benchmark FROM questions UNION ALL SELECT name FROM accounts
              UNION ALL SELECT model FROM predictions UNION ALL SELECT language FROM questions
              UNION ALL SELECT judge FROM judge_verdicts UNION ALL SELECT counterpart_source FROM parallel_links
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
    # option letters: an option is named as the item shows it, A–D for these items, in every language
    words |= {f"{x}{q}" for x in "ABCDEF" for q in ("'", "’")}
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
    """No script running and every element drawn (no skeleton placeholders),
    for 300 ms in a row."""
    wait_settled(page)


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


SIZES = ((1280, 900), (1024, 768))    # the strings are read at the first


def _shoot(page, lang: str, name: str, written: list[Path]) -> None:
    """The page as loaded at 1280 × 900, then resized to 1024 × 768
    (Streamlit lays it out again for the new width) and settled, then back to
    1280 × 900 for what follows: one page load gives both pictures."""
    for k, (w, h) in enumerate(SIZES):
        if k:
            page.set_viewport_size({"width": w, "height": h})
            _idle(page)
        path = SHOTS / f"{lang}-{w}x{h}-{name}.png"
        page.screenshot(path=str(path))
        head = path.read_bytes()[:24]
        assert head[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", head[16:24]) == (w, h), path
        written.append(path)
    page.set_viewport_size({"width": SIZES[0][0], "height": SIZES[0][1]})
    _idle(page)


@pytest.mark.parametrize("locale,lang", [("en-US", "en"), ("bo-CN", "bo"), ("zh-CN", "zh-Hans")])
def test_every_page_in_the_browsers_language(server, browser, wb_db, locale, lang):
    """Each page once per language: pictured at both sizes, and, in Tibetan
    and Chinese, every visible string of it and of each of its tabs checked
    against the catalogue (English is the catalogue's source: pictures only)."""
    check = lang != "en"
    allowed = (_catalogue_words(lang) | _data_words(wb_db)) if check else set()
    SHOTS.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    ctx, page = _start(browser, server, locale, SIZES[0])
    try:
        # the sign-in page follows Accept-Language before anyone signs in
        assert page.get_by_role("heading", name=i18n.translate("signin.title", lang)).count() == 1
        bad = {"sign-in": _foreign(page.evaluate(_VISIBLE_TEXTS, SKIP), allowed)} if check else {}
        raw: dict[str, list[str]] = {"sign-in": _raw_codes(page)}
        _shoot(page, lang, "sign-in", written)
        _sign_in(page, server, ADMIN)
        page.get_by_role("heading", name=i18n.translate("queue.title", lang)).wait_for()
        qid = audit.review.review_queue("demo", db=wb_db).iloc[0]["question_id"]
        for name in PAGES:
            _open(page, server, name, qid)
            raw[name] = _raw_codes(page)
            if check and name not in NOT_CHECKED:
                bad[name] = _foreign(page.evaluate(_VISIBLE_TEXTS, SKIP), allowed)
            if name == "item":      # the "why this item is here" block is shown (and checked)
                assert page.locator(".st-key-item_evidence li").count() >= 2
            if name == "judges":    # the judge's reading is shown in its tab, worded by this language's catalogue
                page.get_by_role("tab", name=i18n.translate("judges.tab_bias", lang), exact=True).click()
                page.get_by_text(i18n.translate("reading.bias.caveat", lang)).wait_for()
                page.get_by_role("tab", name=i18n.translate("judges.tab_card", lang), exact=True).click()
                _idle(page)
            _shoot(page, lang, name, written)
            tabs = page.locator("[data-testid=stMain] [role=tab]")
            for i in range(1, tabs.count()):   # every tab of the page, not only the first one shown
                tabs.nth(i).click()
                _idle(page)
                raw[f"{name}#{i}"] = _raw_codes(page)
                if check and name not in NOT_CHECKED:
                    bad[f"{name}#{i}"] = _foreign(page.evaluate(_VISIBLE_TEXTS, SKIP), allowed)
        bad = {k: v for k, v in bad.items() if v}
        assert bad == {}, f"strings outside the {lang} catalogue: {bad}"
        raw = {k: v for k, v in raw.items() if v}
        assert raw == {}, f"raw codes or missing values shown in {lang}: {raw}"
    finally:
        ctx.close()
    assert len(written) == len(set(written)) == len(SIZES) * (len(PAGES) + 1)
    assert all(p.stat().st_size > 10_000 for p in written)
