"""Small helpers shared by the test modules: read-only queries, the in-process CLI runner and
copies of template databases."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import duckdb


def rows(db, sql, params=None):
    """All rows of a query on a DuckDB file opened read-only."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def wrong_answer(db, question_id: str, benchmark: str = "demo") -> str:
    """An option label of the item other than its key (the first one): a
    corrected answer a ``key_wrong`` verdict may name."""
    labels, key = rows(db, "SELECT list_transform(options, lambda o: o.label), answer_key FROM questions "
                           "WHERE benchmark = ? AND question_id = ?", [benchmark, question_id])[0]
    return next(label for label in labels if label != key)


def _main(*args) -> int:
    from audit.cli import main

    old = sys.argv
    sys.argv = ["audit", *map(str, args)]
    try:
        main()
        return 0
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.argv = old


def run_cli(capsys, *args) -> tuple[int, str, str]:
    """Run the real ``audit`` entry point in-process: (exit code, stdout, stderr)."""
    capsys.readouterr()  # drop what earlier steps printed
    code = _main(*args)
    out = capsys.readouterr()
    return code, out.out, out.err


def cli_quiet(*args) -> tuple[int, str, str]:
    """``run_cli`` outside a test (building a template database): the output
    is caught with ``contextlib.redirect_stdout`` instead of ``capsys``."""
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = _main(*args)
    return code, out.getvalue(), err.getvalue()


def copy_db(template: Path, dest: Path) -> Path:
    """``dest`` made a copy of the database file ``template`` (from the
    ``db_template`` fixture); returns ``dest``."""
    shutil.copyfile(template, dest)
    return dest


_MIGRATED: list[Path] = []


def migrated_if_new(db) -> None:
    """Make a database file that does not exist yet a copy of an empty,
    migrated one (made once per process), as ``connect`` would leave it after
    running every migration (0.25 s or more per new file).  Builders that
    write into a fresh path call this first; an existing file is left alone."""
    import atexit
    import tempfile

    if db is None or Path(db).exists():
        return
    path = Path(db)
    if not _MIGRATED:
        from audit.store import init_db

        folder = Path(tempfile.mkdtemp(prefix="migrated-"))
        atexit.register(shutil.rmtree, folder, True)
        _MIGRATED.append(init_db(folder / "migrated.duckdb"))
    shutil.copyfile(_MIGRATED[0], path)
