"""MkDocs hook: the reference pages are generated from the code at build time.

A page holds a marker line and the hook replaces it:

- ``<!-- generated: cli -->``: every ``audit`` command, its usage, arguments
  and options, read from the Typer/Click command tree (``audit.cli.app``);
- ``<!-- generated: api audit -->`` / ``<!-- generated: api audit.review -->``:
  one mkdocstrings block (``::: module.name``) per name in that module's
  ``__all__``, pointing at where the object is defined;
- ``<!-- generated: schema -->``: the database schema, from a database built
  by the migrations (``audit.store.init_db`` on a temporary file), with each
  column's comment from the migration that created it.

So a new command, public function or migration appears in the site without
editing a page.  Configured in mkdocs.yml (``hooks:``).
"""
from __future__ import annotations

import importlib
import inspect
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # the checkout's code, not an installed copy
    sys.path.insert(0, str(ROOT))

MARKER = re.compile(r"^<!-- generated: (\w+)(?: ([\w.]+))? -->$", re.M)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    def replace(m: re.Match) -> str:
        kind, arg = m.group(1), m.group(2)
        if kind == "cli":
            return cli_markdown()
        if kind == "api":
            return api_markdown(arg or "audit")
        if kind == "schema":
            return schema_markdown()
        if kind == "figures":
            return figures_markdown(config)
        if kind == "terms":
            return terms_markdown(arg or "en")
        raise ValueError(f"{page.file.src_path}: unknown generated block {kind!r}")

    return MARKER.sub(replace, markdown)


# --- the command line -------------------------------------------------------------------

def _escape(text: str) -> str:
    return text.replace("|", r"\|").replace("<", "&lt;").replace(">", "&gt;")


def _commands(cmd: Any, path: list[str]):
    """(path, command) for every command under *cmd*, groups first, in help order."""
    yield path, cmd
    for name in getattr(cmd, "commands", {}) or {}:
        sub = cmd.commands[name]
        if getattr(sub, "hidden", False):
            continue
        yield from _commands(sub, path + [name])


def cli_markdown() -> str:
    import typer.main

    from audit.cli import app

    root = typer.main.get_command(app)
    out = []
    for path, cmd in _commands(root, ["audit"]):
        depth = min(len(path) + 1, 4)
        name = " ".join(path)
        anchor = "-".join(path)
        out.append(f"{'#' * depth} `{name}` {{ #{anchor} }}\n")
        ctx_cls = type(root.make_context("audit", ["--help"], resilient_parsing=True))
        ctx = ctx_cls(cmd, info_name=name)
        help_text = inspect.cleandoc(cmd.help or "")
        if help_text:
            out.append(help_text.replace("\b\n", "") + "\n")
        usage = " ".join(cmd.collect_usage_pieces(ctx))
        out.append(f"```text\n{name} {usage}\n```\n")
        if hasattr(cmd, "commands"):
            subs = [(n, c) for n, c in cmd.commands.items() if not getattr(c, "hidden", False)]
            if subs:
                out.append("| command | what it does |\n|---|---|")
                for n, c in subs:
                    short = c.get_short_help_str(limit=120)
                    out.append(f"| [`{n}`](#{anchor}-{n}) | {_escape(short)} |")
                out.append("")
        rows = []
        for p in cmd.params:
            if getattr(p, "hidden", False):
                continue
            opts = ", ".join(f"`{o}`" for o in (*p.opts, *p.secondary_opts))
            kind = "argument" if p.param_type_name == "argument" else "option"
            help_ = getattr(p, "help", None) or ""
            default = p.default if not callable(p.default) else None
            default = getattr(default, "value", default)  # an Enum choice: its value (`long`, not `Layout.long`)
            extra = []
            if getattr(p, "required", False):
                extra.append("required")
            if default not in (None, False, (), []) and not getattr(p, "is_flag", False):
                extra.append(f"default: `{default}`")
            if getattr(p, "multiple", False):
                extra.append("repeatable")
            rows.append(f"| {opts} | {kind} | {_escape(' '.join(help_.split()))}"
                        f"{' (' + ', '.join(extra) + ')' if extra else ''} |")
        if rows:
            out.append("| name | kind | meaning |\n|---|---|---|")
            out.extend(rows)
            out.append("")
    return "\n".join(out)


# --- the Python API ---------------------------------------------------------------------

def _where(module: Any, name: str) -> str | None:
    """The dotted path mkdocstrings should render for ``module.name``; None
    for a constant griffe cannot see as an assignment of its own (``A, B = 1, 2``)."""
    obj = getattr(module, name)
    if inspect.ismodule(obj):
        return obj.__name__
    home = getattr(obj, "__module__", None)
    qual = getattr(obj, "__qualname__", None)
    if (inspect.isfunction(obj) or inspect.isclass(obj)) and home and qual and "<" not in qual:
        if qual.rsplit(".", 1)[-1] != name and hasattr(sys.modules.get(home), name):
            return f"{home}.{name}"  # an alias (TlueImportSummary = ImportSummary): shown by its public name
        if qual.rsplit(".", 1)[-1] != name:
            return f"{module.__name__}.{name}"  # renamed on import (remember as remember_source_listing)
        return f"{home}.{qual}"
    # constants: documented where they are assigned
    source, renamed = _defining_module(module, name)
    if source is None:
        return f"{module.__name__}.{name}"
    if renamed:
        return f"{module.__name__}.{name}"  # RELATION as PREDICTIONS_RELATION: shown under its public name
    text = inspect.getsource(importlib.import_module(source))
    if re.search(rf"^{re.escape(name)}\s*(?::[^=\n]*)?=", text, re.M):
        return f"{source}.{name}"
    return None


def _defining_module(module: Any, name: str) -> tuple[str | None, bool]:
    """(the module *name* is imported from in *module*'s source, whether it is
    renamed on import); single-line and parenthesised imports."""
    src = inspect.getsource(module)
    for m in re.finditer(r"^from ([\w.]+) import (\([^)]*\)|[^\n]*)", src, re.M):
        for part in m.group(2).strip("()").replace("\n", " ").split(","):
            words = part.split()
            if words and words[-1] == name:
                return m.group(1), len(words) == 3 and words[1] == "as" and words[0] != name
    return None, False


def api_markdown(modname: str) -> str:
    module = importlib.import_module(modname)
    names = list(module.__all__)
    out = [f"`{modname}.__all__` lists {len(names)} names.\n"]
    for name in names:
        where = _where(module, name)
        if where is None:
            value = " ".join(repr(getattr(module, name)).split())[:200].replace("`", "'")
            out.append(f"### `{name}`\n\n`{name} = {value}`\n")
            continue
        out.append(f"::: {where}\n    options:\n      heading_level: 3\n"
                   f"      show_root_heading: true\n      show_root_full_path: false\n")
    return "\n".join(out)


# --- the database schema ----------------------------------------------------------------

def _column_comments() -> dict[tuple[str, str], tuple[str, str]]:
    """(table, column) → (comment, migration) from the migrations' SQL."""
    out: dict[tuple[str, str], tuple[str, str]] = {}
    for f in sorted((ROOT / "audit" / "store" / "migrations").glob("*.sql")):
        table = None
        for line in f.read_text(encoding="utf-8").splitlines():
            m = re.match(r"\s*CREATE (?:OR REPLACE )?TABLE (?:IF NOT EXISTS )?(\w+)", line, re.I)
            if m:
                table = m.group(1).lower()
                continue
            m = re.match(r"\s*ALTER TABLE (\w+) ADD COLUMN (?:IF NOT EXISTS )?(\w+)[^-]*(?:--\s*(.*))?", line, re.I)
            if m:
                out.setdefault((m.group(1).lower(), m.group(2).lower()), ((m.group(3) or "").strip(), f.name))
                continue
            if table and re.match(r"\s*\);?\s*$", line):
                table = None
                continue
            m = re.match(r"\s*(\w+)\s+[A-Z]\w*[^-]*?(?:--\s*(.*))?$", line)
            if table and m and m.group(1).upper() not in ("PRIMARY", "UNIQUE", "FOREIGN", "CHECK", "CONSTRAINT"):
                out.setdefault((table, m.group(1).lower()), ((m.group(2) or "").strip(), f.name))
    return out


def schema_markdown() -> str:
    import duckdb

    from audit.store import init_db

    migrations = sorted(p.name for p in (ROOT / "audit" / "store" / "migrations").glob("*.sql"))
    comments = _column_comments()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "schema.duckdb"
        init_db(path)
        con = duckdb.connect(str(path), read_only=True)
        try:
            cols = con.execute(
                "SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns "
                "WHERE table_schema = 'main' ORDER BY table_name, ordinal_position").fetchall()
            kinds = dict(con.execute(
                "SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'main'").fetchall())
        finally:
            con.close()
    out = [f"Built from {len(migrations)} migrations: " + ", ".join(f"`{m}`" for m in migrations) + ".\n"]
    tables: dict[str, list] = {}
    for t, c, typ, nullable in cols:
        tables.setdefault(t, []).append((c, typ, nullable))
    for t in sorted(tables):
        kind = "view" if kinds.get(t) == "VIEW" else "table"
        origin = {comments.get((t.lower(), c.lower()), ("", ""))[1] for c, _, _ in tables[t]} - {""}
        out.append(f"### `{t}` ({kind}){{ #{t} }}\n")
        if origin:
            out.append("From " + ", ".join(f"`{o}`" for o in sorted(origin)) + ".\n")
        out.append("| column | type | null | note |\n|---|---|---|---|")
        for c, typ, nullable in tables[t]:
            note = comments.get((t.lower(), c.lower()), ("", ""))[0]
            out.append(f"| `{c}` | `{typ}` | {'yes' if nullable == 'YES' else 'no'} | {_escape(note)} |")
        out.append("")
    return "\n".join(out)


# --- figures: which page quotes which benchmark script ------------------------------------

def figures_markdown(config: Any) -> str:
    docs = Path(config["docs_dir"])
    quoted: dict[str, list[str]] = {}
    for page in sorted(docs.rglob("*.md")):
        rel = page.relative_to(docs).as_posix()
        if rel.startswith("_") or rel == "reference/figures.md":
            continue
        for script in sorted(set(re.findall(r"tests/bench/(\w+\.py)", page.read_text(encoding="utf-8")))):
            quoted.setdefault(script, []).append(rel)
    rows = ["| script | what it measures | quoted in |", "|---|---|---|"]
    for f in sorted((ROOT / "tests" / "bench").glob("*.py")):
        if f.name.startswith("_"):
            continue
        doc = (re.search(r'"""(.*?)(?:\n\n|""")', f.read_text(encoding="utf-8"), re.S) or [None, ""])[1]
        first = re.sub(r"\s*(Not collected by pytest; run)?:*$", "", " ".join(doc.split()))
        where = ", ".join(f"[{p}](../{p})" for p in quoted.get(f.name, [])) or "—"
        rows.append(f"| `python tests/bench/{f.name}` | {_escape(first)} | {where} |")
    return "\n".join(rows) + "\n"


# --- the workbench's own words, for the reviewer's guides -----------------------------------

TERMS = [
    ("btn.key_correct", "help.key_correct", "1"), ("btn.key_wrong", "help.key_wrong", "2"),
    ("btn.ambiguous", "help.ambiguous", "3"), ("btn.defective", "help.defective", "4"),
    ("btn.skip", "help.skip", "5"),
]
CAUSES = ["key_slip", "translation", "cultural", "source_error", "formatting", "other"]
HEADERS = {"en": ("key", "button", "what it means"), "zh": ("按键", "按钮", "含义"),
           "bo": ("མཐེབ", "མཐེབ་གཅུས", "དོན")}
CATALOGUE = {"en": "en", "zh": "zh_Hans", "bo": "bo"}


def _catalogue(lang: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for code in ("en", CATALOGUE[lang]):
        mod = importlib.import_module(f"audit.i18n.{code}")
        for v in vars(mod).values():
            if isinstance(v, dict) and all(isinstance(k, str) for k in v):
                out.update(v)
    return out


def terms_markdown(lang: str) -> str:
    """The verdict buttons, their keys and help, and the causes, in the words
    the workbench shows in *lang* (its catalogue in audit/i18n/) — the
    words a reviewer reads, never the stored codes."""
    t = _catalogue(lang)
    key, button, meaning = HEADERS[lang]
    rows = [f"| {key} | {button} | {meaning} |", "|---|---|---|"]
    for b, h, k in TERMS:
        rows.append(f"| **{k}** | {_escape(t[b])} | {_escape(t[h])} |")
    rows.append("")
    rows.append(f"| {_escape(t['item.cause'])} |")
    rows.append("|---|")
    for c in CAUSES:
        rows.append(f"| {_escape(t['cause.' + c])} |")
    return "\n".join(rows) + "\n"
