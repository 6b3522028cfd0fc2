"""Label Studio page: connect a project, push flagged items and verdicts,
pull annotations, see the sync state.  UI only — every action is one call
to ``audit.ls_*``.  The API token comes from ``$LABEL_STUDIO_API_KEY`` (or is
typed here for this browser session); it is never stored or shown."""
from __future__ import annotations

import os
from dataclasses import asdict

import streamlit as st

import audit
from workbench import session
from workbench.views import common


def _table(obj) -> None:
    rows = {k: v for k, v in asdict(obj).items() if k not in ("projects",) and not isinstance(v, dict)}
    st.dataframe([{"": k.replace("_", " "), "value": str(v)} for k, v in rows.items()], hide_index=True)


def page() -> None:
    st.title("Label Studio")
    db = session.db_path()
    st.caption("Two-way sync with a Label Studio project: flagged items become tasks, annotations "
               "become reviews, verdicts saved here become annotations. See the README section "
               "'Label Studio sync' for the server and webhook settings.")
    url = st.text_input("Label Studio URL", value=os.environ.get("LABEL_STUDIO_URL", ""),
                        placeholder="http://127.0.0.1:8080", key="ls_url")
    env_token = bool(os.environ.get("LABEL_STUDIO_API_KEY"))
    token = None
    if env_token:
        st.caption("API token: taken from `$LABEL_STUDIO_API_KEY`.")
    else:
        token = st.text_input("API token (used for this session only, never saved)", type="password",
                              key="ls_token") or None

    status = common.call(audit.sync.ls_status, url or None, db=db)
    if status is not None and status.url:
        st.subheader(f"Project {status.project_id}: {status.title}")
        _table(status)
    elif status is not None:
        st.info("No Label Studio project is connected yet.")

    rejected = common.call(audit.sync.ls_rejected, db=db)
    if rejected is not None and not rejected.empty:
        st.subheader("Annotations not taken")
        st.caption("These Label Studio annotations are not valid verdicts, so they were not recorded. "
                   "Correct them in Label Studio and pull again.")
        st.dataframe(rejected[["question_id", "reviewer", "updated_at", "reason"]].rename(columns={
            "question_id": "item", "updated_at": "saved in Label Studio (UTC)"}), hide_index=True,
            key="ls_rejected")

    bench = common.benchmark_picker("ls_benchmark")
    if bench is None:
        return
    tiers = st.multiselect("Tiers to push", [0, 1, 2, 3, 4, 5], default=[1, 2], key="ls_tiers")
    c1, c2, c3, c4 = st.columns(4)
    kw = {"url": url or None, "api_key": token, "db": db}
    if c1.button("Connect", key="ls_connect", help="Create or find the project for this benchmark"):
        s = common.call(audit.sync.ls_connect, url or None, token, benchmark=bench, db=db,
                        actor=session.reviewer())
        if s:
            st.success(f"{'Created' if s.created else 'Connected'} project {s.project_id} '{s.title}'.")
    if c2.button("Push", key="ls_push", help="Items of the chosen tiers as tasks, and verdicts as annotations"):
        s = common.call(audit.sync.ls_push, bench, tiers=tuple(tiers) or None, progress=False, **kw)
        if s:
            st.success(f"Tasks: {s.created} created, {s.updated} updated, {s.unchanged} unchanged. "
                       f"Annotations: {s.annotations_created} created, {s.annotations_updated} updated.")
    if c3.button("Pull", key="ls_pull", help="New annotations become reviews"):
        s = common.call(audit.sync.ls_pull, **kw)
        if s:
            st.success(f"{s.reviews_added} new reviews, {s.conflicts} conflicts, {s.rejected} rejected, "
                       f"{s.deleted} deletions recorded.")
    if c4.button("Sync", key="ls_sync", help="Pull, then push"):
        s = common.call(audit.ls_sync, bench, tiers=tuple(tiers) or None, progress=False, **kw)
        if s:
            st.success(f"Pulled {s.pull.reviews_added} reviews ({s.pull.conflicts} conflicts); pushed "
                       f"{s.push.created + s.push.updated} tasks and "
                       f"{s.push.annotations_created + s.push.annotations_updated} annotations.")
