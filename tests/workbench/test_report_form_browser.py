"""The report form and the known-answer items in a real browser: a real
``streamlit run workbench/app.py`` and Debian's Chromium through Playwright.

* a reader with no account reports an error on ``/report``: no verdict, key
  or export changes; the item goes up the queue; ``<script>`` and
  ``=HYPERLINK(…)`` stay inert on the item page and in the export; the 21st
  report from one sender in an hour is refused; a lead accepts it on the
  item page and the next version's CHANGELOG credits the name given;
* a reviewer sees a known-answer item and an ordinary one the same way: the
  item pages' text differs only in the items' content.
"""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

import audit
from audit.ingest.models import register_models
from audit.ingest.storing import store_questions
from audit.review import add_gold, add_review, review_queue
from audit.review.reports import RATE_LIMIT, list_reports, report_error, sender_key
from audit.store import connect, transaction
from audit.store.records import Option, Question
from tests.support.accounts import PASSWORD, browser_sign_in, ensure_account
from tests.support.workbench_server import chromium, wait_settled, workbench_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]
B = "forms"
REVIEWER, LEAD = "Pema Reader", "Lhamo Lead"
SCRIPT = "<script>window.__pwned = 1</script><img src=x onerror=\"window.__pwned = 2\"> the key is wrong"
FORMULA = '=HYPERLINK("http://evil.example/","click")'
MODELS = ["qwen2.5-7b", "llama-3.1-8b", "gpt-4o-mini", "gemma-2-9b"]


def _bench(db: Path) -> None:
    """Twelve items; g01 and p01 are twins (same text but their number, same
    votes), g01 to become a known-answer item."""
    qs, rows = [], []
    for i, qid in enumerate(["g01", "p01"] + [f"x{i:02d}" for i in range(10)]):
        n = qid[1:] if qid[0] in "gp" else qid
        qs.append(Question(B, qid, f"What is item {n}?", [Option(x, f"answer {x} to {n}") for x in "ABCD"], "A",
                           subject="history", language="en", script="Latn"))
        for j, m in enumerate(MODELS):
            rows.append((B, qid, m, "B" if (qid[0] in "gp" or i % 3 == 0) and j < 3 else "A", "given", True))
    with connect(db) as con, transaction(con):
        store_questions(con, B, "questions", qs)
        register_models(con, MODELS)
        con.executemany("INSERT INTO predictions (benchmark, question_id, model, answer, method, valid) "
                        "VALUES (?, ?, ?, ?, ?, ?)", rows)
    audit.analyze_benchmark(B, db=db)


@pytest.fixture(scope="module")
def wb(tmp_path_factory):
    db = tmp_path_factory.mktemp("wb_report") / "workbench.duckdb"
    _bench(db)
    for name, role in ((REVIEWER, "reviewer"), (LEAD, "lead"), ("Rev One", "reviewer"), ("Rev Two", "reviewer"),
                       ("Rev Three", "reviewer")):
        ensure_account(name, role, db=db)
    for r in ("Rev One", "Rev Two"):                                   # g01 settled, then marked known
        add_review(B, "g01", r, "key_wrong", corrected_answer="B", actor=r, db=db)
    add_gold(B, "g01", "B", origin="settled", actor=LEAD, db=db)
    add_review(B, "g01", "Rev Three", "key_correct", actor="Rev Three", db=db)   # an answer to it
    with workbench_server(db) as base:
        yield base, db


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1440, "height": 1000}, locale="en-US")
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    yield pg
    ctx.close()


def _main_text(page) -> str:
    wait_settled(page, 500)
    return page.locator('[data-testid="stMain"]').inner_text()


def _main_html(page, qid: str) -> str:
    """The main area's HTML with the item's id replaced and the ids the
    browser session numbers (element ids and the attributes that point at
    them) left out."""
    wait_settled(page, 500)
    html = page.locator('[data-testid="stMain"]').inner_html().replace(qid, "ID")
    pointers = "id|for|aria-labelledby|aria-describedby|aria-controls|aria-owns|aria-activedescendant"
    return re.sub(rf'\s(?:{pointers})="[^"]*"', "", html)


def test_a_known_answer_item_reads_like_any_other(wb, page):
    base, db = wb
    browser_sign_in(page, f"{base}/item?benchmark={B}&question=g01", REVIEWER, create=False)
    page.get_by_text("What is item 01?").wait_for()
    gold = _main_text(page)
    page.goto(f"{base}/item?benchmark={B}&question=p01")
    page.get_by_text("p01").first.wait_for()
    page.get_by_text("What is item 01?").wait_for()
    plain = _main_text(page)
    assert gold.replace("g01", "ID") == plain.replace("p01", "ID")
    assert "Not reviewed yet" in gold and "hidden" not in gold.lower()
    # the page's HTML too, not only its text
    page.goto(f"{base}/item?benchmark={B}&question=g01")
    page.get_by_text("What is item 01?").wait_for()
    gold_html = _main_html(page, "g01")
    page.goto(f"{base}/item?benchmark={B}&question=p01")
    page.get_by_text("p01").first.wait_for()
    page.get_by_text("What is item 01?").wait_for()
    assert gold_html == _main_html(page, "p01")


def test_an_outside_report_in_the_browser(wb, page, browser, tmp_path):
    base, db = wb
    with connect(db, read_only=True) as con:
        before = {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in ("reviews", "questions")}
    queue0 = list(review_queue(B, db=db)["question_id"])
    target = "x05"                                                     # the models agree with its key: low in the queue
    assert queue0.index(target) > 0 if target in queue0 else True
    page.goto(f"{base}/report?benchmark={B}&question={target}")       # no sign-in
    page.get_by_role("heading", name="Report an error in a question").wait_for()
    page.get_by_text(f"What is item {target}?").wait_for()
    page.get_by_role("textbox", name="What is wrong?").fill(SCRIPT)
    page.get_by_role("textbox", name="Your name, to thank you in the next version (optional)").fill(FORMULA)
    page.get_by_role("textbox", name="How to reach you (optional)").fill("reader@example.org")
    page.get_by_role("button", name="Send the report").click()
    page.get_by_text("Thank you. Your report").wait_for()
    assert page.evaluate("window.__pwned") is None
    # never a verdict: no review, no key changed; the item goes first in the queue
    with connect(db, read_only=True) as con:
        assert {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in ("reviews", "questions")} \
            == before
        stored = con.execute("SELECT sender_key FROM error_reports").fetchall()[0][0]
    assert review_queue(B, db=db)["question_id"].iloc[0] == target
    # the 21st report from this sender in the hour is refused on the page
    with connect(db) as con:
        sender = next(s for s in ("form:local", "form:127.0.0.1", "form:::1") if sender_key(con, s) == stored)
    for i in range(RATE_LIMIT - 1):
        report_error(B, "x01", f"more {i}", sender=sender, db=db)
    page.get_by_role("textbox", name="What is wrong?").fill("one more")
    page.get_by_role("button", name="Send the report").click()
    page.get_by_text(f"You have sent {RATE_LIMIT} reports in the last hour").wait_for()
    assert len(list_reports(B, actor=LEAD, db=db)) == RATE_LIMIT

    # a lead reads it on the item page, escaped, and accepts it there
    ctx = browser.new_context(viewport={"width": 1440, "height": 1000}, locale="en-US")
    lead = ctx.new_page()
    lead.set_default_timeout(30_000)
    browser_sign_in(lead, f"{base}/item?benchmark={B}&question={target}", LEAD, password=PASSWORD, create=False)
    lead.get_by_text("Reports from readers").wait_for()
    lead.get_by_text("<script>window.__pwned = 1</script>", exact=False).wait_for()
    assert lead.evaluate("window.__pwned") is None
    assert "reader@example.org" not in _main_text(lead) and "HYPERLINK" not in _main_text(lead)
    lead.get_by_role("button", name="Accept the report").click()
    lead.get_by_text("Report accepted").wait_for()
    ctx.close()
    got = list_reports(B, actor=LEAD, db=db).set_index("question_id")
    assert got.loc[target, "status"] == "accepted"
    # credited under the name given, neutralised, in the next version
    audit.export.create_version(B, "1.1", actor=LEAD, db=db, exports_dir=tmp_path / "exports")
    folder = tmp_path / "exports" / B / "1.1"
    rows = {r["question_id"]: r for r in csv.DictReader(io.StringIO(
        (folder / "CHANGELOG.csv").read_text(encoding="utf-8-sig")))}
    assert rows[target]["reported_by"] == "'" + FORMULA
    for f in (p for p in folder.rglob("*") if p.is_file()):
        assert "<script>" not in f.read_bytes().decode("utf-8", errors="replace"), f.name
