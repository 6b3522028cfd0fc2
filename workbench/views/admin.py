"""Admin page: everything an administrator needs to run a review
campaign from the browser — accounts (add, disable or enable, reset a
password, change a role: the lead reviewers are the accounts with the lead
role, so there is no second list of them), reviews required per item,
evidence-blind review, the guidelines, which items enter the queue,
assignment of subjects or items to reviewers, progress per reviewer and
per subject, the random audit sample, and the reviewers' reliability with
the known-answer items and readers' error reports
(:mod:`workbench.views.admin_trust`).

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
from workbench.views import admin_trust, common
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
    roles = dict(zip(df["name"], df["role"]))
    with c2:
        st.markdown(f"**{t('admin.change')}**")
        # outside the form: choosing an account shows its role at once (a form would send both together)
        who = st.selectbox(t("admin.col_name"), names, key="admin_who")
    with c2, st.form("admin_change"):
        # one role widget per account, so it starts at that account's real role
        current = roles.get(who, "reviewer")
        new_role = st.selectbox(t("admin.col_role"), ROLES, index=ROLES.index(current) if current in ROLES else 0,
                                format_func=lambda r: common.label("role", r), key=f"admin_new_role::{who}")
        new_pw = st.text_input(t("admin.new_password"), type="password", key="admin_new_pw")
        with st.container(horizontal=True):   # the buttons wrap rather than cut their words
            set_role = st.form_submit_button(t("admin.set_role"))
            reset = st.form_submit_button(t("admin.reset"))
            disable = st.form_submit_button(t("admin.disable"))
            enable = st.form_submit_button(t("admin.enable"))
        if set_role:
            _run(audit.accounts.set_role, who, new_role, db=db, ok=t("admin.role_set", name=render.md(who)))
        elif reset:
            _run(audit.accounts.reset_password, who, new_pw, db=db, ok=t("admin.reset_done", name=render.md(who)))
        elif disable or enable:
            _run(audit.accounts.set_disabled, who, bool(disable), db=db,
                 ok=t("admin.disabled_done" if disable else "admin.enabled_done", name=render.md(who)))
    leads = sorted((n for n, r, off in zip(df["name"], df["role"], df["disabled"]) if r == "lead" and not off),
                   key=str.casefold)
    st.markdown(f"**{t('admin.leads')}**")
    st.caption(t("admin.leads_are_roles", names=", ".join(render.md(n) for n in leads) or t("admin.no_leads")))


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
    _blind_setting(db)
    _guidelines_editor(db)
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
        subs = st.multiselect(
            t("queue.subject"), subjects, format_func=common.subject_name, key="admin_assign_subjects"
        )
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


def _blind_setting(db) -> None:
    """Evidence-blind review on or off (:mod:`audit.review.blind`)."""
    on = common.call(audit.review.blind.blind_review_enabled, db=db)
    if on is None:
        return
    with st.form("admin_blind"):
        st.markdown(f"**{t('admin.blind')}**")
        st.caption(t("admin.blind_help"))
        want = st.toggle(t("admin.blind_on"), value=bool(on), key="admin_blind_on")
        if st.form_submit_button(t("admin.save")):
            _run(audit.review.blind.set_blind_review, bool(want), db=db, ok=t("admin.saved"))


def _guidelines_editor(db) -> None:
    """The campaign's guidelines, per language, each save a new version
    (:mod:`audit.review.guidelines`)."""
    from audit import i18n

    st.markdown(f"**{t('admin.guidelines')}**")
    st.caption(t("admin.guidelines_help"))
    lang = st.selectbox(t("admin.guidelines_language"), list(i18n.LANGUAGES), format_func=i18n.LANGUAGES.get,
                        index=list(i18n.LANGUAGES).index(common.lang()), key="admin_guidelines_lang")
    g = common.call(audit.review.guidelines.get_guidelines, lang, db=db, quiet=True)
    own = g.text if g is not None and g.language == lang else ""
    with st.form(f"admin_guidelines::{lang}"):
        text = st.text_area(t("admin.guidelines_text"), value=own, height=220, key=f"admin_guidelines_text::{lang}",
                            placeholder=t("admin.guidelines_placeholder"))
        if g is not None:
            st.caption(t("admin.guidelines_version", v=g.version))
        if st.form_submit_button(t("admin.save")):
            _run(audit.review.guidelines.set_guidelines, text, language=lang, db=db, ok=t("admin.saved"))
    if own:
        with st.expander(t("admin.guidelines_preview")):
            st.markdown(audit.review.guidelines.safe_markdown(own))


def _sample(db, benchmark: str | None) -> None:
    """Draw the random audit sample (``audit.review.draw_sample``, an admin's act)."""
    if benchmark is None:
        return
    designs = ["band", "subject", "none"]
    with st.form("admin_sample"):
        st.markdown(f"**{t('admin.sample')}**")
        st.caption(t("admin.sample_help"))
        c1, c2, c3 = st.columns(3)
        size = c1.number_input(t("admin.sample_size"), min_value=1, max_value=100_000, value=300, key="admin_sample_n")
        by = c2.selectbox(t("admin.sample_by"), designs, format_func=lambda d: t(f"admin.sample_by_{d}"),
                          key="admin_sample_by")
        seed = c3.number_input(t("admin.sample_seed"), min_value=0, value=0, key="admin_sample_seed")
        if st.form_submit_button(t("admin.sample_submit")):
            try:
                rows = audit.review.draw_sample(benchmark, int(size), seed=int(seed) or None, by=by,
                                                actor=session.reviewer(), db=db)
            except audit.AuditError as exc:
                st.error(common.error_text(exc))
                return
            _done(t("admin.sample_drawn", n=len(rows)))


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
    tab_a, tab_c, tab_p, tab_t = st.tabs([t("admin.accounts"), t("admin.campaign"), t("admin.progress"),
                                          t("admin.trust")])
    with tab_a:
        _accounts(db)
    with tab_c:
        _campaign(db, benchmark)
        _sample(db, benchmark)
    with tab_p:
        _progress(db, benchmark)
    with tab_t:   # reviewers' reliability, known-answer items, readers' reports
        admin_trust.show(db, benchmark)
