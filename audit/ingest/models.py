"""Model registry: names, families and providers.  Families drive the
cross-family rules of the tiers and the judge-bias analysis."""
from __future__ import annotations

import os
import re

import pandas as pd
import pyarrow as pa

from audit._util.cells import CellRefused, text_cell
from audit._util.files import read_table, require_columns
from audit._util.names import NameIndex, identifier_text, identity_name
from audit._util.sql import unregister
from audit.accounts import require_role
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


#: The rules as one pattern (group ``r<i>`` = rule i): one match per name, not one per rule.
_RULES_RE = re.compile("|".join(f"(?P<r{i}>{pattern[1:]})" for i, (pattern, _, _) in enumerate(_FAMILY_RULES)))
_ROUTER = re.compile(r"^(openrouter|together_ai|bedrock|vertex_ai)/")


def _rule(low: str) -> tuple[str, str] | None:
    m = _RULES_RE.match(low)
    if m is None:
        return None
    _, family, provider = _FAMILY_RULES[int(m.lastgroup[1:])]
    return family, provider


def infer_family(name: str) -> str:
    """Family from a model name; otherwise the prefix before the first '_' or '-'.

    >>> [infer_family(n) for n in ["claude-3-opus", "google_gemini-1.5-pro", "gpt-4o", "llama-3-70b", "yi-34b"]]
    ['anthropic', 'google', 'openai', 'meta', 'yi']
    """
    low = name.strip().lower()
    low = low.split("/", 1)[1] if _ROUTER.match(low) else low
    rule = _rule(low)
    if rule is not None:
        return rule[0]
    return re.split(r"[_\-/]", low, maxsplit=1)[0] or low


def infer_provider(name: str) -> str | None:
    rule = _rule(name.strip().lower())
    return rule[1] if rule is not None else None


def register_models(con, names) -> None:
    """Insert models not yet known, with inferred family (existing rows kept).
    Every new name is an identity (:func:`audit._util.names.identity_name`):
    one not in its normal form (spaces around it, not NFC), with an invisible
    or control character, too long, or looking like a different known model
    (or another new one) is refused, so the transaction storing its
    predictions rolls back.  The look-alike check goes through one
    :class:`~audit._util.names.NameIndex`: linear in the number of names."""
    new = sorted(set(names))
    if not new:
        return
    known = [n for (n,) in con.execute("SELECT name FROM models").fetchall()]
    have = set(known)
    fresh = [n for n in new if n not in have]
    if not fresh:
        return
    index = NameIndex(known, ascii_lookalikes=False)
    for n in fresh:
        canon = identity_name(n, kind="model name", existing=index, ascii_lookalikes=False)
        if canon != n:
            raise InputError(f"model name {n!r} is not written in its normal form {canon!r} (no spaces around it, "
                             "Unicode NFC): fix the name so that one model keeps one name")
        index.add(n)
    table = pa.table({"name": pa.array(fresh, pa.string()),
                      "family": pa.array([infer_family(n) for n in fresh], pa.string()),
                      "provider": pa.array([infer_provider(n) for n in fresh], pa.string())})
    con.register("_new_models", table)
    try:
        con.execute("INSERT INTO models (name, family, provider) SELECT name, family, provider FROM _new_models "
                    "ON CONFLICT (name) DO NOTHING")
    finally:
        unregister(con, "_new_models")


def _families(con, families, index: NameIndex | None = None) -> dict[str, str]:
    """Each family name checked by the identifier rule against the families
    already stored (and each other): family → the name stored (a family
    equal to a known one ignoring case is that family: ``Meta`` beside
    ``meta`` is ``meta``).  A look-alike (``mеta`` with a Cyrillic ``е``)
    or a name holding an invisible character is refused."""
    if index is None:
        index = NameIndex([f for (f,) in con.execute("SELECT DISTINCT family FROM models WHERE family IS NOT NULL")
                           .fetchall()], ascii_lookalikes=False)
    out: dict[str, str] = {}
    for f in families:
        if f not in out:
            clean = identity_name(f, kind="family", existing=index, ascii_lookalikes=False)
            out[f] = index.same(clean) or clean
            index.add(out[f])
    return out


def _no_such_model(con, name: str) -> NotFoundError:
    near = con.execute("SELECT name FROM models WHERE lower(name) = lower(?) LIMIT 1", [name]).fetchall()
    hint = (f" (did you mean '{near[0][0]}'?)" if near else
            " (models are registered by importing their predictions; pass --new to register one first, e.g. a "
            "judge's model)")
    return NotFoundError(f"no model named '{name}'{hint}")


def set_family(name: str, family: str, *, db: DbPath = None, provider: str | None = None, create: bool = False,
               actor=None) -> str:
    """Override a known model's family; returns the family stored.  The
    model must exist — a typo never creates one — unless ``create`` (the
    CLI's ``--new``: register a model not imported yet, such as a judge's,
    its name checked like an imported one).  The family passes the
    identifier rule against the known families (:func:`_families`).  Once
    the database has accounts this is a lead's or admin's act (``actor``)."""
    identity_name(name, kind="model name")
    if not isinstance(family, str) or not family.strip():
        raise InputError("family must not be empty")
    with connect(db) as con, transaction(con):
        require_role(con, actor, "lead", "setting a model's family")
        if not con.execute("SELECT 1 FROM models WHERE name = ?", [name]).fetchall():
            if not create:
                raise _no_such_model(con, name)
            register_models(con, [name])
        stored = _families(con, [family])[family]
        con.execute("UPDATE models SET family = ?, family_source = 'set', provider = coalesce(?, provider) "
                    "WHERE name = ?", [stored, provider, name])
    return stored


def import_models(path: str | os.PathLike, *, db: DbPath = None, actor=None) -> int:
    """Set families from a CSV/JSONL with columns ``name``, ``family`` and
    optional ``provider``.  All-or-nothing, one bulk write.  Returns the
    number of rows.

    One row per model (two rows for one model are refused: which is right
    cannot be told).  Every name must be a known model, so a typo never
    becomes a model — except in a database that knows no model yet, where
    the file declares the registry before any prediction.  Families pass
    the identifier rule as in :func:`set_family`.  Once the database has
    accounts this is a lead's or admin's act (``actor``)."""
    df = read_table(path)
    require_columns(df, ["name", "family"], path, allowed={"name", "family", "provider"})
    names, families, providers, lines = [], [], [], []
    first: dict[str, int] = {}
    given = df["provider"].tolist() if "provider" in df.columns else [None] * len(df)
    at = df["_line"].tolist() if "_line" in df.columns else [i + 2 for i in range(len(df))]
    for raw_name, raw_family, raw_prov, raw_line in zip(df["name"].tolist(), df["family"].tolist(), given, at):
        line = int(raw_line)
        try:
            name, family, prov = text_cell(raw_name), text_cell(raw_family), text_cell(raw_prov)
        except CellRefused as exc:
            raise InputError(str(exc), path=path, line=line) from None
        if not name or not family:
            raise InputError("empty name or family", path=path, line=line)
        if name in first:
            raise InputError(f"model '{name}' is on line {first[name]} and again here: one row per model",
                             path=path, line=line)
        first[name] = line
        try:
            identifier_text(name, kind="model name")   # the rest of the rule: below, as a known or new model
        except InputError as exc:
            raise InputError(exc.detail, path=path, line=line) from None
        names.append(name)
        families.append(family)
        providers.append(prov or None)
        lines.append(line)
    with connect(db) as con, transaction(con):
        require_role(con, actor, "lead", "setting model families")
        known = {n for (n,) in con.execute("SELECT name FROM models").fetchall()}
        if known:
            for name, line in zip(names, lines):
                if name not in known:
                    raise InputError(str(_no_such_model(con, name)) + "; nothing was imported", path=path, line=line)
        else:
            register_models(con, names)
        try:
            stored = _families(con, families)
        except InputError as exc:
            raise InputError(exc.detail, path=path) from None
        table = pa.table({"name": pa.array(names, pa.string()),
                          "family": pa.array([stored[f] for f in families], pa.string()),
                          "provider": pa.array(providers, pa.string())})
        con.register("_model_families", table)
        try:
            con.execute("UPDATE models SET family = f.family, family_source = 'set', "
                        "provider = coalesce(f.provider, models.provider) FROM _model_families f "
                        "WHERE models.name = f.name")
        finally:
            unregister(con, "_model_families")
    return len(names)


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
