"""Admin page: everything an administrator needs to run a review
campaign from the browser — accounts (add, disable or enable, reset a
password, change a role), the lead list, reviews required per item, which
items enter the queue, assignment of subjects or items to reviewers, and
progress per reviewer and per subject.

Every action calls the same ``audit.review`` function as the CLI, with the
signed-in account as ``actor``: the role checks are the library's.  No SQL
and no statistics here."""
from __future__ import annotations

import streamlit as st

import audit
import audit.review.campaign
import audit.review.dashboard
from audit.accounts import ROLES
from workbench import render, session
from workbench.views import common
from workbench.views.common import t


def _done(message: str) -> None:
    common.note_write()
    session.flash("success", message)
    st.rerun()


def _run(fn, *args, ok: str, **kwargs) -> None:
    """Call the library function ``fn`` as the signed-in admin (the role checks are the library's)."""
    try:
        fn(*args, actor=session.actor(), **kwargs)
    except audit.AuditError as exc:
        st.error(common.error_text(exc))
        return
    _done(ok)


def _accounts(db) -> None:
    st.subheader(t("admin.accounts"))
    df = common.call(audit.accounts.list_accounts, db=db)
    if df is None:
        return
    leads = common.call(audit.accounts.get_leads, db=db, quiet=True) or []
    shown = df[["name", "role", "disabled"]].copy()
    shown["role"] = [common.label("role", r) for r in shown["role"]]
    shown["disabled"] = [t("admin.disabled") if d else t("admin.enabled") for d in shown["disabled"]]
    shown.columns = [t("admin.col_name"), t("admin.col_role"), t("admin.col_state")]
    st.dataframe(shown, hide_index=True, width="stretch", key="admin_accounts")
    names = list(df["name"])
    c1, c2 = st.columns(2)
    with c1, st.form("admin_add", clear_on_submit=True):
        st.markdown(f"**{t('admin.add')}**")
        name = st.text_input(t("signin.name"), key="admin_add_name")
        pw = st.text_input(t("signin.password"), type="password", key="admin_add_pw")
        role = st.selectbox(t("admin.col_role"), ROLES, format_func=lambda r: common.label("role", r),
                            key="admin_add_role")
        if st.form_submit_button(t("admin.add_submit"), type="primary"):
            _run(audit.accounts.add_account, name, pw, role=role, db=db, ok=t("admin.added", name=render.md(name)))
    with c2, st.form("admin_change"):
        st.markdown(f"**{t('admin.change')}**")
        who = st.selectbox(t("admin.col_name"), names, key="admin_who")
        new_role = st.selectbox(t("admin.col_role"), ROLES, format_func=lambda r: common.label("role", r),
                                key="admin_new_role")
        new_pw = st.text_input(t("admin.new_password"), type="password", key="admin_new_pw")
        b1, b2, b3, b4 = st.columns(4)
        set_role = b1.form_submit_button(t("admin.set_role"))
        reset = b2.form_submit_button(t("admin.reset"))
        disable = b3.form_submit_button(t("admin.disable"))
        enable = b4.form_submit_button(t("admin.enable"))
        if set_role:
            _run(audit.accounts.set_role, who, new_role, db=db, ok=t("admin.role_set", name=render.md(who)))
        elif reset:
            _run(audit.accounts.reset_password, who, new_pw, db=db, ok=t("admin.reset_done", name=render.md(who)))
        elif disable or enable:
            _run(audit.accounts.set_disabled, who, bool(disable), db=db,
                 ok=t("admin.disabled_done" if disable else "admin.enabled_done", name=render.md(who)))
    with st.form("admin_leads"):
        st.markdown(f"**{t('admin.leads')}**")
        st.caption(t("admin.leads_help"))
        chosen = st.multiselect(t("admin.leads"), sorted(set(names) | set(leads)), default=leads,
                                key="admin_leads_pick", label_visibility="collapsed")
        if st.form_submit_button(t("admin.save")):
            _run(audit.accounts.set_leads, chosen, db=db, ok=t("admin.saved"))


def _campaign(db, benchmark: str | None) -> None:
    st.subheader(t("admin.campaign"))
    req = common.call(audit.review.get_required_reviews, db=db)
    entry = common.call(audit.review.campaign.get_queue_entry, db=db)
    if req is None or entry is None:
        return
    with st.form("admin_required"):
        st.markdown(f"**{t('admin.required')}**")
        c1, c2 = st.columns(2)
        flagged = c1.number_input(t("admin.required_flagged"), min_value=1, max_value=9, value=int(req.flagged),
                                  key="admin_req_flagged")
        other = c2.number_input(t("admin.required_other"), min_value=1, max_value=9, value=int(req.other),
                                key="admin_req_other")
        if st.form_submit_button(t("admin.save")):
            _run(audit.review.set_required_reviews, flagged=int(flagged), other=int(other), db=db,
                 ok=t("admin.saved"))
    subjects = common.call(common.subjects, benchmark, str(db), quiet=True) or [] if benchmark else []
    with st.form("admin_entry"):
        st.markdown(f"**{t('admin.entry')}**")
        st.caption(t("admin.entry_help"))
        c1, c2 = st.columns(2)
        tiers = c1.multiselect(t("queue.tier"), [0, 1, 2, 3, 4, 5], default=list(entry.tiers or []),
                               format_func=lambda n: t("queue.tier_n", n=n), key="admin_entry_tiers",
                               placeholder=t("queue.all_tiers"))
        use_k = c2.checkbox(t("admin.entry_use_score"), value=entry.min_key_error is not None, key="admin_entry_use")
        k = c2.slider(t("admin.entry_score"), 0.0, 1.0, float(entry.min_key_error or 0.5), 0.05, key="admin_entry_k")
        subs = st.multiselect(t("queue.subject"), sorted(set(subjects) | set(entry.subjects or ())),
                              default=list(entry.subjects or []), format_func=common.subject_name,
                              key="admin_entry_subjects", placeholder=t("queue.all_subjects"))
        if st.form_submit_button(t("admin.save")):
            _run(audit.review.campaign.set_queue_entry, tiers=tiers or None, min_key_error=k if use_k else None,
                 subjects=subs or None, db=db, ok=t("admin.saved"))
    if benchmark is None:
        return
    accounts = common.call(audit.accounts.list_accounts, db=db, quiet=True)
    reviewers = [] if accounts is None else list(accounts.loc[~accounts["disabled"], "name"])
    with st.form("admin_assign"):
        st.markdown(f"**{t('admin.assign')}**")
        st.caption(t("admin.assign_help"))
        who = st.selectbox(t("role.reviewer"), reviewers, key="admin_assign_who")
        subs = st.multiselect(t("queue.subject"), subjects, format_func=common.subject_name, key="admin_assign_subjects")
        ids = st.text_input(t("admin.assign_items"), key="admin_assign_ids")
        b1, b2 = st.columns(2)
        if b1.form_submit_button(t("admin.assign_submit")) and who:
            _run(audit.review.campaign.assign, benchmark, who, subjects=subs,
                 question_ids=[x.strip() for x in ids.replace(",", " ").split() if x.strip()], db=db,
                 ok=t("admin.saved"))
        if b2.form_submit_button(t("admin.unassign")) and who:
            _run(audit.review.campaign.unassign, benchmark, who, db=db, ok=t("admin.saved"))
    df = common.call(audit.review.campaign.list_assignments, benchmark, db=db, quiet=True)
    if df is not None and not df.empty:
        shown = df[["reviewer", "subject", "question_id"]].copy()
        shown["subject"] = [common.subject_name(s) if s else "" for s in shown["subject"]]
        shown["question_id"] = shown["question_id"].fillna("")
        shown.columns = [t("role.reviewer"), t("queue.subject"), t("queue.col_item")]
        st.dataframe(shown, hide_index=True, width="stretch", key="admin_assignments")


def _progress(db, benchmark: str | None) -> None:
    if benchmark is None:
        return
    st.subheader(t("admin.progress"))
    by_rev = common.call(audit.review.dashboard.progress_by_reviewer, benchmark, db=db)
    if by_rev is not None:
        st.markdown(f"**{t('admin.by_reviewer')}**")
        if by_rev.empty:
            st.caption(t("admin.no_reviews"))
        else:
            df = by_rev[["reviewer", "n_items", "key_correct", "key_wrong", "ambiguous", "defective", "skip",
                         "adjudications"]]
            st.dataframe(common.columns(df), hide_index=True, width="stretch", key="admin_by_reviewer")
    by_sub = common.call(audit.review.dashboard.progress_by_subject, benchmark, db=db)
    if by_sub is not None:
        st.markdown(f"**{t('admin.by_subject')}**")
        df = by_sub.copy()
        df["subject"] = [common.subject_name(s) if s else "—" for s in df["subject"]]
        df.columns = [t("queue.subject"), t("admin.col_total"), t("admin.col_reviewed"),
                      common.label("status", "done"), common.label("status", "needs_second_review"),
                      common.label("status", "disputed"), common.label("status", "unreviewed")]
        st.dataframe(df, hide_index=True, width="stretch", key="admin_by_subject")


def page() -> None:
    common.css()
    session.show_flash()
    st.title(t("admin.title"))
    st.caption(t("admin.intro"))
    db = session.db_path()
    benchmark = common.benchmark_picker("admin_benchmark")
    tab_a, tab_c, tab_p = st.tabs([t("admin.accounts"), t("admin.campaign"), t("admin.progress")])
    with tab_a:
        _accounts(db)
    with tab_c:
        _campaign(db, benchmark)
    with tab_p:
        _progress(db, benchmark)
