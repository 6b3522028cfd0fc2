"""Per-browser-session state of the workbench: which database, who is signed
in (account, role, signed session token), the current queue filter and item.  No SQL here: every read and write is
a call into ``audit`` that opens the DuckDB file for that one operation."""
from __future__ import annotations

import time
from pathlib import Path

import streamlit as st

import audit
from audit.review import ROLES
from audit.store import default_db_path

# session_state keys
K_REVIEWER = "wb_reviewer"
K_CURRENT = "wb_current"          # (benchmark, question_id) of the open item
K_FLASH = "wb_flash"              # one-shot message shown on the next run
K_PAGE_NO = "wb_page_no"
K_ROLE = "wb_role"
K_TOKEN = "wb_token"
K_CHECKED = "wb_checked_at"
TOKEN_PARAM = "s"                 # the signed session token in the address
RECHECK_SECONDS = 120.0


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
    from audit.demo import add_demo_accounts, build_demo

    build_demo(path)
    add_demo_accounts(path)
    return True


@st.cache_data(ttl=60, show_spinner=False)
def _demo_accounts(path: str) -> list[tuple[str, str, str]]:
    from audit.demo import demo_accounts_in_use

    return demo_accounts_in_use(path)


def demo_accounts() -> list[tuple[str, str, str]]:
    """The published demo accounts (name, role, password) that still work
    in this database (shown in the demo banner)."""
    try:
        return _demo_accounts(str(db_path()))
    except audit.AuditError:
        return []


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
    """The signed-in account's name (every verdict is recorded under it)."""
    return st.session_state.get(K_REVIEWER)


def role() -> str | None:
    """The signed-in account's role: ``reviewer``, ``lead`` or ``admin``
    (the lead list raises a reviewer to lead; see audit.review._accounts)."""
    return st.session_state.get(K_ROLE) if reviewer() else None


def may(needed: str) -> bool:
    """Whether the signed-in account has role ``needed`` or above."""
    r = role()
    return r is not None and ROLES.index(r) >= ROLES.index(needed)


def is_lead(name: str | None = None) -> bool:
    """Whether the signed-in account (or ``name``) is a lead or admin."""
    if name is None or (reviewer() and name.casefold() == reviewer().casefold()):
        return may("lead")
    try:
        return audit.review.account_role(name, db=db_path()) in ("lead", "admin")
    except audit.AuditError:
        return False


def is_admin() -> bool:
    return may("admin")


def accounts_exist() -> bool | None:
    """Whether the database has accounts (else nobody can sign in yet);
    None when the file is busy and the answer is not known."""
    try:
        return audit.review.accounts_exist(db=db_path())
    except audit.DatabaseLockedError:
        return None
    except audit.AuditError:
        return False


def _signed_in(account, token: str) -> None:
    st.session_state[K_REVIEWER] = account.name
    st.session_state[K_ROLE] = audit.review.account_role(account.name, db=db_path()) or account.role
    st.session_state[K_TOKEN] = token
    st.session_state[K_CHECKED] = time.monotonic()
    st.query_params[TOKEN_PARAM] = token


def sign_in(name: str, password: str) -> None:
    """Check the name and password (rate-limited in audit) and start a
    signed session; raises ``audit.SignInError`` when they do not match."""
    acc = audit.review.authenticate(name, password, db=db_path())
    _signed_in(acc, audit.review.issue_session(acc.name, db=db_path()))


def sso_configured() -> bool:
    """Whether single sign-on is set up (an ``[auth]`` section in
    ``.streamlit/secrets.toml``, for ``st.login``)."""
    try:
        return "auth" in st.secrets
    except Exception:  # noqa: BLE001 - no secrets file at all
        return False


def restore() -> str | None:
    """Resume the session from the signed token in the address (``?s=…``,
    so a reload keeps the reviewer signed in) or from single sign-on, and
    keep the token in the address on every page.  The token is checked
    again every few minutes, so a disabled account or a reset password
    ends the session.  Returns a message when a session was refused."""
    token = st.query_params.get(TOKEN_PARAM)
    if reviewer():
        if time.monotonic() - st.session_state.get(K_CHECKED, 0.0) > RECHECK_SECONDS:
            try:
                _signed_in(audit.review.verify_session(st.session_state[K_TOKEN], db=db_path()),
                           st.session_state[K_TOKEN])
            except audit.SignInError as exc:
                _forget()
                return str(exc)
            except audit.AuditError:
                pass  # the file is busy: keep the session, check again next time
        if token != st.session_state[K_TOKEN]:
            st.query_params[TOKEN_PARAM] = st.session_state[K_TOKEN]
        return None
    if token:
        try:
            _signed_in(audit.review.verify_session(token, db=db_path()), token)
            return None
        except audit.SignInError as exc:
            del st.query_params[TOKEN_PARAM]
            return str(exc)
        except audit.AuditError as exc:
            return str(exc)
    if sso_configured() and getattr(st.user, "is_logged_in", False):
        email = str(st.user.get("email") or "")
        try:
            role_ = audit.review.account_role(email, db=db_path())
            if role_ is None or not audit.review.accounts_exist(db=db_path()):
                return f"There is no enabled account named {email}; ask an administrator to add it."
            acc = audit.review.Account(email, role_)
            _signed_in(acc, audit.review.issue_session(email, db=db_path()))
        except audit.AuditError as exc:
            return str(exc)
    return None


def with_token(params: dict[str, str]) -> dict[str, str]:
    """``params`` plus the session token, for pages that replace the address
    (``st.query_params.from_dict``, ``st.switch_page(query_params=…)``): a
    reload of the new address keeps the reviewer signed in.  Pages that only
    set single keys (``st.query_params[k] = v``) need nothing."""
    token = st.session_state.get(K_TOKEN)
    return {**params, TOKEN_PARAM: token} if token and reviewer() else dict(params)


def _forget() -> None:
    for k in list(st.session_state.keys()):
        if k != "wb_demo":
            del st.session_state[k]
    if TOKEN_PARAM in st.query_params:
        del st.query_params[TOKEN_PARAM]


def sign_out() -> bool:
    """End every session of the account (the token stops working) and
    forget this browser session's state.  True when the browser is being
    sent to the single sign-on logout: the caller must then end the run
    without ``st.rerun()``, which would drop that redirect."""
    name = reviewer()
    if name:
        try:
            audit.review.end_sessions(name, db=db_path())
        except audit.AuditError:
            pass  # busy file: the token still expires on its own
    _forget()
    if sso_configured() and getattr(st.user, "is_logged_in", False):
        st.logout()
        return True
    return False


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
