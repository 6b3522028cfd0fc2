"""Entry point of the review workbench:  ``streamlit run workbench/app.py``.

The database is ``$AUDIT_DB`` or ``data/workbench.duckdb``; when the file does
not exist the demo database is built on first start (and a banner says so).
"""
from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

_ROOT = Path(__file__).resolve().parents[1]
if str(_ROOT) not in sys.path:  # `streamlit run` puts only workbench/ on the path
    sys.path.insert(0, str(_ROOT))

if __name__ != "__main__":
    # `streamlit run workbench/app.py` imports this file to find its ASGI app
    # (Streamlit's supported st.App entry point) and runs it with one extra
    # route: the server-side writer of the HttpOnly session cookie
    # (workbench._cookie).  Streamlit then runs this same file as the page
    # script, under the name "__main__", which takes the branch below.
    # (The imports of workbench wait for the path above.)
    from workbench import _cookie

    app = st.App(__file__, routes=_cookie.routes())
else:
    from workbench import _page

    _page.main()
