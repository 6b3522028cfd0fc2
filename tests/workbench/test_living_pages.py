"""The pages of a living benchmark in the three interface languages, with a
real ``streamlit run`` and Debian's Chromium: the Dashboards' "since the last
version" tab (what new models changed, the scores under every key version)
and "compare benchmarks" tab (translation damage between TLUE and its CMMLU
source), the Judges page's reliability card, and the page of an item that new
evidence reopened.  The screenshots go to ``docs/img/living/``."""
from __future__ import annotations

from pathlib import Path

import pytest

from audit import i18n
from tests.support.accounts import browser_sign_in, ensure_account
from tests.support.judge_server import JudgeServer
from tests.support.living import add_judges, build_living
from tests.support.workbench_server import chromium, wait_settled, workbench_server

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.shared_data]

REPO = Path(__file__).resolve().parents[2]
IMG = REPO / "docs" / "img" / "living"
VIEWPORT = {"width": 1280, "height": 900}
LANGUAGES = {
    "en": ("en", "Living Reviewer"),
    "zh-Hans": ("zh", "Living Reviewer Zh"),
    "bo": ("bo", "Living Reviewer Bo"),
}


@pytest.fixture(scope="module")
def living(tmp_path_factory):
    from audit.accounts.language import set_user_language
    from tests.conftest import shared_path

    shared = shared_path("tlue_subset670").parent
    work = tmp_path_factory.mktemp("living")
    db = work / "workbench.duckdb"
    out = build_living(db, shared, work)
    add_judges(db, JudgeServer)
    for lang, (_, name) in LANGUAGES.items():
        ensure_account(name, "lead", db=db)
        set_user_language(name, lang, db=db)
    return db, out


@pytest.fixture(scope="module")
def server(living):
    with workbench_server(living[0]) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def _tr(key: str, lang: str, **kw) -> str:
    return i18n.translate(key, lang, **kw)


def _shoot(page, name: str) -> None:
    IMG.mkdir(parents=True, exist_ok=True)
    wait_settled(page, 500)
    page.screenshot(path=str(IMG / name))


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_living_pages(server, browser, living, lang):
    db, out = living
    suffix, name = LANGUAGES[lang]
    assert out["reopened"], "the scenario reopens an item"
    ctx = browser.new_context(viewport=VIEWPORT, locale="en-US")
    page = ctx.new_page()
    page.set_default_timeout(60_000)
    try:
        browser_sign_in(page, server, name, role="lead", create=False)

        wait_settled(page)
        page.goto(f"{server}/dashboards")
        page.get_by_role("tab", name=_tr("dash.tab_since", lang)).click()
        page.get_by_text(_tr("dash.scores_h", lang)).first.wait_for()
        page.get_by_text(_tr("dash.since_caption", lang, v="1.1")[:20]).first.wait_for()
        _shoot(page, f"since-{suffix}.png")
        page.get_by_role("tab", name=_tr("dash.tab_compare", lang)).click()
        page.get_by_text(_tr("dash.compare_damage", lang)[:20]).first.wait_for()
        _shoot(page, f"compare-{suffix}.png")
        page.goto(f"{server}/judges")
        page.get_by_text(_tr("judges.card_h", lang)).first.wait_for()
        page.get_by_text(_tr("judges.card_pairs", lang)).first.wait_for()
        _shoot(page, f"judge-card-{suffix}.png")
        page.goto(f"{server}/item?benchmark=demo&question={out['reopened'][0]}")
        page.get_by_text(_tr("item.reopened_h", lang)).first.wait_for()
        _shoot(page, f"reopened-item-{suffix}.png")
    finally:
        ctx.close()
