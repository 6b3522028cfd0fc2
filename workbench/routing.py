"""Switching pages from a button's callback, by the page's URL path.

A callback cannot switch page itself (Streamlit runs it before the page
script); it asks with :func:`go`, and the page that runs next calls
:func:`follow_goto` first, so the page asked for is shown without computing
the current one for nothing.  Pages are named by their URL path (``queue``,
``item``…); :mod:`workbench.nav` registers each page's factory here, so the
views never import the page registry (which imports every view).
"""
from __future__ import annotations

from typing import Callable

import streamlit as st

K_GOTO = "wb_goto"   # URL path of the page to switch to at the start of the next run

_factories: dict[str, Callable[[], st.Page]] = {}


def register(url_path: str, factory: Callable[[], st.Page]) -> None:
    """Make ``factory`` (which builds the ``st.Page`` served at ``url_path``)
    the target of :func:`go` ``(url_path)``."""
    _factories[url_path] = factory


def go(url_path: str) -> None:
    """Ask for the page at ``url_path`` at the very start of the next run."""
    st.session_state[K_GOTO] = url_path


def follow_goto(here: str) -> None:
    """At the top of the page at URL path ``here``: switch at once when a
    callback asked for another page.  A request for a page that is not
    registered (not offered to this account) is dropped."""
    target = st.session_state.pop(K_GOTO, None)
    if target and target != here and target in _factories:
        st.switch_page(_factories[target]())
