"""The report form (workbench/views/report.py) in Streamlit's AppTest on a
real DuckDB file: what it shows a reader without an account is the same for
an item that is reported, in the queue and a known-answer item as for one
that is none of these — it never reveals another report's text, a reporter's
name or contact, nor whether the item is in the queue."""
from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from audit.accounts import add_account
from audit.review import add_gold, review_queue
from audit.review.reports import list_reports, report_error
from tests.support.campaign import analysed_benchmark

pytestmark = pytest.mark.slow   # real DuckDB files, analysed benchmarks, subprocesses: tens of seconds

B = "trust"
PW = "a long password 1"
TIMEOUT = 120
OTHER = {"text": "SECRET-TEXT of another reader", "name": "Other Reader", "contact": "other@example.org"}


@pytest.fixture
def db(db_path, monkeypatch):
    keys = analysed_benchmark(db_path)
    add_account("Admin Nyima", PW, db=db_path)
    add_account("Lead Dolkar", PW, role="lead", actor="Admin Nyima", db=db_path)
    # t003 (the models reject its key: Tier 1–2) is reported, known-answer and in the queue;
    # t007 (same key letter, subject and language; the models agree with its key) is none of these
    assert keys["t003"] == keys["t007"]
    report_error(B, "t003", OTHER["text"], answer="A", name=OTHER["name"], contact=OTHER["contact"],
                 sender="198.51.100.9", db=db_path)
    add_gold(B, "t003", keys["t003"], actor="Lead Dolkar", db=db_path)
    queue = set(review_queue(B, tiers=[1, 2], db=db_path)["question_id"])
    assert "t003" in queue
    monkeypatch.setenv("AUDIT_DB", str(db_path))
    return db_path


def _report_script():
    from workbench.views import report

    report.page()


def _texts(at) -> list[str]:
    """Every piece of text the page shows, in order (HTML blocks as their source)."""
    out = []
    for kind in ("title", "markdown", "caption", "success", "warning", "info", "error", "html"):
        for e in at.get(kind):
            v = getattr(e, "value", None)
            if v is None:
                v = getattr(getattr(e, "proto", None), "body", "")
            out.append(f"{kind}: {v}")
    for w in at.text_input:
        out.append(f"input {w.label}: {w.value}")
    for w in at.text_area:
        out.append(f"area {w.label}: {w.value}")
    for w in at.selectbox:
        out.append(f"select {w.label}: {w.options}")
    return out


def _normalised(texts: list[str], n: int) -> list[str]:
    """The item's own content (its id and number) replaced, and a report's receipt id."""
    s = "\n".join(texts).replace(f"t{n:03d}", "ITEM").replace(f"Question {n} ", "Question N ")
    s = re.sub(rf"\bof {n}\b", "of N", s)
    return re.sub(r"\([0-9a-f]{16}\)", "(RECEIPT)", s).splitlines()


def _page(question: str) -> AppTest:
    at = AppTest.from_function(_report_script, default_timeout=TIMEOUT)
    at.query_params["benchmark"] = B
    at.query_params["question"] = question
    at.run()
    assert not at.exception, at.exception
    return at


def test_the_form_tells_nothing_about_other_reports_or_the_queue(db):
    shown = {}
    for qid in ("t003", "t007"):
        at = _page(qid)
        before = _texts(at)
        at.text_area[0].input("the key looks wrong")
        at.button[0].click().run()
        assert not at.exception, at.exception
        after = _texts(at)
        joined = "\n".join(before + after)
        for secret in OTHER.values():
            assert secret not in joined, (qid, secret)
        assert any("Thank you. Your report" in t for t in after), after
        shown[qid] = (_normalised(before, int(qid[1:])), _normalised(after, int(qid[1:])))
    assert shown["t003"] == shown["t007"]
    # both reports were stored, as reports and nothing else
    got = list_reports(B, actor="Lead Dolkar", db=db)
    assert sorted(got["question_id"]) == ["t003", "t003", "t007"]
