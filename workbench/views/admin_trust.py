"""Admin page, tab "Reviewers' reliability": each reviewer's record
(:func:`audit.review.reviewer_reliability`), how the campaign weighs its
reviewers (:mod:`audit.review.trust`), the known-answer items
(:mod:`audit.review.gold`) and readers' error reports
(:mod:`audit.review.reports`).  Every action is the library's, with the
signed-in account as ``actor``; no statistics here."""
from __future__ import annotations

import pandas as pd
import streamlit as st

import audit
from audit.review import gold as gold_lib
from audit.review import reports as reports_lib
from audit.review import trust as trust_lib
from workbench import render, session
from workbench.views import common
from workbench.views.common import t

#: The reliability table's columns → catalogue keys of their headers.
RELIABILITY_HEADERS = {
    "reviewer": "trust.col_reviewer", "n_gold": "trust.col_n_gold", "gold_accuracy": "trust.col_gold_accuracy",
    "gold_accuracy_low": "trust.col_low", "gold_accuracy_high": "trust.col_high",
    "n_verdicts": "trust.col_n_verdicts", "agreement": "trust.col_agreement",
    "estimated_accuracy": "trust.col_estimated", "flagged": "trust.col_flagged", "reason": "trust.col_reason",
}


def reliability_frame(df: pd.DataFrame, group: str | None = None) -> tuple[pd.DataFrame, dict]:
    """The reliability table for display: translated headers and reasons,
    shares as percentages (the column config to pass to ``st.dataframe``)."""
    out = df.copy()
    out["flagged"] = [t("trust.flag_yes") if f else "" for f in out["flagged"]]
    out["reason"] = [common.label("reliability_reason", r) for r in out["reason"]]
    heads = dict(RELIABILITY_HEADERS)
    if group is not None:
        heads = {group: "queue.subject" if group == "subject" else "trust.col_language", **heads}
        if group == "subject":
            out[group] = [common.subject_name(s) for s in out[group]]
    out = out[list(heads)].rename(columns={c: t(k) for c, k in heads.items()})
    pct = {t(heads[c]): st.column_config.NumberColumn(format="percent")
           for c in ("gold_accuracy", "gold_accuracy_low", "gold_accuracy_high", "agreement", "estimated_accuracy")}
    return out, pct


def _run(fn, *args, ok: str, **kwargs) -> None:
    try:
        fn(*args, actor=session.reviewer(), **kwargs)
    except audit.AuditError as exc:
        st.error(common.error_text(exc))
        return
    common.note_write()
    session.flash("success", ok)
    st.rerun()


def _reliability(db, benchmark: str) -> None:
    st.markdown(f"**{t('trust.reliability_h')}**")
    st.caption(t("trust.reliability_caption"))
    df = common.call(audit.review.reviewer_reliability, benchmark, db=db)
    if df is None:
        return
    if df.empty:
        st.info(t("trust.none"))
        return
    shown, cfg = reliability_frame(df)
    st.dataframe(shown, hide_index=True, width="stretch", key="admin_reliability", column_config=cfg)
    flagged = list(df.loc[df["flagged"], "reviewer"])
    if flagged:
        st.warning(t("trust.flagged_note", names=", ".join(render.md(n) for n in flagged)))


def _settings(db) -> None:
    s = common.call(trust_lib.get_trust, db=db)
    if s is None:
        return
    with st.form("admin_trust"):
        st.markdown(f"**{t('trust.settings_h')}**")
        rule = st.radio(t("trust.rule"), trust_lib.RULES, index=trust_lib.RULES.index(s.rule), horizontal=True,
                        format_func=lambda r: t(f"trust.rule_{r}"), key="admin_trust_rule")
        c1, c2 = st.columns(2)
        threshold = c1.slider(t("trust.threshold"), 0.5, 1.0, float(s.threshold), 0.01, key="admin_trust_threshold")
        lone = c2.slider(t("trust.lone_threshold"), 0.5, 1.0, float(s.lone_threshold), 0.01, key="admin_trust_lone")
        allow = c1.checkbox(t("trust.allow_lone"), value=s.allow_lone, key="admin_trust_allow")
        careful = c2.slider(t("trust.careful"), 0.5, 1.0, float(s.careful), 0.01, key="admin_trust_careful")
        flag_below = c1.slider(t("trust.flag_below"), 0.5, 1.0, float(s.flag_below), 0.01, key="admin_trust_flag")
        second = c2.checkbox(t("trust.second_review"), value=s.second_review_flagged, key="admin_trust_second")
        if st.form_submit_button(t("admin.save")):
            _run(trust_lib.set_trust, rule=rule, threshold=threshold, lone_threshold=lone, allow_lone=allow,
                 careful=careful, flag_below=flag_below, second_review_flagged=second, db=db, ok=t("admin.saved"))


def _gold(db, benchmark: str) -> None:
    st.markdown(f"**{t('trust.gold_h')}**")
    st.caption(t("trust.gold_caption"))
    rate = common.call(gold_lib.get_gold_rate, db=db, quiet=True)
    with st.form("admin_gold_rate"):
        r = st.slider(t("trust.gold_rate"), 0.0, 0.5, float(rate or 0.0), 0.01, key="admin_gold_rate")
        if st.form_submit_button(t("admin.save")):
            _run(gold_lib.set_gold_rate, r, db=db, ok=t("admin.saved"))
    c1, c2 = st.columns(2)
    with c1, st.form("admin_gold_add", clear_on_submit=True):
        qid = st.text_input(t("trust.gold_add_id"), key="admin_gold_qid")
        ans = st.text_input(t("trust.gold_add_answer"), key="admin_gold_answer", max_chars=2)
        if st.form_submit_button(t("trust.gold_add")):
            _run(audit.review.add_gold, benchmark, qid.strip(), ans.strip(), db=db, ok=t("admin.saved"))
    with c2:
        if st.button(t("trust.gold_from_settled"), key="admin_gold_settled"):
            try:
                n = gold_lib.gold_from_settled(benchmark, actor=session.reviewer(), db=db)
            except audit.AuditError as exc:
                st.error(common.error_text(exc))
            else:
                common.note_write()
                session.flash("success", t("trust.gold_marked", n=n))
                st.rerun()
    df = common.call(gold_lib.list_gold, benchmark, db=db, quiet=True)
    if df is None or df.empty:
        st.caption(t("trust.gold_none"))
        return
    shown = df[["question_id", "answer", "n_answers", "n_right"]].rename(columns={
        "question_id": t("queue.col_item"), "answer": t("trust.col_answer"), "n_answers": t("trust.col_answers"),
        "n_right": t("trust.col_right")})
    st.dataframe(shown, hide_index=True, width="stretch", key="admin_gold_list")


def _reports(db, benchmark: str) -> None:
    st.markdown(f"**{t('trust.reports_h')}**")
    st.caption(t("trust.reports_caption"))
    df = common.call(reports_lib.list_reports, benchmark, actor=session.reviewer(), db=db, quiet=True)
    if df is None or df.empty:
        st.caption(t("trust.reports_none"))
        return
    shown = df[["report_id", "question_id", "created_at", "status", "text", "suggested_answer", "name", "contact"]]
    shown = shown.assign(status=[t(f"trust.report_{s}") for s in shown["status"]]).rename(columns={
        "report_id": t("trust.col_report"), "question_id": t("queue.col_item"), "created_at": t("trust.col_when"),
        "status": t("trust.col_status"), "text": t("trust.col_text"), "suggested_answer": t("trust.col_answer"),
        "name": t("trust.col_name"), "contact": t("trust.col_contact")})
    st.dataframe(shown, hide_index=True, width="stretch", key="admin_reports")   # text cells, never HTML
    open_ids = list(df.loc[df["status"] == "open", "report_id"])
    if not open_ids:
        return
    with st.form("admin_report_triage"):
        rid = st.selectbox(t("trust.col_report"), open_ids, key="admin_report_pick")
        b1, b2 = st.columns(2)
        acc = b1.form_submit_button(t("item.report_accept"))
        dis = b2.form_submit_button(t("item.report_dismiss"))
        if acc or dis:
            _run(reports_lib.triage_report, rid, accept=bool(acc), db=db,
                 ok=t("item.report_done_accepted" if acc else "item.report_done_dismissed"))


def show(db, benchmark: str | None) -> None:
    """The tab's content."""
    st.subheader(t("admin.trust"))
    if benchmark is not None:
        _reliability(db, benchmark)
    _settings(db)
    if benchmark is not None:
        _gold(db, benchmark)
        _reports(db, benchmark)
