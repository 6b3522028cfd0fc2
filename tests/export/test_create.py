"""Corrected answer-key versions on a small generic (CSV) benchmark: every
policy case, files, manifest, determinism, diff, list, name safety, crash
safety and the CLI."""
from __future__ import annotations

import csv
import hashlib
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

from audit.errors import AuditError, InputError, NotFoundError
from audit.export import create_version, diff_versions, list_versions, read_manifest, verify_version
from audit.export._create import exports_root
from audit.ingest import import_predictions, import_questions
from audit.review import add_review
from audit.store import connect
from tests.conftest import db_snapshot
from tests.support.cli_process import run_audit

B = "toy"
# question id -> (subject, question, options, key)
ITEMS = {
    "q01": ("math", "-5 + 3 = ?", ["-2", "2", "8", "-8"], "A"),  # unreviewed
    "q02": ("math", "2 + 2 = ?", ["3", "4", "5", "6"], "A"),  # agreeing key_wrong -> B
    "q03": ("math", "3 + 3 = ?", ["6", "7", "8", "9"], "B"),  # disagreeing key_wrong (B vs C... ) -> unchanged
    "q04": ("=cmd", "@SUM(1)", ["a", "b", "c", "d"], "C"),  # disputed then adjudicated key_wrong -> D
    "q05": ("lang", "Which word?", ["x", "y", "z", "w"], "A"),  # ambiguous -> excluded
    "q06": ("lang", "Broken item", ["x", "y", "z", "w"], "B"),  # defective -> excluded
    "q07": ("lang", "All fine", ["x", "y", "z", "w"], "C"),  # key_correct -> unchanged
    "q08": ("lang", "Skipped", ["x", "y", "z", "w"], "D"),  # only skip -> unchanged
    "q09": ("math", "1 + 0 = ?", ["0", "1", "2"], "A"),  # single reviewer key_wrong -> C (1 review required)
    "q10": ("math", "བོད་ཡིག་ <b>ཀ</b>", ["ཀ", "ཁ", "ག", "ང"], "D"),  # ambiguous adjudicated -> excluded
}
MODELS = ["m-alpha", "m-beta", "m-gamma"]


def _write_questions(path: Path) -> None:
    """The generic CSV layout of ``audit import questions`` (written with the
    plain csv module: this is *input*, so it is not neutralised)."""
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["id", "subject", "question", "A", "B", "C", "D", "answer"])
        w.writeheader()
        for qid, (subject, q, opts, key) in ITEMS.items():
            w.writerow({"id": qid, "subject": subject, "question": q, "answer": key,
                        **{l: t for l, t in zip("ABCD", opts)}})


def _write_predictions(path: Path) -> None:
    # deterministic but varied answers per model
    answers = {
        "m-alpha": "ABBDACDDCA",
        "m-beta": "BBCDBBCACD",
        "m-gamma": "ABCCAACDAB",
    }
    lines = ["question_id," + ",".join(MODELS)]
    for i, qid in enumerate(ITEMS):
        cells = [answers[m][i] for m in MODELS]
        if qid == "q03":
            cells[1] = ""  # one invalid / missing answer
        lines.append(qid + "," + ",".join(cells))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _reviews(db) -> None:
    r = lambda *a, **k: add_review(B, *a, db=db, **k)  # noqa: E731
    r("q02", "alice", "key_wrong", corrected_answer="B", cause="key_slip", rationale="=2+2 is 4")
    r("q02", "bob", "key_wrong", corrected_answer="B", cause="key_slip", rationale="four")
    r("q03", "alice", "key_wrong", corrected_answer="C", cause="key_slip")
    r("q03", "bob", "key_wrong", corrected_answer="D", cause="key_slip")
    r("q04", "alice", "key_correct")
    r("q04", "bob", "key_wrong", corrected_answer="D", cause="translation")
    r("q04", "carol", "key_wrong", corrected_answer="D", cause="translation", is_adjudication=True, rationale="lead")
    r("q05", "alice", "ambiguous", cause="translation")
    r("q06", "bob", "defective", cause="source_error")
    r("q07", "alice", "key_correct")
    r("q08", "alice", "skip")
    r("q09", "bob", "key_wrong", corrected_answer="C", cause="formatting")
    r("q10", "alice", "key_correct")
    r("q10", "bob", "ambiguous", cause="cultural")
    r("q10", "carol", "ambiguous", cause="cultural", is_adjudication=True)


EXPECTED_DEFAULT = {
    "q01": ("unchanged", "A"), "q02": ("corrected", "B"), "q03": ("unchanged", "B"), "q04": ("corrected", "D"),
    "q05": ("excluded", "A"), "q06": ("excluded", "B"), "q07": ("unchanged", "C"), "q08": ("unchanged", "D"),
    "q09": ("corrected", "C"), "q10": ("excluded", "D"),
}


def _toy(db, folder):
    q = folder / "q.csv"
    _write_questions(q)
    import_questions(q, benchmark=B, db=db)
    p = folder / "p.csv"
    _write_predictions(p)
    import_predictions(p, benchmark=B, layout="wide", db=db)
    _reviews(db)


@pytest.fixture
def toy_template(db_template):
    """The toy benchmark imported and reviewed once per test session (never
    written to: each test gets a copy)."""
    return db_template(_toy)


@pytest.fixture
def toy(tmp_path, toy_template):
    """A fresh copy of the toy database (a file copy instead of two imports and
    15 reviews for each test)."""
    path = tmp_path / "test.duckdb"
    shutil.copyfile(toy_template, path)
    return path


def _version_items(db, version) -> dict:
    with connect(db, read_only=True) as con:
        rows = con.execute("SELECT question_id, action, answer_key FROM key_version_items "
                           "WHERE benchmark = ? AND version = ?", [B, version]).fetchall()
    return {q: (a, k) for q, a, k in rows}


def test_default_policy_each_case(toy, tmp_path):
    out = tmp_path / "exports"
    s = create_version(B, "1.1", db=toy, exports_dir=out)
    assert s.auto_created == ("1.0",) and s.parent == "1.0"
    assert _version_items(toy, "1.1") == EXPECTED_DEFAULT
    assert set(_version_items(toy, "1.0").values()) <= {("unchanged", k) for k in "ABCD"}
    assert s.counts == {"items": 10, "corrected": 3, "excluded": 3, "unchanged": 4, "reviewed": 8}

    v = out / B / "1.1"
    # native generic layout, lossless JSONL: keys as derived, text as imported
    recs = [json.loads(l) for l in (v / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {r["id"]: r["answer"] for r in recs} == {q: k for q, (_, k) in EXPECTED_DEFAULT.items()}
    assert {r["id"]: r["question"] for r in recs} == {q: t[1] for q, t in ITEMS.items()}
    assert "D" not in recs[8]  # q09 has three options: no gap-filling column
    # exclusion lists
    assert (v / "excluded.txt").read_text() == "q05\nq06\nq10\n"
    assert (v / "excluded-ambiguous.txt").read_text() == "q05\nq10\n"
    assert (v / "excluded-defective.txt").read_text() == "q06\n"
    # Parquet
    pq = pd.read_parquet(v / "questions.parquet")
    assert pq["question_id"].tolist() == list(ITEMS)
    assert dict(zip(pq["question_id"], pq["answer_key"])) == {q: k for q, (_, k) in EXPECTED_DEFAULT.items()}
    assert dict(zip(pq["question_id"], pq["included"])) == {
        q: a != "excluded" for q, (a, _) in EXPECTED_DEFAULT.items()
    }
    # CHANGELOG: changed + reviewed items, with verdicts, reviewers and dates; neutralised cells
    ch = pd.read_csv(v / "CHANGELOG.csv", dtype=str, keep_default_na=False)
    assert ch["question_id"].tolist() == ["q02", "q03", "q04", "q05", "q06", "q07", "q09", "q10"]
    row = ch.set_index("question_id")
    assert row.loc["q02", ["old_key", "new_key", "verdict", "cause"]].tolist() == ["A", "B", "key_wrong", "key_slip"]
    assert row.loc["q02", "reviewers"] == "alice; bob" and row.loc["q02", "review_dates"]
    assert row.loc["q02", "rationale"] == "alice: =2+2 is 4 | bob: four"
    assert row.loc["q03", "review_status"] == "disputed" and row.loc["q03", "action"] == "unchanged"
    assert row.loc["q04", "adjudicated"] == "yes" and row.loc["q04", "reviewers"].startswith("carol (adjudication)")
    assert row.loc["q04", "subject"] == "'=cmd"  # formula neutralised
    # q01 (unreviewed) and q08 (only a skip, which is not a review) are not in the changelog
    # manifest: counts, policy, sha256 of every file
    m = read_manifest(v)
    assert m["version"] == "1.1" and m["parent"] == "1.0" and m["policy"]["name"] == "default"
    assert m["counts"] == s.counts
    assert m["audit_run"] is None  # never analysed
    assert set(m["files"]) == {p.relative_to(v).as_posix() for p in v.rglob("*") if p.is_file()} - {"manifest.json"}
    for name, h in m["files"].items():
        assert hashlib.sha256((v / name).read_bytes()).hexdigest() == h["sha256"]
    assert verify_version(v) == []
    # DATASHEET: counts by cause, reviewers with kappa, per-model table; escaped text
    ds = (v / "DATASHEET.md").read_text(encoding="utf-8")
    assert "| corrected | Answer-key slip | 1 |" in ds and "| excluded | Cultural context | 1 |" in ds
    assert "| alice | bob | 4 |" in ds  # q03, q04, q10 and q02 reviewed by both
    assert "<b>" not in ds and "བོད་ཡིག་ &lt;b&gt;ཀ&lt;/b&gt;" in ds  # untrusted text escaped, shown literally
    for model in MODELS:
        assert f"| {model} | " in ds


def test_generic_csv_is_neutralised_and_jsonl_round_trips(toy, tmp_path):
    out = tmp_path / "exports"
    create_version(B, "1.1", db=toy, exports_dir=out)
    v = out / B / "1.1"
    rows = list(csv.DictReader(io.StringIO((v / "questions.csv").read_text(encoding="utf-8-sig"))))
    by = {r["id"]: r for r in rows}
    assert by["q01"]["question"] == "'-5 + 3 = ?" and by["q01"]["A"] == "'-2" and by["q04"]["question"] == "'@SUM(1)"
    assert by["q02"]["answer"] == "B" and by["q09"]["D"] == ""
    # re-import the lossless JSONL as another benchmark: identical questions, keys changed exactly per policy
    import_questions(v / "questions.jsonl", benchmark="toy-v1.1", db=toy)
    with connect(toy, read_only=True) as con:
        a, b = (con.execute("SELECT question_id, subject, stem, options, language, script, answer_key FROM questions "
                            "WHERE benchmark = ? ORDER BY seq", [x]).fetchall() for x in (B, "toy-v1.1"))
    assert [r[:6] for r in a] == [r[:6] for r in b]
    changed = {r[0] for r, s in zip(a, b) if r[6] != s[6]}
    assert changed == {q for q, (act, _) in EXPECTED_DEFAULT.items() if act == "corrected"}
    # the spreadsheet CSV re-imports too; only the neutralised cells differ, by the leading quote
    import_questions(v / "questions.csv", benchmark="toy-csv", db=toy)
    with connect(toy, read_only=True) as con:
        c = con.execute("SELECT question_id, subject, stem, options, answer_key FROM questions "
                        "WHERE benchmark = 'toy-csv' ORDER BY seq").fetchall()
    unq = lambda t: t[1:] if t.startswith("'") and t[1:2] in ("=", "+", "-", "@") else t  # noqa: E731
    assert [(r[0], unq(r[1]), unq(r[2]), [(o["label"], unq(o["text"])) for o in r[3]], r[4]) for r in c] == \
        [(r[0], r[1], r[2], [(o["label"], o["text"]) for o in r[3]], r[6]) for r in b]
    assert sum(r[2].startswith("'") for r in c) == 2  # "-5 + 3 = ?" and "@SUM(1)"


@pytest.mark.slow
def test_other_policies(toy, tmp_path):
    out = tmp_path / "exports"
    create_version(B, "1.1", policy="corrections-only", db=toy, exports_dir=out)
    got = _version_items(toy, "1.1")
    assert {q for q, (a, _) in got.items() if a == "excluded"} == set()
    assert {q for q, (a, _) in got.items() if a == "corrected"} == {"q02", "q04", "q09"}
    create_version(B, "1.2", policy="double-reviewed", db=toy, exports_dir=out)
    got = _version_items(toy, "1.2")
    # q09 (one reviewer) and q05/q06 (one reviewer) no longer count; adjudicated q04/q10 still do
    assert {q for q, (a, _) in got.items() if a == "corrected"} == {"q02", "q04"}
    assert {q for q, (a, _) in got.items() if a == "excluded"} == {"q10"}
    create_version(B, "1.3", policy="adjudicated-only", db=toy, exports_dir=out)
    got = _version_items(toy, "1.3")
    assert {q for q, (a, _) in got.items() if a != "unchanged"} == {"q04", "q10"}
    assert (out / B / "1.2" / "excluded-ambiguous.txt").read_text() == "q10\n"
    assert (out / B / "1.2" / "excluded-defective.txt").read_text() == ""
    assert not (out / B / "1.1" / "excluded-ambiguous.txt").exists()  # corrections-only has no exclusion lists
    assert (out / B / "1.1" / "excluded.txt").read_text() == ""
    with pytest.raises(InputError, match="unknown export policy"):
        create_version(B, "1.4", policy="nope", db=toy, exports_dir=out)


def test_changelog_tier_judge_and_manifest_model_set(toy, tmp_path):
    """Tier and agreement count come from the current audit run, the judge
    verdict from judge_verdicts; the manifest records the run's model set
    and tier rule."""
    from audit.analyze import analyze_benchmark

    analyze_benchmark(B, db=toy)
    with connect(toy) as con:
        con.execute(
            "INSERT INTO judge_verdicts (benchmark, question_id, judge, prompt_version, answer_key_correct, "
            "correct_answer, parse_ok, source) VALUES "
            "('toy', 'q02', 'judge-b', 'p1', false, 'B', true, 'import'), "
            "('toy', 'q02', 'judge-a', 'p1', true, NULL, true, 'import'), "
            "('toy', 'q07', 'judge-a', 'p1', NULL, NULL, false, 'import')")
        tiers = dict(con.execute("SELECT question_id, tier FROM current_audit WHERE benchmark = 'toy'").fetchall())
        agreement = dict(con.execute(
            "SELECT question_id, agreement_count FROM current_audit WHERE benchmark = 'toy'").fetchall())
        run = con.execute("SELECT run_id, models FROM audit_runs WHERE benchmark = 'toy'").fetchone()
    out = tmp_path / "exports"
    create_version(B, "1.1", db=toy, exports_dir=out)
    ch = pd.read_csv(out / B / "1.1" / "CHANGELOG.csv", dtype=str, keep_default_na=False).set_index("question_id")
    for qid in ch.index:
        assert ch.loc[qid, "tier"] == str(tiers[qid]) and ch.loc[qid, "agreement_count"] == str(agreement[qid])
    assert ch.loc["q02", "judge_verdict"] == "judge-a: key correct; judge-b: key wrong -> B"
    assert ch.loc["q07", "judge_verdict"] == "judge-a: no verdict"
    assert ch.loc["q03", "judge_verdict"] == ""
    m = read_manifest(out / B / "1.1")
    assert m["audit_run"]["run_id"] == run[0] and m["audit_run"]["models"] == sorted(run[1]) == MODELS
    assert m["audit_run"]["tier_rule"]["t1"] >= 1


@pytest.mark.slow
def test_deterministic_byte_identical(toy, tmp_path):
    copy = tmp_path / "copy.duckdb"
    shutil.copy(toy, copy)
    a, b = tmp_path / "ea", tmp_path / "eb"
    create_version(B, "1.1", db=toy, exports_dir=a)
    create_version(B, "1.1", db=copy, exports_dir=b)
    for version in ("1.0", "1.1"):
        fa = sorted(p for p in (a / B / version).rglob("*") if p.is_file())
        fb = sorted(p for p in (b / B / version).rglob("*") if p.is_file())
        assert [p.relative_to(a) for p in fa] == [p.relative_to(b) for p in fb]
        for pa, pb in zip(fa, fb):
            if pa.name != "manifest.json":
                assert pa.read_bytes() == pb.read_bytes(), pa.name
        ma, mb = read_manifest(a / B / version), read_manifest(b / B / version)
        ma.pop("created_at"), mb.pop("created_at")
        assert ma == mb


@pytest.mark.slow
def test_immutable_and_refused_names(toy, tmp_path):
    out = tmp_path / "exports"
    create_version(B, "1.1", db=toy, exports_dir=out)
    before = db_snapshot(toy)
    listing = sorted(p.name for p in (out / B).iterdir())
    with pytest.raises(AuditError, match="already exists.*immutable"):
        create_version(B, "1.1", db=toy, exports_dir=out)
    with pytest.raises(AuditError, match="already exists"):
        create_version(B, "1.0", db=toy, exports_dir=out)
    for bad in ("../x", "/tmp/x", "1.1/../../x", "1", "1.01", "v1.2", "", "1.2 ", "1..2", "..", "1.2\n"):
        with pytest.raises(InputError, match="invalid version name"):
            create_version(B, bad, db=toy, exports_dir=out)
    for bad in ("../x", "/tmp/x", "a/b", "..", ".hidden", "", "a\\b"):
        with pytest.raises(InputError, match="invalid benchmark name"):
            create_version(bad, "1.2", db=toy, exports_dir=out)
    with pytest.raises(InputError, match="must be greater"):
        create_version(B, "1.0.5", db=toy, exports_dir=out)
    with pytest.raises(NotFoundError):
        create_version("nobench", "1.2", db=toy, exports_dir=out)
    assert db_snapshot(toy) == before
    assert sorted(p.name for p in (out / B).iterdir()) == listing
    assert not Path("/tmp/x").exists() or not (Path("/tmp/x") / "manifest.json").exists()
    assert not (tmp_path / "x").exists()


def test_original_version_rules(toy, tmp_path, capsys):
    out = tmp_path / "exports"
    with pytest.raises(InputError, match="always the original keys"):
        create_version(B, "1.0", policy="corrections-only", db=toy, exports_dir=out)
    s = create_version(B, "1.0", db=toy, exports_dir=out, progress=True)
    assert "export toy 1.0" in capsys.readouterr().err  # the tqdm bar went to stderr
    assert s.policy == "original" and s.parent is None and s.counts["corrected"] == s.counts["excluded"] == 0
    assert (out / B / "1.0" / "excluded.txt").read_bytes() == b""
    s2 = create_version(B, "1.10", db=toy, exports_dir=out)
    assert s2.auto_created == () and s2.parent == "1.0"
    with pytest.raises(InputError, match="must be greater"):
        create_version(B, "1.9", db=toy, exports_dir=out)
    assert list_versions(B, db=toy)["version"].tolist() == ["1.0", "1.10"]


@pytest.mark.slow
@pytest.mark.parametrize("where", ["parquet", "after_rename"])
def test_crash_leaves_no_version(toy, tmp_path, monkeypatch, where):
    import audit.export._create as create_mod

    out = tmp_path / "exports"
    create_version(B, "1.0", db=toy, exports_dir=out)
    before = db_snapshot(toy)
    if where == "parquet":
        real = create_mod.write_parquet

        def broken(folder, *a, **k):
            real(folder, *a, **k)
            (folder / "questions.parquet").write_bytes(b"PAR1 half")
            raise OSError("disk full (injected)")

        monkeypatch.setattr(create_mod, "write_parquet", broken)
    else:
        real = create_mod.publish

        def broken(tmp, target):
            real(tmp, target)
            assert target.is_dir()
            raise OSError("power cut right after the rename (injected)")

        monkeypatch.setattr(create_mod, "publish", broken)
    with pytest.raises(OSError, match="injected"):
        create_version(B, "1.1", db=toy, exports_dir=out)
    assert sorted(p.name for p in (out / B).iterdir()) == ["1.0"]  # no 1.1, no hidden partial folder
    assert db_snapshot(toy) == before
    monkeypatch.undo()
    assert create_version(B, "1.1", db=toy, exports_dir=out).counts["corrected"] == 3


@pytest.mark.slow
def test_diff_and_list(toy, tmp_path):
    out = tmp_path / "exports"
    create_version(B, "1.1", db=toy, exports_dir=out)
    d = diff_versions(B, "1.0", "1.1", db=toy)
    changed = {q: a for q, (a, _) in EXPECTED_DEFAULT.items() if a != "unchanged"}
    assert d["question_id"].tolist() == list(changed)
    assert dict(zip(d["question_id"], d["change"])) == {q: "key" if a == "corrected" else "inclusion"
                                                        for q, a in changed.items()}
    assert d.set_index("question_id").loc["q02", ["key_a", "key_b"]].tolist() == ["A", "B"]
    assert diff_versions(B, "1.1", "1.1", db=toy).empty
    back = diff_versions(B, "1.1", "1.0", db=toy)
    assert set(back["question_id"]) == set(changed)
    with pytest.raises(NotFoundError, match="no version 2.0"):
        diff_versions(B, "1.0", "2.0", db=toy)
    # a later adjudication reverses q02 -> 1.2 differs from 1.1 only there
    add_review(B, "q02", "carol", "key_correct", is_adjudication=True, db=toy)
    create_version(B, "1.2", db=toy, exports_dir=out)
    d12 = diff_versions(B, "1.1", "1.2", db=toy)
    assert d12[["question_id", "change", "key_a", "key_b"]].values.tolist() == [["q02", "key", "B", "A"]]
    lst = list_versions(B, db=toy, verify=True)
    assert lst["version"].tolist() == ["1.0", "1.1", "1.2"]
    assert lst["parent"].tolist()[1:] == ["1.0", "1.1"]
    assert lst[["n_corrected", "n_excluded"]].values.tolist() == [[0, 0], [3, 3], [2, 3]]
    assert lst["intact"].all()
    (out / B / "1.1" / "excluded.txt").write_text("tampered\n")
    assert list_versions(B, db=toy, verify=True)["intact"].tolist() == [True, False, True]


def test_datasheet_accuracy_matches_independent_computation(toy, tmp_path):
    """Conditional accuracy and Wilson CI per model, recomputed here from the
    raw prediction file and the expected keys with statsmodels directly."""
    from audit.export._create import _derive, _model_comparison
    from audit.export.policy import get_policy

    d = _derive(B, "1.1", get_policy("default"), toy)
    got, _ = _model_comparison(B, toy, d.items, None)
    with connect(toy, read_only=True) as con:
        preds = con.execute("SELECT question_id, model, answer FROM predictions WHERE benchmark = ?", [B]).df()
    orig = {q: t[3] for q, t in ITEMS.items()}
    new = {q: k for q, (a, k) in EXPECTED_DEFAULT.items() if a != "excluded"}
    for model in MODELS:
        p = preds[(preds["model"] == model) & preds["answer"].notna()]
        for keys, suffix in ((orig, "original"), (new, "corrected")):
            sub = p[p["question_id"].isin(keys)]
            n = len(sub)
            k = int((sub["answer"] == sub["question_id"].map(keys)).sum())
            lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
            row = got.set_index("model").loc[model]
            assert row[f"n_{suffix}"] == n
            assert row[f"acc_{suffix}"] == pytest.approx(k / n)
            assert row[f"ci_low_{suffix}"] == pytest.approx(lo) and row[f"ci_high_{suffix}"] == pytest.approx(hi)
        assert row["delta_points"] == pytest.approx(100 * (row["acc_corrected"] - row["acc_original"]))


def test_exports_root_override(monkeypatch, tmp_path):
    monkeypatch.setenv("AUDIT_EXPORTS", str(tmp_path / "env"))
    assert exports_root() == tmp_path / "env"
    assert exports_root(tmp_path / "arg") == tmp_path / "arg"
    monkeypatch.delenv("AUDIT_EXPORTS")
    assert exports_root().name == "exports"


@pytest.mark.slow
def test_cli(toy, tmp_path, monkeypatch, capsys):
    from audit.cli import main

    out = tmp_path / "exports"
    monkeypatch.setenv("AUDIT_EXPORTS", str(out))

    def run(*args):
        monkeypatch.setattr(sys, "argv", ["audit", *args])
        code = 0
        try:
            main()
        except SystemExit as exc:
            code = exc.code or 0
        cap = capsys.readouterr()
        return code, cap.out, cap.err

    code, so, se = run("export", "create", "--benchmark", B, "--version", "1.1", "--dry-run", "--db", str(toy))
    assert code == 0, se
    assert "would have 3 corrected, 3 excluded" in so and "q02" in so and not out.exists()
    code, so, se = run("export", "create", "--benchmark", B, "--version", "1.1", "--db", str(toy))
    assert code == 0, se
    assert "created toy 1.1" in so and (out / B / "1.1" / "manifest.json").exists()
    code, so, se = run("export", "create", "--benchmark", B, "--version", "1.1", "--db", str(toy))
    assert code == 1 and se.startswith("error: version 1.1 of 'toy' already exists")
    assert len(se.strip().splitlines()) == 1
    code, so, se = run("export", "create", "-b", B, "-v", "../x", "--db", str(toy))
    assert code == 1 and "invalid version name" in se
    code, so, se = run("export", "diff", B, "1.0", "1.1", "--format", "csv", "--db", str(toy))
    assert code == 0, se
    rows = list(csv.DictReader(io.StringIO(so)))
    assert [x["question_id"] for x in rows] == ["q02", "q04", "q05", "q06", "q09", "q10"]
    code, so, se = run("export", "diff", B, "1.0", "1.1", "--output", str(tmp_path / "d.csv"), "-f", "csv",
                       "--db", str(toy))
    assert code == 0 and (tmp_path / "d.csv").read_text(encoding="utf-8").splitlines()[1].startswith('"q02"')
    code, so, se = run("export", "list", B, "--db", str(toy))
    assert code == 0 and "1.0" in so and "default" in so
    code, so, se = run("export", "policies")
    assert code == 0 and "default:" in so and "corrections-only:" in so


def test_cli_subprocess_error_is_one_line(toy, tmp_path):
    r = run_audit(["export", "create", "-b", B, "-v", "/tmp/x",
                   "--db", str(toy), "--exports-dir", str(tmp_path / "e")],
                  timeout=120)
    assert r.returncode == 1 and r.stderr.startswith("error: invalid version name '/tmp/x'")
    assert len(r.stderr.strip().splitlines()) == 1


def test_stale_partial_folders_are_cleaned_but_live_ones_kept(toy, tmp_path):
    out = tmp_path / "exports"
    (out / B).mkdir(parents=True)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = out / B / f".1.1.partial-{int(dead.stdout)}-abc"
    live = out / B / f".1.1.partial-{__import__('os').getpid()}-xyz"
    for d in (stale, live):
        d.mkdir()
        (d / "questions.csv").write_text("half")
    create_version(B, "1.1", db=toy, exports_dir=out)
    assert not stale.exists() and live.exists()
    assert sorted(p.name for p in (out / B).iterdir() if not p.name.startswith(".")) == ["1.0", "1.1"]
    assert [r for r in list_versions(B, db=toy)["version"]] == ["1.0", "1.1"]


def test_tibetan_and_lower_case_keys_keep_their_style():
    from audit.export._write import _same_script_label

    assert _same_script_label("ཁ", "C") == "ག"
    assert _same_script_label("b", "D") == "d"
    assert _same_script_label("B", "D") == "D"


@pytest.mark.slow
def test_concurrent_creates_of_one_version(toy, tmp_path):
    """Two processes export the same new version at once: exactly one wins,
    the other exits 1 with a one-line error (the version exists / was created
    meanwhile / the database is busy), and folder and record agree."""
    out = tmp_path / "exports"
    create_version(B, "1.0", db=toy, exports_dir=out)
    cmd = [sys.executable, "-m", "audit.cli", "export", "create", "-b", B, "-v", "1.1", "--db", str(toy),
           "--exports-dir", str(out)]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    res = [(p.wait(timeout=180), p.stdout.read(), p.stderr.read()) for p in procs]
    codes = sorted(r[0] for r in res)
    assert codes == [0, 1], res
    err = next(r[2] for r in res if r[0] == 1)
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1, err
    assert sorted(p.name for p in (out / B).iterdir()) == ["1.0", "1.1"]
    assert list_versions(B, db=toy, verify=True)["intact"].tolist() == [True, True]


def test_preview_matches_the_created_version_and_writes_nothing(toy, tmp_path):
    from audit.export import preview_version

    before = db_snapshot(toy)
    pv = preview_version(B, db=toy)
    assert db_snapshot(toy) == before
    assert dict(zip(pv["question_id"], pv["action"])) == {q: a for q, (a, _) in EXPECTED_DEFAULT.items()
                                                         if a != "unchanged"}
    s = create_version(B, "1.1", db=toy, exports_dir=tmp_path / "e")
    assert pv.attrs["counts"] == s.counts
    assert preview_version(B, policy="corrections-only", db=toy)["action"].eq("corrected").all()
