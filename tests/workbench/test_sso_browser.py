"""Single sign-on through Streamlit's own ``st.login``, end to end:
a real ``streamlit run workbench/app.py`` configured with an ``[auth]``
section, Debian's Chromium through Playwright, and a small OpenID Connect
provider on 127.0.0.1 (``tests/support/oidc_server.py``, the stand-in for an
identity provider, which cannot run here).

The provider's e-mail must be the name of an enabled account, whose role
applies; an e-mail without an account is refused with a sentence; signing
out ends the single sign-on session too."""
from __future__ import annotations

import pytest

import audit
from tests.support.accounts import ADMIN, ensure_account
from tests.support.common import copy_db
from tests.support.oidc_server import OIDCProvider
from tests.support.workbench_server import chromium, free_port, workbench_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]
try:
    import authlib  # noqa: F401 - st.login needs it
except ImportError:  # a failure, not a skip: the test extra installs it
    pytest.fail("single sign-on needs Authlib: pip install -e '.[test]'", pytrace=False)

REVIEWER_EMAIL = "pema@example.org"


def _secrets(path, idp: OIDCProvider, port: int) -> None:
    path.write_text(
        "[auth]\n"
        f'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
        'cookie_secret = "a-test-cookie-secret-that-is-long-enough-0123456789"\n'
        f'client_id = "{idp.client_id}"\n'
        f'client_secret = "{idp.client_secret}"\n'
        f'server_metadata_url = "{idp.metadata_url}"\n', encoding="utf-8")


@pytest.fixture(scope="module")
def sso_db(tmp_path_factory, demo_db):
    d = tmp_path_factory.mktemp("wb_sso")
    db = copy_db(demo_db, d / "workbench.duckdb")
    ensure_account(REVIEWER_EMAIL, "reviewer", db=db)
    return db


@pytest.fixture(scope="module")
def sso_app(sso_db, tmp_path_factory):
    """(provider, base URL, browser): one provider, one app configured for
    it, one Chromium; each test sets whom the provider signs in."""
    idp = OIDCProvider(email=REVIEWER_EMAIL)
    port = free_port()
    secrets = tmp_path_factory.mktemp("sso_secrets") / "secrets.toml"
    _secrets(secrets, idp, port)
    with idp, workbench_server(sso_db, port=port, extra_args=["--secrets.files", str(secrets)]) as base, \
            chromium() as browser:
        yield idp, base, browser


def _signed_in_by_provider(sso_app, email: str):
    """A fresh browser context that has pressed *Sign in with single
    sign-on* while the provider signs in ``email``."""
    idp, base, browser = sso_app
    idp.email = email
    idp.requests.clear()
    idp.tokens_issued = 0
    page = browser.new_context(viewport={"width": 1440, "height": 1000}).new_page()
    page.set_default_timeout(30_000)
    page.goto(base)
    page.get_by_label("Password", exact=True).wait_for()   # the password form stays for everyone else
    page.get_by_role("button", name="Sign in with single sign-on").click()
    return page


def test_single_sign_on_signs_in_the_matching_account(sso_app, sso_db):
    idp, base, _ = sso_app
    page = _signed_in_by_provider(sso_app, REVIEWER_EMAIL)
    page.get_by_text(f"Signed in as {REVIEWER_EMAIL}").wait_for()
    page.get_by_role("heading", name="Review queue").wait_for()
    # the whole authorisation-code flow went through the provider, once
    assert "/authorize" in idp.requests and "/token" in idp.requests
    assert idp.tokens_issued == 1
    # the account's role applies: a reviewer sees no admin page
    assert page.get_by_role("link", name="Label Studio").count() == 0
    # a reload keeps the session (Streamlit's signed auth cookie)
    page.reload()
    page.get_by_text(f"Signed in as {REVIEWER_EMAIL}").wait_for()
    # signing out ends both the workbench session and the single sign-on one
    page.get_by_role("button", name="Sign out").click()
    page.get_by_role("button", name="Sign in with single sign-on").wait_for()
    page.goto(base)
    page.get_by_role("button", name="Sign in with single sign-on").wait_for()
    assert page.get_by_text(f"Signed in as {REVIEWER_EMAIL}").count() == 0
    page.context.close()


def test_single_sign_on_without_an_account_is_refused(sso_app):
    idp = sso_app[0]
    stranger = "stranger@example.org"
    page = _signed_in_by_provider(sso_app, stranger)
    page.get_by_text(f"There is no enabled account named {stranger}").wait_for()
    assert idp.tokens_issued == 1          # the provider did sign the stranger in …
    assert page.get_by_role("heading", name="Review queue").count() == 0   # … the workbench did not
    page.context.close()


def test_single_sign_on_of_a_disabled_account_is_refused(sso_app, sso_db):
    email = "dorje@example.org"
    ensure_account(email, "reviewer", db=sso_db)
    audit.accounts.set_disabled(email, True, actor=ADMIN, db=sso_db)
    page = _signed_in_by_provider(sso_app, email)
    page.get_by_text(f"There is no enabled account named {email}").wait_for()
    assert page.get_by_role("heading", name="Review queue").count() == 0
    page.context.close()
