"""Report an error: the one page a reader outside the team opens without an
account (``/report``, or ``/report?benchmark=B&question=Q`` from a link).

It shows the item as the benchmark publishes it (question, options, key)
and sends a report through :func:`audit.review.report_error`, which limits
each sender (this connection's address) and the size of every field.  It
answers every report the same way: it never tells whether the item was
reported before, is settled or is in the review queue, and shows no other
report or reporter.  A report is never a verdict."""
from __future__ import annotations

import streamlit as st

import audit
from audit.errors import RateLimitedError
from audit.review import reports as reports_lib
from workbench import render, session
from workbench.views import common
from workbench.views.common import t

K_SENT = "wb_report_sent"


def _sender() -> str:
    """Who sends, for the per-sender limit: this connection's address (one
    shared sender for connections from the same machine)."""
    try:
        ip = st.context.ip_address
    except Exception:  # noqa: BLE001 - no client context
        ip = None
    return f"form:{ip}" if isinstance(ip, str) and ip else "form:local"


def _item(bench: str, qid: str):
    try:
        return reports_lib.reportable_item(bench, qid, db=session.db_path())
    except audit.NotFoundError:
        return None


def page() -> None:
    st.html(render.CSS)          # no sidebar for a reader: the language switch sits at the top
    top = st.columns([3, 1])
    common.language_switch(top[1])
    top[0].title(t("report.title"))
    st.write(t("report.intro"))
    names = common.call(audit.review.dashboard.list_benchmarks, db=session.db_path())
    if not names:
        if names is not None:
            st.info(t("common.no_benchmark"))
        return
    qp = st.query_params
    bench0 = qp.get("benchmark") if qp.get("benchmark") in names else names[0]
    bench = st.selectbox(t("report.benchmark"), names, index=names.index(bench0), key="report_benchmark") \
        if len(names) > 1 else bench0
    qid = st.text_input(t("report.question"), value=qp.get("question", ""), key="report_question",
                        help=t("report.question_help"), max_chars=200).strip()
    item = _item(bench, qid) if qid else None
    if qid and item is None:
        st.warning(t("report.no_item"))
    if item is not None:
        st.caption(t("report.item_shown"))
        st.html(render.question_html(item.stem, item.options, script=item.script, language=item.language,
                                     answer_key=item.answer_key, key_word=t("item.key")))
    sent = st.session_state.get(K_SENT)
    if sent:
        st.success(t("report.thanks", id=sent), icon=":material/mark_email_read:")
    with st.form("report_form", clear_on_submit=True):
        text = st.text_area(t("report.what"), key="report_text", help=t("report.what_help"),
                            max_chars=reports_lib.MAX_TEXT)
        labels = [label for label, _ in item.options] if item is not None else []
        answer = st.selectbox(t("report.answer"), ["", *labels], key="report_answer",
                              format_func=lambda x: x or t("report.answer_none"))
        name = st.text_input(t("report.name"), key="report_name", help=t("report.name_help"),
                             max_chars=reports_lib.MAX_NAME)
        contact = st.text_input(t("report.contact"), key="report_contact", help=t("report.contact_help"),
                                max_chars=reports_lib.MAX_CONTACT)
        ok = st.form_submit_button(t("report.submit"), type="primary")
    st.caption(t("report.how_used"))
    if not ok:
        return
    st.session_state.pop(K_SENT, None)
    if item is None:
        st.error(t("report.no_item"))
        return
    if not text.strip():
        st.error(t("report.empty"))
        return
    try:
        receipt = audit.review.report_error(bench, item.question_id, text, answer=answer or None, name=name or None,
                                            contact=contact or None, sender=_sender(), channel="form",
                                            db=session.db_path())
    except RateLimitedError:
        st.error(t("report.too_many", n=reports_lib.RATE_LIMIT))
        return
    except audit.AuditError as exc:
        st.error(common.error_text(exc))
        return
    common.note_write()
    st.session_state[K_SENT] = receipt.report_id
    st.rerun()
