"""Shared sign-in steps for the workbench tests (AppTest and the real
browser): accounts are created in the real database through
``audit.review.add_account`` (Argon2 hashes, as in production), then the
sign-in form is filled in like a reviewer would."""
from __future__ import annotations

from pathlib import Path

PASSWORD = "test-password-1"
ADMIN = "test-admin"


def ensure_account(name: str, role: str = "reviewer", *, password: str = PASSWORD, db=None) -> None:
    """Create ``name`` with ``role`` unless it exists (the database's first
    account, :data:`ADMIN`, is created first so that ``name`` gets the role
    asked for rather than admin)."""
    from audit.review._accounts import account_from, add_account, has_accounts
    from audit.store import connect

    with connect(db) as con:
        first = not has_accounts(con)
        exists = account_from(con, name) is not None
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
