"""What a Tibetan review team meets in the browser, checked in a real
Chromium against ``streamlit run workbench/app.py`` on a small campaign
(:mod:`tests.support.review_campaign`), in English and Tibetan where the
finding is about text or layout:

* Tibetan stems and options are at least as large in the Tibetan interface
  as in the English one (computed font sizes);
* the language chosen on the sign-in page survives a reload, a new tab, a
  shared link and a new browser (it is saved with the account);
* the admin's change-an-account form shows each account's real role, and
  there is no second list of lead reviewers;
* a lead who saves a plain verdict on a dispute can still settle it, and
  the header never says "3 of 2";
* the queue at 1024 × 768 with the sidebar open shows the Question column
  and whole ids;
* the export page offers a new version for download at once, and the
  difference moves to the new pair;
* ``/``, ``/queue``, ``/admin`` and ``/label-studio`` never show
  Streamlit's "Page not found";
* evidence-blind review: before the blind answer the page's HTML holds no
  key, vote, score, judge sentence or parallel key; after it, all of them.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import audit
from audit import i18n
from tests.support import review_campaign as camp
from tests.support.accounts import ADMIN, PASSWORD
from tests.support.workbench_server import chromium, wait_settled, workbench_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
LOCALES = {"en": "en-US", "bo": "bo-CN", "zh-Hans": "zh-CN"}


@pytest.fixture(scope="module")
def wb_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("wb_review") / "workbench.duckdb"
    camp.build(db)
    return db


@pytest.fixture(scope="module")
def made(wb_db) -> dict:
    return {"tibetan": _unreviewed_tibetan(wb_db, 1)}


def _disputed(db: Path) -> str:
    q = audit.review.review_queue(camp.BENCH, tiers=None, status="disputed", db=db)
    return q.iloc[0]["question_id"]


def _unreviewed_tibetan(db: Path, k: int = 0) -> str:
    q = audit.review.review_queue(camp.BENCH, tiers=None, status="unreviewed", db=db)
    return q[q["script"] == "Tibt"].iloc[k]["question_id"]


@pytest.fixture(scope="module")
def server(wb_db):
    with workbench_server(wb_db) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def _context(browser, lang: str = "en", size=(1280, 900)):
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale=LOCALES[lang])
    return ctx


def _page(ctx):
    page = ctx.new_page()
    page.set_default_timeout(60_000)
    return page


def _sign_in(page, base: str, name: str, path: str = "") -> None:
    """Sign in through the form by its widget keys (its labels are in the page's language)."""
    page.goto(f"{base}/{path}")
    page.locator(".st-key-signin_name input").wait_for()
    wait_settled(page)
    page.locator(".st-key-signin_name input").fill(name)
    page.locator(".st-key-signin_password input").fill(PASSWORD)
    page.locator("[data-testid=stForm] button").last.click()
    page.wait_for_function("() => !document.querySelector('.st-key-signin_name')")
    wait_settled(page)


def _go(page, base: str, path: str) -> None:
    page.goto(f"{base}/{path}")
    page.locator("[data-testid=stMain] h1, [data-testid=stMain] h4").first.wait_for()
    wait_settled(page)


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"review-{name}.png"))


def _t(name: str, lang: str, /, **kw) -> str:
    return i18n.translate(name, lang, **kw)


def _key(key: str, prefix: bool = False) -> str:
    """The CSS selector of the element with widget key ``key`` (``prefix``: whose key starts so),
    leaving out the stale copy Streamlit keeps while a run redraws the page."""
    k = re.sub(r"[^a-zA-Z0-9_-]", "-", key)
    return (f"[class*='st-key-{k}']" if prefix else f".st-key-{k}") + ":not([data-stale=true])"


def _choose(page, key: str, option: str, prefix: bool = False) -> None:
    """Pick ``option`` in the selectbox with widget key ``key``."""
    page.locator(f"{_key(key, prefix)} input[role=combobox]").click()
    page.get_by_role("option", name=option, exact=True).click()
    wait_settled(page)


def _button(page, key: str):
    """The visible button with widget key ``key`` (Streamlit keeps a hidden copy beside it)."""
    return page.locator(f"{_key(key)} button").filter(visible=True).first


def _chosen(page, key: str, prefix: bool = False) -> str:
    """The option a selectbox shows."""
    return page.locator(f"{_key(key, prefix)} input[role=combobox]").input_value().strip()


# ---------------------------------------------------------------- 1 Tibetan text keeps its size

_SIZES = """() => {
  const px = (sel) => { const e = document.querySelector(sel);
                        return e ? parseFloat(getComputedStyle(e).fontSize) : null; };
  return {stem: px('.wb-stem .wb-text'), option: px('.wb-opt .wb-text'), label: px('.wb-opt .wb-label')};
}"""


def test_tibetan_text_is_not_smaller_in_the_tibetan_interface(server, browser, wb_db):
    qid = _unreviewed_tibetan(wb_db)
    sizes = {}
    for lang in ("en", "bo"):
        ctx = _context(browser, lang)
        try:
            page = _page(ctx)
            _sign_in(page, server, camp.REVIEWERS[0], f"item?benchmark={camp.BENCH}&question={qid}")
            page.locator(".wb-stem .wb-text").first.wait_for()
            wait_settled(page)
            sizes[lang] = page.evaluate(_SIZES)
            _shot(page, f"font-{lang}")
        finally:
            ctx.close()
    for part in ("stem", "option"):
        assert sizes["bo"][part] >= sizes["en"][part] >= 23, sizes   # 1.45rem = 23.2 px
    assert sizes["bo"]["label"] >= 16, sizes


# ---------------------------------------------------------------- 2 the language is remembered

def test_the_language_chosen_before_signing_in_survives_reload_tab_link_and_browser(server, browser, wb_db, made):
    name = camp.REVIEWERS[1]
    bo_title, bo_queue = _t("signin.title", "bo"), _t("queue.title", "bo")
    ctx = _context(browser, "en")
    try:
        page = _page(ctx)
        page.goto(server)
        page.get_by_role("heading", name=_t("signin.title", "en")).wait_for()
        wait_settled(page)
        _choose(page, "wb_lang_switch", i18n.LANGUAGES["bo"])
        page.get_by_role("heading", name=bo_title).wait_for()
        page.wait_for_timeout(500)       # the page script writes the cookie
        page.reload()                    # before signing in: the cookie
        page.get_by_role("heading", name=bo_title).wait_for()
        tab = _page(ctx)                 # a new tab, still before signing in
        tab.goto(server)
        tab.get_by_role("heading", name=bo_title).wait_for()
        tab.close()
        page.locator(".st-key-signin_name input").fill(name)
        page.locator(".st-key-signin_password input").fill(PASSWORD)
        page.locator("[data-testid=stForm] button").last.click()
        page.get_by_role("heading", name=bo_queue).wait_for()
        wait_settled(page)
        assert audit.accounts.language.get_user_language(name, db=wb_db) == "bo"   # saved with the account
        page.reload()
        page.get_by_role("heading", name=bo_queue).wait_for()
        link = _page(ctx)                # a shared link to an item, in a new tab
        link.goto(f"{server}/item?benchmark={camp.BENCH}&question={made['tibetan']}")
        link.get_by_text(_t("item.heading", "bo", qid=made["tibetan"])).first.wait_for()
        link.close()
    finally:
        ctx.close()
    other = _context(browser, "en")       # another browser: no cookie, English asked for; the account says Tibetan
    try:
        page = _page(other)
        _sign_in(page, server, name)
        page.get_by_role("heading", name=bo_queue).wait_for()
        _shot(page, "language-new-browser")
    finally:
        other.close()


# ---------------------------------------------------------------- 3 the admin form shows real roles

@pytest.mark.parametrize("lang", ["en", "bo"])
def test_the_admin_form_shows_each_accounts_real_role(server, browser, lang):
    ctx = _context(browser, lang)
    try:
        page = _page(ctx)
        _sign_in(page, server, ADMIN, "admin")
        page.get_by_role("heading", name=_t("admin.title", lang)).wait_for()
        assert page.locator(".st-key-admin_leads_pick").count() == 0     # no second list of leads
        page.get_by_text(_t("admin.leads_are_roles", lang, names=camp.LEAD)).first.wait_for()
        for who, role in ((camp.LEAD, "lead"), (camp.REVIEWERS[0], "reviewer"), (ADMIN, "admin"),
                          (camp.LEAD, "lead")):
            _choose(page, "admin_who", who)
            shown = _chosen(page, "admin_new_role", prefix=True)
            assert shown == _t(f"role.{role}", lang), (who, shown)
        _shot(page, f"admin-role-{lang}")
    finally:
        ctx.close()


# ---------------------------------------------------------------- 4 a lead cannot trap themselves

def test_a_lead_who_saves_a_plain_verdict_on_a_dispute_can_still_settle_it(server, browser, wb_db):
    qid = _disputed(wb_db)
    ctx = _context(browser, "en")
    box = f"{_key(f'form::{camp.BENCH}::{qid}::adjudicate')} input[type=checkbox]"
    try:
        page = _page(ctx)
        _sign_in(page, server, camp.LEAD, f"item?benchmark={camp.BENCH}&question={qid}")
        page.locator(box).wait_for(state="attached")
        assert page.locator(box).is_checked()          # the lead's verdict decides by default
        page.locator(box).uncheck(force=True)
        wait_settled(page)
        if page.locator(f"{_key('wb_move_on')} input").is_checked():
            page.locator(f"{_key('wb_move_on')} input").uncheck(force=True)
            wait_settled(page)
        _button(page, "vbtn_ambiguous").click()
        wait_settled(page)
        _button(page, "save").click()
        page.get_by_text(_t("item.saved", "en", what=_t("item.saved_verdict", "en"), qid=qid,
                            label="x").split(":")[0]).first.wait_for()
        wait_settled(page)
        mine = audit.review.list_reviews(camp.BENCH, qid, reviewer=camp.LEAD, db=wb_db)
        assert len(mine) == 1 and not mine.iloc[0]["is_adjudication"]
        meta = page.locator(".wb-meta").inner_text()
        assert "3 verdicts" in meta and "of 2" not in meta, meta
        page.locator(box).wait_for(state="attached")   # still offered the deciding verdict
        assert page.locator(box).is_checked()
        _shot(page, "lead-after-plain-verdict")
        _button(page, "vbtn_key_correct").click()
        wait_settled(page)
        _button(page, "save").click()
        page.locator(".wb-outcome").get_by_text(_t("outcome.decided", "en")).wait_for()
    finally:
        ctx.close()
    status = audit.review.review_status(camp.BENCH, db=wb_db).set_index("question_id").loc[qid]
    assert status["status"] == "done" and status["adjudicated"]


# ---------------------------------------------------------------- 5 the queue at 1024 px

_QUEUE_LAYOUT = """() => {
  const vw = window.innerWidth;
  const live = (sel) => [...document.querySelectorAll(sel)].filter(e => !e.closest('[data-stale=true]'));
  const head = live('.wb-qhead > div:nth-child(5)')[0];
  const hb = head ? head.getBoundingClientRect() : null;
  const previews = live('.wb-qrow:not(.wb-qhead) .wb-preview').map(e => e.getBoundingClientRect().width);
  // each keyed button also has a hidden copy (for its shortcut hint): the visible ones
  const ids = live('[class*="st-key-open--"] button').filter(b => b.offsetParent).map(b => {
    const p = b.querySelector('p'); const r = b.getBoundingClientRect();
    return {text: p.textContent, cut: p.scrollWidth > p.clientWidth + 1 || p.scrollHeight > b.scrollHeight + 1,
            right: r.right};
  });
  const sidebar = document.querySelector('[data-testid=stSidebar]');
  return {vw, head: hb && {text: head.textContent, width: hb.width, right: hb.right}, previews, ids,
          sidebar: sidebar ? sidebar.getBoundingClientRect().width : 0};
}"""


@pytest.mark.parametrize("lang", ["en", "bo"])
def test_the_queue_at_1024_with_the_sidebar_open(server, browser, wb_db, lang):
    ctx = _context(browser, lang, (1024, 768))
    try:
        page = _page(ctx)
        _sign_in(page, server, camp.REVIEWERS[0], "queue")
        page.locator(_key("open::", prefix=True)).first.wait_for()
        wait_settled(page)
        got = page.evaluate(_QUEUE_LAYOUT)
        assert got["sidebar"] > 200, "the sidebar is open"
        assert got["head"] and got["head"]["text"] == _t("queue.col_question", lang)
        assert got["head"]["width"] > 40 and got["head"]["right"] <= got["vw"], got["head"]
        assert got["previews"] and min(got["previews"]) > 150, got["previews"]
        expected = list(audit.review.review_queue(camp.BENCH, reviewer=camp.REVIEWERS[0], status="needs_me",
                                                  limit=25, db=wb_db)["question_id"])
        assert [i["text"] for i in got["ids"]] == expected           # whole ids, in order
        assert not [i for i in got["ids"] if i["cut"] or "…" in i["text"] or i["right"] > got["vw"]], got["ids"]
        assert len({i["text"] for i in got["ids"][:3]}) == 3          # three Tibetan items read apart
        _shot(page, f"queue-1024-{lang}")
    finally:
        ctx.close()


# ---------------------------------------------------------------- 6 the export page offers the new version

def test_the_export_page_offers_the_new_version_without_a_reload(server, browser, wb_db):
    rows = camp.items(wb_db)
    done = set(audit.review.review_status(camp.BENCH, db=wb_db).query("n_reviews > 0")["question_id"])
    q, k, _ = next(r for r in rows if r[0] not in done)
    for who in camp.REVIEWERS:   # one more settled correction since 1.1
        audit.review.add_review(camp.BENCH, q, who, "key_wrong", corrected_answer=camp.other_label(k), db=wb_db)
    before = audit.export.list_versions(camp.BENCH, db=wb_db)["version"].tolist()
    new = f"1.{int(before[-1].split('.')[1]) + 1}"
    ctx = _context(browser, "en")
    try:
        page = _page(ctx)
        _sign_in(page, server, camp.LEAD, "export")
        page.get_by_role("heading", name=_t("export.title", "en")).wait_for()
        assert page.locator(f"{_key('export_version')} input").input_value() == new
        _button(page, "export_create").click()
        page.get_by_text(_t("export.created", "en", bench=camp.BENCH, v=new, c=1, e=0, u=0, n=0)
                         .split(":")[0]).first.wait_for()
        wait_settled(page)
        assert _chosen(page, "export_pick") == new
        assert _button(page, "export_zip").inner_text().strip().endswith(
            _t("export.download", "en", v=new))
        assert (_chosen(page, "export_diff_a"), _chosen(page, "export_diff_b")) == (before[-1], new)
        _shot(page, "export-new-version")
    finally:
        ctx.close()


# ---------------------------------------------------------------- 7 no "Page not found"

@pytest.mark.parametrize("lang", ["en", "bo"])
def test_every_address_answers_in_the_interface_language(server, browser, lang):
    ctx = _context(browser, lang)
    try:
        page = _page(ctx)
        _sign_in(page, server, camp.REVIEWERS[0])
        for path, expect in (("", "queue.title"), ("queue", "queue.title"), ("admin", "nav.admin_only"),
                             ("label-studio", "nav.admin_only"), ("help", None)):
            page.goto(f"{server}/{path}")
            page.wait_for_timeout(500)
            wait_settled(page)
            if expect:
                page.get_by_text(_t(expect, lang)).first.wait_for()
            else:
                page.locator("[data-testid=stMain] h1").first.wait_for()
            assert page.get_by_text("Page not found").count() == 0, path
            assert page.locator("[role=dialog]").count() == 0, path
        assert page.url.rstrip("/").endswith("/help")
        page.goto(server)
        page.wait_for_url(re.compile(r".*/queue$"))
    finally:
        ctx.close()


# ---------------------------------------------------------------- evidence-blind review

def _evidence_shown(page, view, judges: set[str]) -> dict[str, bool]:
    """Which kinds of evidence the page's HTML holds (elements and their text; the page's
    style sheet names the classes too, so a class alone proves nothing)."""
    html = page.content()
    text = page.inner_text("body")
    return {
        "key": bool(re.search(r'class="wb-opt wb-key|class="wb-badge wb-badge-key"', html)),
        "votes": bool(re.search(r'class="wb-votes"|class="wb-bar', html)),
        "score": _t("item.why_here", "en") in text,
        "tier": _t("queue.tier_n", "en", n=view.audit.tier) in page.locator(".wb-meta").inner_text(),
        "judge": any(j in html for j in judges),
        "parallel": bool(re.search(r'class="wb-par"', html)) or view.parallel.counterpart_id in html,
        "parallel key": _t("item.warn_parallel", "en", source=view.parallel.source, id=view.parallel.counterpart_id,
                           pkey=view.parallel.key, key=view.question.answer_key) in text
        if view.parallel.key_match is False else bool(re.search(r'class="wb-par"', html)),
    }


def test_evidence_blind_item_page_before_and_after_the_blind_answer(server, browser, wb_db):
    from audit.review.blind import set_blind_review

    qid = _unreviewed_tibetan(wb_db, 3)
    view = audit.review.item_view(camp.BENCH, qid, db=wb_db)
    key = view.question.answer_key
    judges = {j.judge for j in view.judges}
    assert view.parallel is not None and judges and view.families
    set_blind_review(True, actor=ADMIN, db=wb_db)
    audit.accounts.language.set_user_language(camp.REVIEWERS[1], "en", db=wb_db)   # read in English below
    ctx = _context(browser, "en")
    try:
        page = _page(ctx)
        _sign_in(page, server, camp.REVIEWERS[1], f"item?benchmark={camp.BENCH}&question={qid}")
        page.locator(_key("blind_save")).wait_for()
        wait_settled(page)
        evidence = _evidence_shown(page, view, judges)
        assert not any(evidence.values()), evidence
        assert page.locator(".wb-opt").count() == len(view.question.options)   # the question is whole
        _shot(page, "blind-before")
        page.get_by_text(_t("item.blind_none", "en")).wait_for()
        page.locator("label").filter(has_text=re.compile(rf"^{view.question.options[1].label}$")).first.click()
        wait_settled(page)
        _button(page, "blind_save").click()
        page.locator(_key("save")).wait_for()
        wait_settled(page)
        after = _evidence_shown(page, view, judges)
        assert all(after.values()) and set(after) == set(evidence), after
        assert _t("item.blind_was", "en", answer=view.question.options[1].label) in page.inner_text("body")
        _shot(page, "blind-after")
    finally:
        ctx.close()
        set_blind_review(False, actor=ADMIN, db=wb_db)
    got = audit.review.blind.get_blind_answer(camp.BENCH, qid, camp.REVIEWERS[1], db=wb_db)
    assert got is not None and got.answer == view.question.options[1].label and key is not None
