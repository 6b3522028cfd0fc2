"""Item page panel "Reports from readers": what readers outside the team
said is wrong with the item, in plain words (the ``reports`` of :class:`audit.review.item.ItemView`;
never their names or contacts), and, for a lead, accept or dismiss.  The
text is untrusted: it is shown escaped, never as HTML or Markdown."""
from __future__ import annotations

from typing import Callable

import streamlit as st

import audit
from audit.review import reports as reports_lib
from workbench import render, session
from workbench.views import common
from workbench.views.common import t


def _triage(report_id: str, accept: bool) -> None:
    try:
        reports_lib.triage_report(report_id, accept=accept, actor=session.reviewer(), db=session.db_path())
    except audit.AuditError as exc:
        session.flash("error", common.error_text(exc))
        return
    common.note_write()
    session.flash("success", t("item.report_done_accepted" if accept else "item.report_done_dismissed"))


def show(view, option: Callable[[str], str | None]) -> None:
    """Render the item's reports (nothing when it has none)."""
    if not view.reports:
        return
    with st.container(key="item_reports"):
        st.markdown("#### " + t("item.reports_h"))
        for r in view.reports:
            when = r.created_at.strftime("%Y-%m-%d") if hasattr(r.created_at, "strftime") else str(r.created_at)
            st.markdown(t("item.report_line", date=when))
            st.html(f'<blockquote class="wb-report" style="white-space: pre-wrap">{render.esc(r.text)}</blockquote>')
            parts = [t("item.report_status_accepted" if r.status == "accepted" else "item.report_status_open")]
            if r.suggested_answer:
                parts.insert(0, t("item.report_answer", answer=option(r.suggested_answer) or r.suggested_answer))
            st.caption(" ".join(render.md(p) for p in parts))
            if view.is_lead and r.status == "open":
                c1, c2, _ = st.columns([1, 1, 3])
                c1.button(t("item.report_accept"), key=f"report_accept::{r.report_id}", on_click=_triage,
                          args=(r.report_id, True))
                c2.button(t("item.report_dismiss"), key=f"report_dismiss::{r.report_id}", on_click=_triage,
                          args=(r.report_id, False))
