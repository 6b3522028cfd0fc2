"""audit._util.redact: secrets never reach a message in clear.  Pins each
rule (environment secrets, URL user info, Authorization/Token/Bearer,
``key=``-style pairs in query strings and JSON, ``sk-`` keys), that
``redact_values`` changes nothing but known values (a model's reply keeps
its words), the six-character floor, and that text without a secret is
returned unchanged."""
from __future__ import annotations

import pytest

from audit._util.redact import is_secret_name, redact, redact_values


@pytest.mark.parametrize("name, secret", [
    ("OPENAI_API_KEY", True), ("HF_TOKEN", True), ("AWS_SECRET_ACCESS_KEY", True), ("DB_PASSWORD", True),
    ("SMTP_PASS", True), ("GOOGLE_CREDENTIALS", True), ("GCP_CREDENTIAL", True), ("label_studio_token", True),
    ("LABEL_STUDIO_URL", False), ("AWS_REGION", False), ("PASSWORD_HINT", False), ("KEYBOARD", False),
    ("TOKENIZER", False), ("", False),
])
def test_is_secret_name(name, secret):
    assert is_secret_name(name) is secret


def test_environment_secrets_are_hidden(monkeypatch):
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-very-secret-42")
    monkeypatch.setenv("MY_SHORT_KEY", "abc")                 # under six characters: never replaced
    monkeypatch.setenv("PLAIN_SETTING", "visible-value-1")    # not a secret name
    text = "sent tok-very-secret-42 to visible-value-1 with abc"
    assert redact_values(text) == "sent *** to visible-value-1 with abc"
    assert "tok-very-secret-42" not in redact(text)


def test_longest_secret_is_replaced_first(monkeypatch):
    monkeypatch.delenv("MY_SERVICE_TOKEN", raising=False)
    out = redact_values("x=abcdef123456 y=abcdef", extra=["abcdef", "abcdef123456"])
    assert out == "x=*** y=***"


def test_redact_values_keeps_everything_else_exactly():
    reply = "Answer: B. The token budget is low; password= not given. ཀ་ཁ"
    assert redact_values(reply) == reply          # no pattern rules
    assert redact_values(None) is None and redact_values("") == ""


@pytest.mark.parametrize("text, hidden", [
    ("https://bob:hunter2@example.org/api", "hunter2"),
    ("postgres://user:p%40ss@db:5432/x", "p%40ss"),
    ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload", "eyJhbGciOiJIUzI1NiJ9.payload"),
    ('{"Authorization": "Token 0123456789abcdef"}', "0123456789abcdef"),
    ("GET /api?api_key=AKIA12345678&x=1", "AKIA12345678"),
    ("GET /api?access_token=zzzzzzzzzz", "zzzzzzzzzz"),
    ('{"password": "correct horse battery"}', "correct"),
    ("secret: s3cr3t-value", "s3cr3t-value"),
    ("the key sk-proj-ABCDEFGHIJKLmnop was rejected", "sk-proj-ABCDEFGHIJKLmnop"),
    ("token abcdefghijklmnop expired", "abcdefghijklmnop"),
])
def test_patterns_hide_the_secret(text, hidden):
    out = redact(text)
    assert hidden not in out
    assert "***" in out


def test_redact_keeps_the_rest_of_the_message():
    assert redact("GET http://bob:hunter2@ls:8080/api failed: 401") == "GET http://***:***@ls:8080/api failed: 401"
    assert redact("https://ls.example.org/api/projects?page=2") == "https://ls.example.org/api/projects?page=2"
    assert redact("a tibetan item བོད་ཡིག with no secret") == "a tibetan item བོད་ཡིག with no secret"
    assert redact(None) is None


def test_extra_values_are_hidden_by_both():
    assert redact("echo 'hunter22'", extra=["hunter22"]) == "echo '***'"
    assert redact_values("x", extra=["", None, "short"]) == "x"
