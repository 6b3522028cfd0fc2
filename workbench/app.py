"""Entry point of the review workbench:  ``streamlit run workbench/app.py``.

The database is ``$AUDIT_DB`` or ``data/workbench.duckdb``; when the file does
not exist the demo database is built on first start (and a banner says so).
"""
from __future__ import annotations

import sys
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
if str(_ROOT) not in sys.path:  # `streamlit run` puts only workbench/ on the path
    sys.path.insert(0, str(_ROOT))

import streamlit as st  # noqa: E402

import audit  # noqa: E402
from workbench import nav, render, session  # noqa: E402

st.set_page_config(page_title="Answer-key review", page_icon=":material/fact_check:", layout="wide")

try:
    demo = session.ensure_db()
except audit.AuditError as exc:
    st.error(f"The database could not be opened: {exc}")
    st.stop()

if demo:
    st.info(
        "**Demo data.** This workbench is open on the synthetic demo database "
        f"({session.db_path()}), built because no database was found. Verdicts saved here are "
        "not about a real benchmark; import one with `audit import …` to start real work.",
        icon=":material/science:",
    )

name = session.reviewer()
page = st.navigation(nav.pages(), position="sidebar" if name else "hidden")
if name:
    with st.sidebar:
        role = "lead reviewer" if session.is_lead() else "reviewer"
        st.markdown(f"Signed in as **{render.md(name)}** ({role})")
        if st.button("Sign out", key="signout"):
            session.sign_out()
            st.rerun()
        st.caption(f"Database: `{session.db_path()}` · audit {audit.__version__}")
page.run()
