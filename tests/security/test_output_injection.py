"""Benchmark text, names and replies are untrusted: what the tool writes to
a terminal holds no escape sequence (OSC, CSI, single-byte C1 controls,
BEL), and what it writes as Markdown holds no live link or image.  One
terminal and Markdown writer neutralises them.

The hostile text is put into the database with SQL, as a database from an
older release or another tool would hold it, so the cases stay meaningful
once imports refuse such names.

Before: ``audit report`` (table) and ``audit review list`` wrote subject,
id and rationale text to the terminal with OSC and CSI sequences intact;
the Markdown report escaped HTML but left ``[text](url)`` links live."""
from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import duckdb
import pytest

import audit
from tests.support.attack import cli

pytestmark = pytest.mark.slow  # many real CLI subprocesses: the slow lane

OSC_TITLE = "\x1b]0;pwned\x07"
OSC_LINK = "\x1b]8;;http://evil.example/\x07click me\x1b]8;;\x07"
CSI_CLEAR = "\x1b[2J\x1b[H"
C1_CSI = "\x9b31m"
HOSTILE = f"sub{OSC_TITLE}ject{CSI_CLEAR}{C1_CSI}{OSC_LINK}"
LINK = "[click](http://evil.example/x)"
IMAGE = "![t](http://127.0.0.1:9/t.png)"


def controls(text: str) -> list[str]:
    """Control characters other than newline and tab (C0, DEL, C1)."""
    return sorted({f"U+{ord(c):04X}" for c in text if unicodedata.category(c) == "Cc" and c not in "\n\t"})


def sql(db: Path, *statements: tuple) -> None:
    con = duckdb.connect(str(db))
    try:
        for s in statements:
            con.execute(*s)
    finally:
        con.close()


@pytest.fixture(scope="module")
def hostile_db(tmp_path_factory) -> Path:
    """Six items, three models, an audit run; then a subject, an item id,
    a rationale, a family and an unparsed judge reply rewritten with
    escape sequences and Markdown links."""
    d = tmp_path_factory.mktemp("inject")
    db = d / "t.duckdb"
    q = d / "q.csv"
    q.write_text("id,subject,question,A,B,C,D,answer\n" + "".join(f"q{i},s{i % 2},Q{i}?,a,b,c,d,A\n" for i in range(6))
                 + "qx,s0,Qx?,a,b,c,d,E\n")
    p = d / "p.csv"
    p.write_text("question_id,m1,m2,m3\n" + "".join(f"q{i},B,B,{'A' if i % 2 else 'B'}\n" for i in range(6))
                 + "qx,A,A,A\n")
    audit.import_questions(q, benchmark="b", db=db)
    audit.import_predictions(p, benchmark="b", db=db, layout="wide")
    odd_id = f"q{CSI_CLEAR}x{OSC_TITLE}"
    sql(db, ("UPDATE questions SET subject = ? WHERE subject = 's0'", [HOSTILE]),
        ("UPDATE questions SET subject = ? WHERE subject = 's1'", [f"{LINK} {IMAGE}"]),
        ("UPDATE questions SET question_id = ? WHERE question_id = 'qx'", [odd_id]),
        ("UPDATE predictions SET question_id = ? WHERE question_id = 'qx'", [odd_id]),
        ("UPDATE models SET family = ? WHERE name = 'm3'", [f"fam{OSC_TITLE}{C1_CSI}"]))
    audit.analyze_benchmark("b", db=db)
    audit.add_review("b", "q1", "alice", "key_wrong", corrected_answer="B", cause="key_slip", rationale="plain", db=db)
    sql(db, ("UPDATE reviews SET rationale = ?", [f"see {OSC_LINK} {CSI_CLEAR} {LINK}"]))
    audit.import_judge(_judge_file(d), judge="j1", benchmark="b", db=db)
    sql(db, ("UPDATE judge_verdicts SET parse_ok = false, parse_error = 'unreadable', raw_reply = ?",
             [f"reply {OSC_TITLE}{CSI_CLEAR} end"]))
    return db


def _judge_file(d: Path) -> Path:
    f = d / "j.jsonl"
    f.write_text('{"loc": "q1", "llm_validation": {"answer_key_correct": true}}\n')
    return f


def live_links(text: str) -> list[str]:
    """Markdown links and images whose brackets are not escaped."""
    return re.findall(r"(?<!\\)\[[^\]\n]*(?<!\\)\]\([^)\n]*\)", text)


def terminal_clean(r) -> None:
    assert r.returncode == 0, r.stderr
    found = controls(r.stdout)
    assert not found, f"escape/control characters in the terminal output: {found}"


# ---------------------------------------------------------------- the reported cases

def test_report_table_holds_no_escape_sequence(hostile_db):
    r = cli(hostile_db, "report", "-b", "b")
    terminal_clean(r)


def test_review_list_holds_no_escape_sequence(hostile_db):
    r = cli(hostile_db, "review", "list", "-b", "b")
    terminal_clean(r)


def test_markdown_report_holds_no_live_link(hostile_db):
    r = cli(hostile_db, "report", "-b", "b", "-f", "markdown")
    assert r.returncode == 0, r.stderr
    assert not live_links(r.stdout), live_links(r.stdout)


# ---------------------------------------------------------------- further cases of our own

def test_markdown_report_holds_no_escape_sequence(hostile_db, tmp_path):
    """A Markdown file is read in terminals too (``cat report.md``)."""
    out = tmp_path / "r.md"
    r = cli(hostile_db, "report", "-b", "b", "-f", "markdown", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert not controls(out.read_text(encoding="utf-8"))


def test_models_list_holds_no_escape_sequence(hostile_db):
    terminal_clean(cli(hostile_db, "models", "list"))


def test_judge_list_unparsed_holds_no_escape_sequence(hostile_db):
    """A judge's raw reply is the least trusted text of all."""
    terminal_clean(cli(hostile_db, "judge", "list", "-b", "b", "--unparsed"))


def test_review_status_holds_no_escape_sequence(hostile_db):
    terminal_clean(cli(hostile_db, "review", "status", "-b", "b", "--all-tiers"))


def test_an_error_line_quoting_a_name_holds_no_escape_sequence(hostile_db):
    r = cli(hostile_db, "report", "-b", f"x{OSC_TITLE}{CSI_CLEAR}")
    assert r.returncode in (1, 2), r.stderr
    assert not controls(r.stderr), controls(r.stderr)


def test_report_json_keeps_the_text_exact_but_escaped(hostile_db):
    """The correct result for machines: JSON carries the stored text, with
    control characters as \\u escapes (never raw)."""
    r = cli(hostile_db, "report", "-b", "b", "-f", "json")
    assert r.returncode == 0, r.stderr
    assert not controls(r.stdout)
    assert "\\u001b" in r.stdout


def test_datasheet_holds_no_live_link_and_no_escape_sequence(hostile_db, tmp_path):
    """The datasheet (rendered by the workbench with st.markdown) already
    escapes brackets: a correct result that must stay."""
    import shutil

    from audit.export import create_version

    db = tmp_path / "copy.duckdb"
    shutil.copy(hostile_db, db)
    s = create_version("b", "1.1", db=db, exports_dir=tmp_path / "exports")
    text = (s.path / "DATASHEET.md").read_text(encoding="utf-8")
    assert not live_links(text), live_links(text)
    assert not controls(text), controls(text)
