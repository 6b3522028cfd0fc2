"""Label Studio page: connect a project, push flagged items and verdicts,
pull annotations, see the sync state.  UI only — every action is one call
to ``audit.sync.ls_*``.  The API token comes from ``$LABEL_STUDIO_API_KEY`` (or is
typed here for this browser session); it is never stored or shown."""
from __future__ import annotations

import os
from dataclasses import asdict

import streamlit as st

import audit
from workbench import session
from workbench.views import common
from workbench.views.common import t


def _table(obj) -> None:
    """The sync state in plain words (each field by its ``ls.status_*`` label;
    "—" for nothing, yes/no for true/false)."""
    rows = {k: v for k, v in asdict(obj).items() if k not in ("projects",) and not isinstance(v, dict)}

    def shown(v) -> str:
        if v is None:
            return "—"
        if isinstance(v, bool):
            return t("item.yes") if v else t("common.no")
        return str(v)

    st.dataframe([{t("ls.field"): t(f"ls.status_{k}"), t("ls.value"): shown(v)} for k, v in rows.items()],
                 hide_index=True)


def _ready(url: str, token: str | None, env_token: bool) -> bool:
    """Whether an action can reach Label Studio; else say what is missing
    (in the page's words, not the command line's)."""
    if not url:
        st.error(t("ls.need_url"))
        return False
    if not token and not env_token:
        st.error(t("ls.need_token"))
        return False
    return True


def page() -> None:
    common.css()
    st.title(t("nav.label_studio"))
    db = session.db_path()
    st.caption(t("ls.caption"))
    url = st.text_input(t("ls.url"), value=os.environ.get("LABEL_STUDIO_URL", ""),
                        placeholder="http://127.0.0.1:8080", key="ls_url")
    env_token = bool(os.environ.get("LABEL_STUDIO_API_KEY"))
    token = None
    if env_token:
        st.caption(t("ls.token_env"))
    else:
        token = st.text_input(t("ls.token"), type="password",
                              key="ls_token") or None

    status = common.call(audit.sync.ls_status, url or None, db=db)
    if status is not None and status.url:
        st.subheader(t("ls.project", id=status.project_id, title=status.title))
        _table(status)
    elif status is not None:
        st.info(t("ls.none"))

    rejected = common.call(audit.sync.ls_rejected, db=db)
    if rejected is not None and not rejected.empty:
        st.subheader(t("ls.rejected_h"))
        st.caption(t("ls.rejected_caption"))
        st.dataframe(rejected[["question_id", "reviewer", "updated_at", "reason"]].rename(columns={
            "question_id": common.label("column", "question_id"), "reviewer": common.label("column", "reviewer"),
            "updated_at": t("ls.col_saved_at"), "reason": t("ls.col_reason")}), hide_index=True, key="ls_rejected")

    bench = common.benchmark_picker("ls_benchmark")
    if bench is None:
        return
    tiers = st.multiselect(t("ls.tiers"), [0, 1, 2, 3, 4, 5], default=[1, 2], key="ls_tiers",
                           format_func=lambda n: t("queue.tier_n", n=n))
    c1, c2, c3, c4 = st.columns(4)
    kw = {"url": url or None, "api_key": token, "db": db}
    if c1.button(t("ls.connect"), key="ls_connect", help=t("ls.connect_help")) and _ready(url, token, env_token):
        s = common.call(audit.sync.ls_connect, url or None, token, benchmark=bench, db=db,
                        actor=session.actor())
        if s:
            st.success(t("ls.created" if s.created else "ls.connected", id=s.project_id, title=s.title))
    if c2.button(t("ls.push"), key="ls_push", help=t("ls.push_help")) and _ready(url, token, env_token):
        s = common.call(audit.sync.ls_push, bench, tiers=tuple(tiers) or None, progress=False, **kw)
        if s:
            st.success(t("ls.pushed", c=s.created, u=s.updated, n=s.unchanged, ac=s.annotations_created,
                         au=s.annotations_updated))
    if c3.button(t("ls.pull"), key="ls_pull", help=t("ls.pull_help")) and _ready(url, token, env_token):
        s = common.call(audit.sync.ls_pull, **kw)
        if s:
            st.success(t("ls.pulled", r=s.reviews_added, c=s.conflicts, x=s.rejected, d=s.deleted))
    if c4.button(t("ls.sync"), key="ls_sync", help=t("ls.sync_help")) and _ready(url, token, env_token):
        s = common.call(audit.ls_sync, bench, tiers=tuple(tiers) or None, progress=False, **kw)
        if s:
            st.success(t("ls.synced", r=s.pull.reviews_added, c=s.pull.conflicts, t=s.push.created + s.push.updated,
                         a=s.push.annotations_created + s.push.annotations_updated))
