"""Sign-in: account name and password (accounts are made with
``audit users add``), or single sign-on through ``st.login`` when an OIDC
provider is configured in ``.streamlit/secrets.toml``."""
from __future__ import annotations

import streamlit as st

import audit
from workbench import render, session
from workbench.views.common import t


def page() -> None:
    st.title("Answer-key review workbench")
    st.write(
        "Review the answer keys that several independent models disagree with. "
        "Sign in with your account — every verdict you save is recorded under it."
    )
    exist = session.accounts_exist()
    if exist is None:   # busy: the sign-in form is still offered; signing in waits for the file
        st.info(t("common.locked"), icon=":material/lock:")
    elif not exist:
        st.warning("Nobody can sign in yet: this database has no accounts. On the server, create the "
                   "first one (it becomes the administrator) with `audit users add NAME`, then add "
                   "reviewers with `audit users add NAME --role reviewer --as ADMIN`.")
        return
    with st.form("signin"):
        name = st.text_input("Name", key="signin_name", placeholder="e.g. Tenzin")
        password = st.text_input("Password", type="password", key="signin_password")
        ok = st.form_submit_button("Sign in", type="primary")
    if ok:
        if not name.strip() or not password:
            st.error("Please type your name and your password.")
        else:
            try:
                session.sign_in(name, password)
            except audit.SignInError as exc:  # fixed wording from audit, no user text
                st.error(str(exc)[:1].upper() + str(exc)[1:] + ".")
            except audit.AuditError as exc:
                st.error(render.md(exc))
            else:
                st.rerun()  # the page that was asked for (e.g. a shared item link) now shows
    if session.sso_configured():
        st.divider()
        if st.button("Sign in with single sign-on", key="signin_sso"):
            st.login()
