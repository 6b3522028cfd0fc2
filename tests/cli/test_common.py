"""audit.cli._common: the output helpers every command uses (a DataFrame as
a table or as CSV with formula cells neutralised, to stdout or a file), the
passwords read from stdin lines (Windows line ends, Unicode line breaks kept
inside a line, a missing line named), and signing in with ``--as`` (no
account needed on a database without accounts, refused where accounts exist,
the stored name returned)."""
import io
import sys

import pandas as pd
import pytest

from audit.accounts import add_account
from audit.cli._common import Passwords, acting_account, emit_frame
from audit.errors import InputError, PermissionDeniedError, SignInError

PW = "correct horse battery"


def test_emit_table_and_empty(capsys):
    emit_frame(pd.DataFrame({"model": ["ཀ་ཁ", "<b>x</b>"], "n": [1, None]}), "table", None)
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["model", "n"] and "ཀ་ཁ" in out and "nan" not in out
    emit_frame(pd.DataFrame({"a": []}), "table", None)
    assert capsys.readouterr().out == "(none)\n"


def test_emit_csv_neutralises_formulas(capsys, monkeypatch):
    buf = io.StringIO()
    monkeypatch.setattr(sys, "stdout", buf)
    emit_frame(pd.DataFrame({"q": ["=1+1", "@SUM(A1)", "ok"]}), "csv", None)
    assert buf.getvalue().splitlines() == ['"q"', "\"'=1+1\"", "\"'@SUM(A1)\"", '"ok"']


def test_emit_to_files(tmp_path, capsys):
    df = pd.DataFrame({"q": ["+cmd"], "v": [1.5]})
    emit_frame(df, "csv", tmp_path / "o.csv")
    emit_frame(df, "table", tmp_path / "o.txt")
    assert capsys.readouterr().out == f"written to {tmp_path / 'o.csv'}\nwritten to {tmp_path / 'o.txt'}\n"
    assert (tmp_path / "o.csv").read_bytes() == b'\xef\xbb\xbf"q","v"\n"\'+cmd",1.5\n'
    assert (tmp_path / "o.txt").read_text(encoding="utf-8") == df.to_string(index=False) + "\n"


def test_emit_unknown_format():
    with pytest.raises(InputError, match="unknown format 'xlsx' .choose table or csv."):
        emit_frame(pd.DataFrame(), "xlsx", None)


def _stdin(monkeypatch, text):
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))


def test_passwords_from_stdin_lines(monkeypatch):
    _stdin(monkeypatch, "first\r\nsecond\u2028half\nthird")
    pw = Passwords(from_stdin=True)
    assert [pw.get("A"), pw.get("B"), pw.get("C")] == ["first", "second\u2028half", "third"]
    with pytest.raises(InputError, match="no line left on standard input for: new password"):
        pw.get("New password")


@pytest.mark.parametrize("text", ["", "one\n"])
def test_passwords_run_out(monkeypatch, text):
    _stdin(monkeypatch, text)
    pw = Passwords(from_stdin=True)
    if text:
        assert pw.get("x") == "one"
    with pytest.raises(InputError, match="--password-stdin"):
        pw.get("Password of admin")


def test_acting_account(db_path, monkeypatch):
    assert acting_account(None, Passwords(True), db_path) is None
    assert acting_account(None, Passwords(True), db_path, required_for="creating a version") is None
    add_account("Admin", PW, db=db_path)
    with pytest.raises(PermissionDeniedError, match="creating a version needs a signed-in account: --as NAME"):
        acting_account(None, Passwords(True), db_path, required_for="creating a version")
    assert acting_account(None, Passwords(True), db_path) is None       # nothing required: nobody acts
    _stdin(monkeypatch, PW + "\n")
    assert acting_account("admin", Passwords(True), db_path) == "Admin"   # the name as stored
    _stdin(monkeypatch, "wrong password here\n")
    with pytest.raises(SignInError, match="the name or the password is not right") as e:
        acting_account("Admin", Passwords(True), db_path)
    assert PW not in str(e.value) and "wrong password here" not in str(e.value)
