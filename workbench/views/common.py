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
        return fn(*args, **kwargs)
    except audit.DatabaseLockedError:
        if not quiet:
            st.error(LOCKED_MESSAGE, icon=":material/lock:")
        return None
    except audit.AuditError as exc:
        if not quiet:
            st.error(render.md(exc))
        return None
    except Exception as exc:  # noqa: BLE001
        if not any_error:
            raise
        st.error(f"This panel could not be computed: {type(exc).__name__}: {render.md(exc)}")
        return None


def css() -> None:
    st.html(render.CSS)


@st.cache_data(ttl=30, show_spinner=False)
def _benchmarks(db: str) -> list[str]:
    return audit.review.list_benchmarks(db=db)


@st.cache_data(ttl=60, show_spinner=False)
def subjects(benchmark: str, db: str) -> list[str]:
    """Subjects of a benchmark's current audit (for the filter; data only,
    cached for a minute — never a connection)."""
    df = audit.review.tier_by_subject(benchmark, db=db)
    return sorted(s for s in df["subject"].unique() if s is not None)


def benchmark_picker(key: str) -> str | None:
    """A benchmark selector shared by the pages (the choice is kept in
    ``f_benchmark`` so every page shows the same benchmark)."""
    names = call(_benchmarks, str(session.db_path()))
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
