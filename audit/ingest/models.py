"""Model registry: names, families and providers.  Families drive the
cross-family rules of the tiers and the judge-bias analysis."""
from __future__ import annotations

import os
import re

import pandas as pd

from audit._util.files import read_table, require_columns
from audit._util.names import identity_name
from audit.errors import InputError, NotFoundError
from audit.store import DbPath, connect, transaction

# Ordered: first match wins.  Patterns are matched against the lower-cased name.
_FAMILY_RULES: list[tuple[str, str, str]] = [
    (r"^(anthropic[_/-]|claude)", "anthropic", "anthropic"),
    (r"^(google[_/-]|gemini|gemma|palm(?!yra)|text-unicorn|text-bison)", "google", "google"),
    (r"^(openai[_/-]|gpt|o1|o3|o4|chatgpt)", "openai", "openai"),
    (r"^(meta[_/-]|llama|meta-llama)", "meta", "meta"),
    (r"^(qwen|alibaba[_/-])", "qwen", "alibaba"),
    (r"^(deepseek)", "deepseek", "deepseek"),
    (r"^(mistralai[_/-]|mistral|mixtral|codestral)", "mistralai", "mistralai"),
    (r"^(writer[_/-]|palmyra)", "writer", "writer"),
    (r"^(xai[_/-]|grok)", "xai", "xai"),
    (r"^(cohere[_/-]|command)", "cohere", "cohere"),
]


def infer_family(name: str) -> str:
    """Family from a model name; otherwise the prefix before the first '_' or '-'.

    >>> [infer_family(n) for n in ["claude-3-opus", "google_gemini-1.5-pro", "gpt-4o", "llama-3-70b", "yi-34b"]]
    ['anthropic', 'google', 'openai', 'meta', 'yi']
    """
    low = name.strip().lower()
    low = low.split("/", 1)[1] if re.match(r"^(openrouter|together_ai|bedrock|vertex_ai)/", low) else low
    for pattern, family, _ in _FAMILY_RULES:
        if re.match(pattern, low):
            return family
    return re.split(r"[_\-/]", low, maxsplit=1)[0] or low


def infer_provider(name: str) -> str | None:
    low = name.strip().lower()
    for pattern, _, provider in _FAMILY_RULES:
        if re.match(pattern, low):
            return provider
    return None


def register_models(con, names) -> None:
    """Insert models not yet known, with inferred family (existing rows kept).
    Every name is an identity (:func:`audit._util.names.identity_name`): one not
    in its normal form (spaces around it, not NFC), with an invisible or
    control character, too long, or looking like a different known model is
    refused, so the transaction storing its predictions rolls back."""
    known = [n for (n,) in con.execute("SELECT name FROM models").fetchall()]
    for n in sorted(set(names)):
        canon = identity_name(n, kind="model name", existing=known, ascii_lookalikes=False)
        if canon != n:
            raise InputError(f"model name {n!r} is not written in its normal form {canon!r} (no spaces around it, "
                             "Unicode NFC): fix the name so that one model keeps one name")
        known.append(n)
    rows = [(n, infer_family(n), infer_provider(n)) for n in sorted(set(names))]
    if not rows:
        return
    con.executemany(
        "INSERT INTO models (name, family, provider) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING", rows
    )


def set_family(name: str, family: str, *, db: DbPath = None, provider: str | None = None) -> None:
    """Override a model's family (creates the model row if needed)."""
    family = family.strip()
    if not family:
        raise InputError("family must not be empty")
    with connect(db) as con, transaction(con):
        con.execute(
            "INSERT INTO models (name, family, provider, family_source) VALUES (?, ?, ?, 'set') "
            "ON CONFLICT (name) DO UPDATE SET family = excluded.family, family_source = 'set', "
            "provider = coalesce(excluded.provider, models.provider)",
            [name, family, provider],
        )


def import_models(path: str | os.PathLike, *, db: DbPath = None) -> int:
    """Set families from a CSV/JSONL with columns ``name``, ``family`` and
    optional ``provider``.  All-or-nothing.  Returns the number of rows."""
    df = read_table(path)
    require_columns(df, ["name", "family"], path, allowed={"name", "family", "provider"})
    # itertuples() would rename the leading-underscore ``_line`` column: read the columns by name
    lines = df["_line"] if "_line" in df.columns else df.index + 2
    for name, family, line in zip(df["name"], df["family"], lines):
        if not str(name).strip() or not str(family).strip() or str(family) == "nan":
            raise InputError("empty name or family", path=path, line=int(line))
    with connect(db) as con, transaction(con):
        for row in df.itertuples():
            con.execute(
                "INSERT INTO models (name, family, provider, family_source) VALUES (?, ?, ?, 'set') "
                "ON CONFLICT (name) DO UPDATE SET family = excluded.family, family_source = 'set', "
                "provider = coalesce(excluded.provider, models.provider)",
                [str(row.name).strip(), str(row.family).strip(),
                 (str(getattr(row, "provider")).strip() or None) if "provider" in df.columns else None],
            )
    return len(df)


def list_models(*, db: DbPath = None, benchmark: str | None = None) -> pd.DataFrame:
    """Columns: name, family, provider, family_source (and n_predictions)."""
    with connect(db, read_only=True) as con:
        if benchmark is None:
            return con.execute(
                "SELECT m.*, (SELECT count(*) FROM all_predictions p WHERE p.model = m.name) AS n_predictions "
                "FROM models m ORDER BY family, name"
            ).df()
        df = con.execute(
            "SELECT m.name, m.family, m.provider, m.family_source, count(*) AS n_predictions "
            "FROM all_predictions p JOIN models m ON m.name = p.model WHERE p.benchmark = ? "
            "GROUP BY ALL ORDER BY family, name",
            [benchmark],
        ).df()
        if df.empty and not con.execute("SELECT 1 FROM benchmarks WHERE name = ?", [benchmark]).fetchone():
            raise NotFoundError(f"no benchmark named '{benchmark}'")
        return df


__all__ = ["infer_family", "infer_provider", "register_models", "set_family", "import_models", "list_models"]
