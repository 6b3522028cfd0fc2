"""Pieces shared by the pages: calling ``audit`` with clear messages, the
benchmark picker, the page CSS."""
from __future__ import annotations

import streamlit as st

import audit
from workbench import render, session

LOCKED_MESSAGE = (
    "The database is busy: another program (for example an `audit` command) has it open for "
    "writing. Nothing was lost — your form is kept below. Wait a moment and try again."
)


def call(fn, *args, quiet: bool = False, any_error: bool = False, **kwargs):
    """Run one ``audit`` operation; show an ``AuditError`` as a message and
    return None instead of crashing the page.  ``any_error``: also turn an
    unexpected exception into a message (dashboard panels, so one failing
    panel does not take the others down)."""
    try:
        return session.run_db(fn, *args, **kwargs)
    except audit.DatabaseLockedError:
        if not quiet:
            st.error(LOCKED_MESSAGE, icon=":material/lock:")
        return None
    except audit.AuditError as exc:
        if not quiet:
            st.error(str(exc))
        return None
    except Exception as exc:  # noqa: BLE001
        if not any_error:
            raise
        st.error(f"This panel could not be computed: {type(exc).__name__}: {exc}")
        return None


def css() -> None:
    st.html(render.CSS)


def benchmark_picker(key: str) -> str | None:
    """A benchmark selector shared by the pages (the choice is kept in
    ``f_benchmark`` so every page shows the same benchmark)."""
    names = call(audit.review.list_benchmarks, db=session.db_path())
    if not names:
        if names is not None:
            st.info("The database holds no benchmark yet. Import one with `audit import …`, "
                    "or start with the demo: `audit demo`.")
        return None
    cur = st.session_state.get("f_benchmark")
    if cur not in names:
        cur = names[0]
        st.session_state["f_benchmark"] = cur
    if len(names) == 1:
        return cur
    choice = st.selectbox("Benchmark", names, index=names.index(cur), key=key)
    st.session_state["f_benchmark"] = choice
    return choice
