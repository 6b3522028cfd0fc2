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

# Where `mkdocs serve` serves the documentation when someone runs it here.
LOCAL_DOCS = "http://127.0.0.1:8000/"


@st.cache_data(ttl=60, show_spinner=False)
def _docs_served(url: str) -> bool:
    """Whether the documentation site answers at ``url`` (its reviewer's
    guide, within a fraction of a second)."""
    import urllib.request

    try:
        with urllib.request.urlopen(url + "reviewers/", timeout=0.3) as r:
            return r.status == 200 and b"<html" in r.read(4096).lower()
    except Exception:  # noqa: BLE001 - nothing there (refused, timeout, not HTTP)
        return False


def docs_url() -> str | None:
    """The documentation site the ⋮ menu's *Get help* opens: ``$AUDIT_DOCS_URL``,
    else ``mkdocs serve``'s address when the site answers there; None when
    neither (*Get help* then opens the reviewer's guide inside the workbench,
    :mod:`workbench.views.help`)."""
    env = os.environ.get("AUDIT_DOCS_URL")
    if env:
        return env.rstrip("/") + "/"
    return LOCAL_DOCS if _docs_served(LOCAL_DOCS) else None


def _help_link() -> str:
    """*Get help*: the documentation's reviewer's guide when the site is
    served, else the workbench's own help page (the guide in the interface
    language)."""
    docs = docs_url()
    if docs:
        return docs + "reviewers/"
    from urllib.parse import urlsplit

    from streamlit import config

    try:
        u = urlsplit(str(st.context.url or ""))
        origin = f"{u.scheme}://{u.netloc}" if u.scheme and u.netloc else "http://localhost:8501"
    except Exception:  # noqa: BLE001 - no browser (AppTest)
        origin = "http://localhost:8501"
    base = str(config.get_option("server.baseUrlPath") or "").strip("/")
    return f"{origin}/{base + '/' if base else ''}help"


def main() -> None:
    """One run of the page script: settings, session, banner, menu, the page."""
    docs = docs_url()
    st.set_page_config(page_title="Answer-key review", page_icon=":material/fact_check:", layout="wide",
                       menu_items={"Get help": _help_link(), "About": "Answer-key audit workbench."
                                   + (f" Documentation: {docs}" if docs else "")})

    # Sessions share one read-only connection; keep it open between page runs
    # (reopening costs 30-80 ms and a cold cache) until a writer needs the file.
    keep_reads_open(READS_IDLE_SECONDS)

    try:
        if not session.db_path().exists():   # the first start builds the demo database (a few seconds)
            with st.spinner(t("app.preparing")):
                demo = session.ensure_db()
        else:
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
    common.remember_language()

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
            st.markdown(
                t("app.signed_in", name=render.md(name), role=common.label("role", session.role() or "reviewer"))
            )
            if st.button(t("app.sign_out"), key="signout"):
                if session.sign_out():
                    st.stop()    # the browser follows the single sign-on logout, then reloads
                st.rerun()
            if session.is_admin():  # reviewers and leads are not shown where the data lives
                st.caption(t("app.database", path=session.db_path(), version=audit.__version__))
            else:
                st.caption(t("app.version", version=audit.__version__))
    page.run()
