"""Per-browser-session state of the workbench: which database, who is signed
in (account, role, signed session token), the current queue filter and item.  No SQL here: every read and write is
a call into ``audit`` that opens the DuckDB file for that one operation.

Sessions are never carried by the address: the signed token lives in this
browser's cookie ``wb_session`` (``HttpOnly; SameSite=Strict``, path ``/``,
``Secure`` over HTTPS), written by the server (:mod:`workbench._cookie`:
the page only hands over a single-use nonce) and read by the server only
from the WebSocket handshake (``st.context.cookies``): no page script can
read it, an address copied into another browser signs nobody in, and no
token appears in an address, a referrer or a server log.  A session ends on
sign-out (the account's session epoch is raised and the cookie deleted) and
after :data:`IDLE_MINUTES` without activity (``$WORKBENCH_IDLE_MINUTES``):
the cookie expires after that idle time and is renewed while the reviewer
works, and a browser tab left open that long is signed out at its next
click.

The token is verified again on every page run (:func:`restore`), and every
act passes the session's account as ``actor`` (:func:`actor`: it carries
the session's epoch, which the library checks in the act's own
transaction): a password reset, a disable, a role change or a sign-out in
another browser ends an open tab at its next action, a Save pressed in it
included (the button's callback runs before the page)."""
from __future__ import annotations

import os
import time
from pathlib import Path

import streamlit as st

import audit
import audit.accounts.roles
import audit.accounts.table
import audit.review.dashboard
from audit.accounts.roles import role_allows
from audit.demo import DEMO_BENCHMARK, add_demo_accounts, build_demo, demo_accounts_in_use
from audit.store import default_db_path
from workbench import _cookie

# session_state keys
K_REVIEWER = "wb_reviewer"
K_CURRENT = "wb_current"          # (benchmark, question_id) of the open item
K_FLASH = "wb_flash"              # one-shot message shown on the next run
K_PAGE_NO = "wb_page_no"
K_ROLE = "wb_role"
K_TOKEN = "wb_token"
K_ACCOUNT = "wb_account"          # the audit.accounts.Account the token proved (with its session epoch)
K_ACTIVE = "wb_active_at"         # monotonic time of this session's last run
K_COOKIE_AT = "wb_cookie_at"      # when the cookie was last (re)written
K_COOKIE_OP = "wb_cookie_op"      # cookie write waiting for the next run: ("set", token) / ("clear", None)
K_DEAD = "wb_dead_tokens"         # tokens ended in this browser session (the handshake still carries them)
K_RUN_CHECKED = "wb_run_checked"  # restore() checked the token in this run (a fragment's rerun has no restore())
COOKIE = _cookie.COOKIE
COOKIE_RENEW_SECONDS = 300.0


def idle_minutes() -> float:
    """Minutes without activity after which a session ends
    (``$WORKBENCH_IDLE_MINUTES``, default 30; at least 1)."""
    try:
        return max(1.0, float(os.environ.get("WORKBENCH_IDLE_MINUTES", "30")))
    except ValueError:
        return 30.0


IDLE_MINUTES = idle_minutes()


def db_path() -> Path:
    """``$AUDIT_DB`` or ``data/workbench.duckdb`` (resolved by audit)."""
    return Path(default_db_path())


@st.cache_resource(show_spinner=False)   # the page shows a translated spinner (workbench._page)
def _ensure_db(path: str) -> bool:
    """Build the demo database when the file does not exist yet; True when
    this process built it.  Cached once per process and path so two browser
    tabs do not both build it; the result is a flag, never a connection."""
    if Path(path).exists():
        return False
    build_demo(path)
    add_demo_accounts(path)
    return True


@st.cache_data(ttl=60, show_spinner=False)
def _demo_accounts(path: str) -> list[tuple[str, str, str]]:
    return demo_accounts_in_use(path)


def demo_accounts() -> list[tuple[str, str, str]]:
    """The published demo accounts (name, role, password) that still work
    in this database (shown in the demo banner)."""
    try:
        return _demo_accounts(str(db_path()))
    except audit.AuditError:
        return []


@st.cache_data(ttl=15, show_spinner=False)
def _only_demo(path: str, stat: tuple) -> bool:
    return audit.review.dashboard.list_benchmarks(db=path) == [DEMO_BENCHMARK]


def ensure_db() -> bool:
    """Make sure the database exists; True when it holds only the demo
    benchmark (just built, or built on an earlier start) — the demo banner
    goes as soon as a real benchmark is imported."""
    path = db_path()
    _ensure_db(str(path))
    try:
        st.session_state["wb_demo"] = _only_demo(str(path), file_stat(path))
    except audit.DatabaseLockedError:
        pass  # another program holds the file: keep what we knew; the page says it is busy
    return bool(st.session_state.get("wb_demo"))


def file_stat(path: Path | str) -> tuple:
    """(mtime_ns, size) of the database file and of its write-ahead log
    (zeros for a missing one): changes with any program's write."""
    out: list = []
    for p in (str(path), str(path) + ".wal"):
        try:
            s = os.stat(p)
            out += [s.st_mtime_ns, s.st_size]
        except OSError:
            out += [0, 0]
    return tuple(out)


def reviewer() -> str | None:
    """The signed-in account's name (every verdict is recorded under it)."""
    return st.session_state.get(K_REVIEWER)


def actor():
    """The signed-in account as the library's ``actor=`` of an act: the
    :class:`audit.accounts.Account` the session token proved, whose epoch
    the library checks (an ended session acts no more); None when nobody
    is signed in."""
    return st.session_state.get(K_ACCOUNT) if reviewer() else None


def role() -> str | None:
    """The signed-in account's role: ``reviewer``, ``lead`` or ``admin``
    (the lead list raises a reviewer to lead; see audit.accounts)."""
    return st.session_state.get(K_ROLE) if reviewer() else None


def may(needed: str) -> bool:
    """Whether the signed-in account has role ``needed`` or above
    (:func:`audit.accounts.roles.role_allows`)."""
    return role_allows(role(), needed)


def is_lead(name: str | None = None) -> bool:
    """Whether the signed-in account (or ``name``) is a lead or admin."""
    if name is None or (reviewer() and name.casefold() == reviewer().casefold()):
        return may("lead")
    try:
        return audit.accounts.roles.account_role(name, db=db_path()) in ("lead", "admin")
    except audit.AuditError:
        return False


def is_admin() -> bool:
    return may("admin")


def accounts_exist() -> bool | None:
    """Whether the database has accounts (else nobody can sign in yet);
    None when the file is busy and the answer is not known."""
    try:
        return audit.accounts.table.accounts_exist(db=db_path())
    except audit.DatabaseLockedError:
        return None
    except audit.AuditError:
        return False


def _signed_in(account, token: str) -> None:
    owner = st.session_state.pop(K_DRAFTS_OWNER, None)
    if owner is not None and owner.casefold() != account.name.casefold():   # not theirs: drop the drafts
        for k in [k for k in st.session_state.keys() if str(k).startswith("draft::") or k == K_CURRENT]:
            del st.session_state[k]
    st.session_state[K_REVIEWER] = account.name
    st.session_state[K_ROLE] = audit.accounts.roles.account_role(account.name, db=db_path()) or account.role
    st.session_state[K_TOKEN] = token
    st.session_state[K_ACCOUNT] = account
    st.session_state[K_ACTIVE] = time.monotonic()
    if st.session_state.get(K_COOKIE_AT) is None or st.session_state.get("wb_cookie_token") != token:
        st.session_state[K_COOKIE_OP] = ("set", token)


def cookie_script() -> str | None:
    """The ``<script>`` that has the server write or delete this browser's
    session cookie, when one is due (after sign-in, every few minutes while
    working, on sign-out); None otherwise.  The script only POSTs a
    single-use nonce (:mod:`workbench._cookie`); the server answers with an
    ``HttpOnly; SameSite=Strict`` cookie that no page script can read."""
    op = st.session_state.pop(K_COOKIE_OP, None)
    if op is None and reviewer() and st.session_state.get(K_TOKEN) and \
            time.monotonic() - st.session_state.get(K_COOKIE_AT, 0.0) > COOKIE_RENEW_SECONDS:
        op = ("set", st.session_state[K_TOKEN])
    if op is None:
        return None
    kind, token = op
    if kind == "set":
        st.session_state[K_COOKIE_AT] = time.monotonic()
        st.session_state["wb_cookie_token"] = token
        return _cookie.script(_cookie.new_nonce(token, int(IDLE_MINUTES * 60), client=_client_address()))
    return _cookie.script(_cookie.new_nonce(None, 0, client=_client_address()))


def _client_address() -> str | None:
    """The address of this browser's connection (None on localhost or when unknown)."""
    try:
        ip = st.context.ip_address
    except Exception:  # noqa: BLE001 - no client context
        return None
    return ip if isinstance(ip, str) and ip else None


def sign_in(name: str, password: str) -> None:
    """Check the name and password (rate-limited in audit) and start a
    signed session; raises ``audit.SignInError`` when they do not match."""
    acc = audit.accounts.authenticate(name, password, db=db_path())
    token = audit.accounts.issue_session(acc.name, db=db_path())
    _signed_in(audit.accounts.verify_session(token, db=db_path()), token)


def sso_configured() -> bool:
    """Whether single sign-on is set up (an ``[auth]`` section in
    ``.streamlit/secrets.toml``, for ``st.login``)."""
    try:
        return "auth" in st.secrets
    except Exception:  # noqa: BLE001 - no secrets file at all
        return False


def _cookie_token() -> str | None:
    try:
        token = st.context.cookies.get(COOKIE)
    except Exception:  # noqa: BLE001 - no client context (tests without a browser)
        return None
    if not isinstance(token, str) or not token or token in st.session_state.get(K_DEAD, ()):
        return None   # (Streamlit's AppTest hands out mock objects here)
    return token


def _idle() -> bool:
    return time.monotonic() - st.session_state.get(K_ACTIVE, time.monotonic()) > IDLE_MINUTES * 60


def restore() -> str | None:
    """Resume the session: the signed-in state of this browser session,
    else the signed token in this browser's cookie (so a reload keeps the
    reviewer signed in), else single sign-on.  A token in the address
    is never honoured.  The token is checked again on every page run, so a
    disabled account, a reset password, a role change or a sign-out
    elsewhere ends the session at once; so does :data:`IDLE_MINUTES` without
    activity.  Returns a message when a session was refused or ended."""
    if reviewer():
        if _idle():
            _end_here(keep_drafts=True)
            return "session.idle"
        st.session_state[K_ACTIVE] = time.monotonic()
        try:
            _signed_in(audit.accounts.verify_session(st.session_state[K_TOKEN], db=db_path()),
                       st.session_state[K_TOKEN])
        except audit.SignInError as exc:
            _end_here()
            return str(exc)
        except audit.AuditError:
            pass  # the file is busy: keep the session (every act re-checks it in the library)
        st.session_state[K_RUN_CHECKED] = True
        return None
    token = _cookie_token()
    if token:
        try:
            _signed_in(audit.accounts.verify_session(token, db=db_path()), token)
            st.session_state[K_COOKIE_AT] = time.monotonic()
            st.session_state["wb_cookie_token"] = token
            st.session_state.pop(K_COOKIE_OP, None)
            return None
        except audit.SignInError as exc:
            _forget(token)
            return str(exc)
        except audit.AuditError as exc:
            return str(exc)
    if sso_configured() and getattr(st.user, "is_logged_in", False):
        email = str(st.user.get("email") or "")
        try:
            role_ = audit.accounts.roles.account_role(email, db=db_path())
            if role_ is None or not audit.accounts.table.accounts_exist(db=db_path()):
                return f"There is no enabled account named {email}; ask an administrator to add it."
            token = audit.accounts.issue_session(email, db=db_path())
            _signed_in(audit.accounts.verify_session(token, db=db_path()), token)
        except audit.AuditError as exc:
            return str(exc)
    return None


_KEEP = ("wb_demo", "wb_lang", "wb_lang_cookie", K_DEAD)


K_DRAFTS_OWNER = "wb_drafts_owner"  # whose unsaved drafts survived an idle sign-out


def _forget(token: str | None = None, keep_drafts: bool = False) -> None:
    """Forget this browser session's state (the interface language stays),
    remember ``token`` as ended and delete the cookie on the next run.
    ``keep_drafts``: keep the unsaved verdict drafts and the open item for
    the same account's next sign-in (an idle sign-out loses no work)."""
    dead = set(st.session_state.get(K_DEAD, ())) | {st.session_state.get(K_TOKEN), token}
    owner = reviewer() if keep_drafts else None
    for k in list(st.session_state.keys()):
        draft = str(k).startswith("draft::") or k == K_CURRENT
        if k not in _KEEP and not (owner and draft):
            del st.session_state[k]
    if owner:
        st.session_state[K_DRAFTS_OWNER] = owner
    st.session_state[K_DEAD] = {d for d in dead if d}
    st.session_state[K_COOKIE_OP] = ("clear", None)


def check_fragment() -> None:
    """The token check of :func:`restore` for a fragment: a fragment's rerun
    (choosing a verdict, pressing Save) runs only the fragment, not the page
    and its :func:`restore`.  When the session has ended (a password reset, a
    disable, a role change, a sign-out elsewhere), the whole app runs again,
    where :func:`restore` ends it and shows the sign-in form.  In a whole
    page run :func:`restore` has just checked the token: nothing to do."""
    if st.session_state.pop(K_RUN_CHECKED, False) or not reviewer():
        return
    try:
        audit.accounts.verify_session(st.session_state[K_TOKEN], db=db_path())
    except audit.SignInError:
        st.rerun(scope="app")
    except audit.AuditError:
        pass  # the file is busy: the act itself re-checks the session in the library


def _end_here(keep_drafts: bool = False) -> None:
    """End the session of this browser (idle, or its token refused)."""
    _forget(keep_drafts=keep_drafts)


def sign_out() -> bool:
    """End every session of the account (the token stops working) and
    forget this browser session's state.  True when the browser is being
    sent to the single sign-on logout: the caller must then end the run
    without ``st.rerun()``, which would drop that redirect."""
    name = reviewer()
    if name:
        try:
            audit.accounts.end_sessions(name, db=db_path())
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
