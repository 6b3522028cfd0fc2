"""Accounts written straight into a test database, hashed with Argon2id at
the lowest cost the library accepts (a real, verifiable hash in
milliseconds instead of the production cost of about half a second per
hash on a busy machine).  A sign-in with such a password upgrades the hash
to the production parameters, as it would for a hash made by an older
release."""
from __future__ import annotations

from argon2 import PasswordHasher

from audit.accounts.table import name_key
from audit.store import connect

CHEAP = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


def add_rows(db, *accounts) -> None:
    """``accounts``: (name, role[, password[, disabled]]) tuples; the
    password defaults to ``"pw-" + name``."""
    with connect(db) as con:
        for acc in accounts:
            name, role = acc[0], acc[1]
            password = acc[2] if len(acc) > 2 else "pw-" + name
            disabled = acc[3] if len(acc) > 3 else False
            con.execute("INSERT INTO accounts (name, name_key, role, password_hash, disabled, created_at, updated_at) "
                        "VALUES (?, ?, ?, ?, ?, now(), now())",
                        [name, name_key(name), role, CHEAP.hash(password), disabled])
