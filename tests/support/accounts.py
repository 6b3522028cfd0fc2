"""Shared sign-in steps for the workbench tests (AppTest and the real
browser): accounts are created in the real database through
``audit.accounts.add_account`` (Argon2 hashes, as in production; each
password is hashed once per test session), then the sign-in form is filled
in like a reviewer would."""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

PASSWORD = "test-password-1"
ADMIN = "test-admin"


_HASHES: dict[str, str] = {}


@contextmanager
def _each_password_hashed_once():
    """``add_account`` with one Argon2 hash per password for the whole test
    session: the workbench tests create the same few accounts again for every
    test, and each hash costs a fifth of a second or more.  The stored hash is
    still a real Argon2id hash of that password (only its salt is shared by
    the accounts that have the same password), and signing in verifies it."""
    from audit.accounts import _manage

    real = _manage.password_hasher

    class _Hasher:
        def __init__(self):
            self._ph = real()

        def hash(self, password: str) -> str:
            if password not in _HASHES:
                _HASHES[password] = self._ph.hash(password)
            return _HASHES[password]

        def __getattr__(self, name):
            return getattr(self._ph, name)

    _manage.password_hasher = _Hasher
    try:
        yield
    finally:
        _manage.password_hasher = real


def ensure_account(name: str, role: str = "reviewer", *, password: str = PASSWORD, db=None) -> None:
    """Create ``name`` with ``role`` unless it exists (the database's first
    account, :data:`ADMIN`, is created first so that ``name`` gets the role
    asked for rather than admin)."""
    from audit.accounts._manage import add_account
    from audit.accounts.table import account_from, has_accounts
    from audit.store import connect

    with connect(db) as con:
        first = not has_accounts(con)
        exists = account_from(con, name) is not None
    with _each_password_hashed_once():
        if first:
            add_account(ADMIN, PASSWORD, role="admin", db=db)
        if not exists and " ".join(name.split()).casefold() != ADMIN:
            add_account(name, password, role=role, actor=ADMIN, db=db)


def apptest_sign_in(at, name: str, *, password: str = PASSWORD, role: str = "reviewer", db=None,
                    create: bool = True):
    """Fill the sign-in form of a Streamlit AppTest and submit it."""
    if create:
        ensure_account(name, role, password=password, db=db)
    at.text_input(key="signin_name").input(name)
    at.text_input(key="signin_password").input(password)
    at.button[0].click().run()
    assert not at.exception, at.exception
    return at


def browser_sign_in(page, url: str, name: str, *, password: str = PASSWORD, role: str = "reviewer",
                    db: Path | None = None, create: bool = True) -> None:
    """Open ``url`` in a Playwright page and sign in through the form."""
    if create:
        ensure_account(name, role, password=password, db=db)
    page.goto(url)
    box = page.get_by_label("Name", exact=True)
    box.wait_for()
    box.fill(name)
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_role("button", name="Sign in").click()
