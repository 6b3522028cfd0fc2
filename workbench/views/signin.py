"""Sign-in: the interface language first (before signing in; it follows the
browser's ``Accept-Language`` until one is picked), then account name and
password (accounts are made on the admin page or with ``audit users add``),
or single sign-on through ``st.login`` when an OIDC provider is configured
in ``.streamlit/secrets.toml``."""
from __future__ import annotations

import streamlit as st

import audit
from workbench import render, session
from workbench.views import common
from workbench.views.common import t


def page() -> None:
    top = st.columns([3, 1])
    common.language_switch(top[1])
    top[0].title(t("signin.title"))
    st.write(t("signin.intro"))
    exist = session.accounts_exist()
    if exist is None:   # busy: the sign-in form is still offered; signing in waits for the file
        st.info(t("common.locked"), icon=":material/lock:")
    elif not exist:
        st.warning(t("signin.no_accounts"))
        return
    with st.form("signin"):
        name = st.text_input(t("signin.name"), key="signin_name", placeholder=t("signin.name_placeholder"))
        password = st.text_input(t("signin.password"), type="password", key="signin_password")
        ok = st.form_submit_button(t("signin.submit"), type="primary")
    if ok:
        if not name.strip() or not password:
            st.error(t("signin.empty"))
        else:
            try:
                session.sign_in(name, password)
            except audit.SignInError as exc:  # fixed wording from audit, no user text
                msg = str(exc)
                if msg == "the name or the password is not right":
                    st.error(t("signin.wrong"))
                elif msg.startswith("too many failed sign-ins"):
                    st.error(t("signin.too_many", s="".join(c for c in msg if c.isdigit()) or "?"))
                else:
                    st.error(msg[:1].upper() + msg[1:] + ".")
            except audit.AuditError as exc:
                st.error(render.md(exc))
            else:
                st.rerun()  # the page that was asked for (e.g. a shared item link) now shows
    if session.sso_configured():
        st.divider()
        if st.button(t("signin.sso"), key="signin_sso"):
            st.login()
    st.divider()   # readers outside the team report an error without an account
    st.markdown(f":material/flag: [{render.md(t('signin.report_link'))}](./report)")
