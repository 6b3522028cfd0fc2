"""The workbench's page script, run by :mod:`workbench.app` on every script
run (see there)."""
from __future__ import annotations

import os

import streamlit as st

import audit
import audit.accounts.sessions
from audit.store.turns import keep_reads_open
from workbench import nav, render, session
from workbench.views import common
from workbench.views.common import t

READS_IDLE_SECONDS = 60.0

# The ⋮ menu's "Get help" opens the reviewer's guide of the documentation site
# (`mkdocs serve` serves it at 127.0.0.1:8000; $AUDIT_DOCS_URL points elsewhere).
DOCS_URL = os.environ.get("AUDIT_DOCS_URL", "http://127.0.0.1:8000/").rstrip("/") + "/"


def main() -> None:
    """One run of the page script: settings, session, banner, menu, the page."""
    st.set_page_config(page_title="Answer-key review", page_icon=":material/fact_check:", layout="wide",
                       menu_items={"Get help": DOCS_URL + "reviewers/", "About": f"Answer-key audit workbench. "
                                   f"Documentation: {DOCS_URL}"})

    # Sessions share one read-only connection; keep it open between page runs
    # (reopening costs 30-80 ms and a cold cache) until a writer needs the file.
    keep_reads_open(READS_IDLE_SECONDS)

    try:
        demo = session.ensure_db()
        audit.accounts.sessions.check_session_key(db=session.db_path())  # an empty, short or non-hex key stops here
    except audit.AuditError as exc:
        st.error(t("app.db_error", error=render.md(getattr(exc, "detail", None) or exc))
                 + render.code_line(getattr(exc, "path", None)))   # the file to fix, as it is named
        st.stop()

    refused = session.restore()
    cookie = session.cookie_script()
    if cookie:  # write or delete this browser's session cookie (never the address)
        with st.container(key="wb_cookie"):
            st.html(cookie, unsafe_allow_javascript=True)
    name = session.reviewer()
    common.typography()

    if demo:
        accounts = session.demo_accounts()
        who = ""
        if accounts and not name:
            who = " " + t("app.demo_accounts", accounts=", ".join(
                f"**{render.md(n)}** / `{p}` ({common.label('role', r)})" for n, r, p in accounts))
        st.info(t("app.demo") + who, icon=":material/science:")
    if refused:
        st.warning(common.session_message(refused, session.IDLE_MINUTES))

    page = st.navigation(nav.pages(), position="sidebar" if name else "hidden")
    if name:
        with st.sidebar:
            st.markdown(t("app.signed_in", name=render.md(name), role=common.label("role", session.role() or "reviewer")))
            if st.button(t("app.sign_out"), key="signout"):
                if session.sign_out():
                    st.stop()    # the browser follows the single sign-on logout, then reloads
                st.rerun()
            if session.is_admin():  # reviewers and leads are not shown where the data lives
                st.caption(t("app.database", path=session.db_path(), version=audit.__version__))
            else:
                st.caption(t("app.version", version=audit.__version__))
    page.run()
