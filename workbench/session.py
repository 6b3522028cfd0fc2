"""Per-browser-session state of the workbench: which database, who is signed
in, the current queue filter and item.  No SQL here: every read and write is
a call into ``audit`` that opens the DuckDB file for that one operation."""
from __future__ import annotations

import hmac
import os
from pathlib import Path

import streamlit as st

import audit
from audit.store import default_db_path

# session_state keys
K_REVIEWER = "wb_reviewer"
K_CURRENT = "wb_current"          # (benchmark, question_id) of the open item
K_FLASH = "wb_flash"              # one-shot message shown on the next run
K_PAGE_NO = "wb_page_no"


def db_path() -> Path:
    """``$AUDIT_DB`` or ``data/workbench.duckdb`` (resolved by audit)."""
    return Path(default_db_path())


@st.cache_resource(show_spinner="Preparing the demo database (first start)…")
def _ensure_db(path: str) -> bool:
    """Build the demo database when the file does not exist yet; True when
    this process built it.  Cached once per process and path so two browser
    tabs do not both build it; the result is a flag, never a connection."""
    if Path(path).exists():
        return False
    from audit.demo import build_demo

    build_demo(path)
    return True


def ensure_db() -> bool:
    """Make sure the database exists; True when it holds only the demo
    benchmark (just built, or built on an earlier start)."""
    from audit.demo import DEMO_BENCHMARK

    path = db_path()
    if _ensure_db(str(path)):
        return True
    try:
        st.session_state["wb_demo"] = audit.review.list_benchmarks(db=path) == [DEMO_BENCHMARK]
    except audit.DatabaseLockedError:
        pass  # another program holds the file: keep what we knew; the page says it is busy
    return bool(st.session_state.get("wb_demo"))


def reviewer() -> str | None:
    return st.session_state.get(K_REVIEWER)


def passcode_required() -> bool:
    return bool(os.environ.get("WORKBENCH_PASSCODE"))


def check_passcode(given: str) -> bool:
    expected = os.environ.get("WORKBENCH_PASSCODE", "")
    if not expected:
        return True
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


def is_lead(name: str | None = None) -> bool:
    """Whether the signed-in reviewer is a lead (audit's lead list: the
    stored setting plus ``$WORKBENCH_LEADS``).  Read once per sign-in."""
    name = name if name is not None else reviewer()
    if not name:
        return False
    if "wb_leads" not in st.session_state:
        try:
            st.session_state["wb_leads"] = audit.review.get_leads(db=db_path())
        except audit.AuditError:
            return False
    return name.casefold() in {n.casefold() for n in st.session_state["wb_leads"]}


def sign_in(name: str) -> None:
    st.session_state[K_REVIEWER] = " ".join(name.split())
    st.session_state.pop("wb_leads", None)


def sign_out() -> None:
    for k in list(st.session_state.keys()):
        if k != "wb_demo":
            del st.session_state[k]


def flash(kind: str, message: str) -> None:
    """Queue a message for the next run (survives st.rerun / switch_page)."""
    st.session_state[K_FLASH] = (kind, message)


def show_flash() -> None:
    item = st.session_state.pop(K_FLASH, None)
    if item:
        kind, message = item
        getattr(st, kind)(message)


def current_item() -> tuple[str, str] | None:
    """The open item: from the session, else from the page address
    (``?benchmark=…&question=…``, so an item can be shared as a link)."""
    cur = st.session_state.get(K_CURRENT)
    if cur:
        return cur
    qp = st.query_params
    if "benchmark" in qp and "question" in qp:
        cur = (qp["benchmark"], qp["question"])
        st.session_state[K_CURRENT] = cur
        return cur
    return None


def open_item(benchmark: str, question_id: str) -> None:
    st.session_state[K_CURRENT] = (benchmark, question_id)
