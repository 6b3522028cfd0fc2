"""Secrets never reach a message in clear: :func:`redact` is applied to every
error line the CLI prints, to Label Studio error messages and to anything
else that may quote a server's answer or a URL.

What is hidden (replaced by ``***``):

* values of environment variables whose names end in KEY, TOKEN, SECRET,
  PASSWORD, PASS or CREDENTIAL(S) (six characters or more), plus any value
  passed in *extra*;
* ``user:password@`` in URLs;
* the value after ``Authorization:`` / ``Token`` / ``Bearer`` and after
  ``api_key=``, ``token=``, ``access_token=``, ``password=`` (query strings,
  headers echoed back in an error body);
* the value of a command-line flag whose name ends in a secret word, in its
  two forms ``--api-key VALUE`` and ``--api-key=VALUE`` (``--password``,
  ``--hf-token``, ``--token``, ``--client-secret`` …): a command line shown
  in a message (the holder of the database) is a line that leaves the
  process like any other;
* OpenAI-style keys (``sk-…``).

:func:`redact_sql` is the same value rule for text that stays in SQL (raw
responses imported in bulk).
"""
from __future__ import annotations

import os
import re
from typing import Callable, Iterable, Union

__all__ = ["redact", "redact_values", "redact_sql", "known_secrets", "is_secret_name"]

_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASS|CREDENTIALS?)$", re.IGNORECASE)
_PATTERNS: list[tuple[re.Pattern[str], Union[str, Callable[[re.Match[str]], str]]]] = [
    (re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@"), r"\1***:***@"),
    (re.compile(r"(?i)\b(authorization[\"']?\s*[:=]\s*[\"']?)(?:(token|bearer|basic)\s+)?[^\s\"',}]+"),
     lambda m: m.group(1) + (m.group(2) + " " if m.group(2) else "") + "***"),
    (re.compile(r"(?i)\b(token|bearer)(\s+)[A-Za-z0-9._~+/=-]{8,}"), r"\1\2***"),
    (re.compile(r"(?i)\b(api[_-]?key|access[_-]?token|token|password|secret)([\"']?\s*[=:]\s*[\"']?)[^\s&\"',}]+"),
     r"\1\2***"),
    (re.compile(r"(?i)(?<![\w-])(--?[a-z0-9_-]*?(?<!per-)(?:key|token|secret|password|passwd|pass|credentials?))"
                r"(\s+|=)(?!--)[^\s\"']+"), r"\1\2***"),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"), "***"),
]


def is_secret_name(name: str) -> bool:
    """Whether an environment variable of this name holds a secret.

    >>> is_secret_name("OPENAI_API_KEY"), is_secret_name("LABEL_STUDIO_URL")
    (True, False)
    """
    return bool(_SECRET_NAME.search(name))


def known_secrets(extra: Iterable[str] = ()) -> list[str]:
    """Secret values this process knows, longest first: secret environment
    variables and *extra* (six characters or more)."""
    secrets = [v for k, v in os.environ.items() if _SECRET_NAME.search(k) and v and len(v) >= 6]
    secrets += [s for s in extra if s and len(s) >= 6]
    return sorted(set(secrets), key=len, reverse=True)



def redact_values(text: str | None, extra: Iterable[str] = (), *, secrets: list[str] | None = None) -> str | None:
    """*text* with every secret value this process knows replaced by ``***``
    (no pattern rules: for stored model replies and explanations, whose
    wording must otherwise stay exactly as received).  *secrets*: the list
    :func:`known_secrets` gave (for a loop over many texts).

    >>> redact_values("echo: Bearer abc123456 ok", extra=["abc123456"])
    'echo: Bearer *** ok'
    """
    if not text:
        return text
    for s in (secrets if secrets is not None else known_secrets(extra)):
        text = text.replace(s, "***")
    return text


def redact_sql(expr: str) -> str:
    """SQL for *expr* (a text column) with every secret value this process
    knows replaced by ``***`` — :func:`redact_values` inside DuckDB, for
    text imported in bulk; *expr* itself when no secret is set.

    >>> import duckdb
    >>> os.environ["X_TEST_TOKEN"] = "abc'123456"
    >>> sql = "SELECT " + redact_sql("x") + " FROM (SELECT 'token abc''123456 here' AS x)"
    >>> duckdb.connect().execute(sql).fetchall()[0][0]
    'token *** here'
    >>> del os.environ["X_TEST_TOKEN"]
    """
    for s in known_secrets():   # the longest innermost: replaced first
        expr = f"replace({expr}, '" + s.replace("'", "''") + "', '***')"
    return expr


def redact(text: str | None, extra: Iterable[str] = ()) -> str | None:
    """*text* with secrets replaced by ``***``.

    >>> redact("GET http://bob:hunter2@ls:8080/api failed")
    'GET http://***:***@ls:8080/api failed'
    >>> redact('{"detail": "bad header Authorization: Token 0123456789abcdef"}')
    '{"detail": "bad header Authorization: Token ***"}'
    >>> redact("key sk-abcdefghijkl rejected"), redact("x", extra=["secret-value"])
    ('key *** rejected', 'x')
    """
    text = redact_values(text, extra)
    if not text:
        return text
    for pattern, repl in _PATTERNS:
        text = pattern.sub(repl, text)
    return text
