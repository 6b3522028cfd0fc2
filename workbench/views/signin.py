"""Sign-in: the reviewer's name (every verdict is attributed to it) and, when
``WORKBENCH_PASSCODE`` is set, the shared passcode."""
from __future__ import annotations

import streamlit as st

from workbench import session


def page() -> None:
    st.title("Answer-key review workbench")
    st.write(
        "Review the answer keys that several independent models disagree with. "
        "Sign in with your name — every verdict you save is recorded under it."
    )
    with st.form("signin"):
        name = st.text_input("Your name", key="signin_name", placeholder="e.g. Tenzin")
        code = ""
        if session.passcode_required():
            code = st.text_input("Team passcode", type="password", key="signin_code")
        ok = st.form_submit_button("Sign in", type="primary")
    if ok:
        if not name.strip():
            st.error("Please type your name.")
        elif not session.check_passcode(code):
            st.error("The passcode is not right.")
        else:
            session.sign_in(name)
            st.rerun()  # the page that was asked for (e.g. a shared item link) now shows
