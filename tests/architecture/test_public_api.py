"""The public API of a notebook: an explicit ``audit.__all__`` of the entry
points, no name shadowing a package, every package with an explicit
``__all__``, at most 150 names in all, and the README's "Python API" example
runs.  A fresh interpreter gets the same results as one that imported every
package first (nothing registers itself at import time)."""
from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

import audit

REPO = Path(__file__).resolve().parents[2]
STAGES = ("ingest", "predict", "analyze", "judge", "review", "sync", "export")
#: Every package of the library: the stages and the layers below them.
PACKAGES = ("store", "accounts", "llm", "i18n", *STAGES)
MAX_PUBLIC_NAMES = 150


def test_all_is_explicit_small_and_resolves():
    tree = ast.parse((REPO / "audit" / "__init__.py").read_text(encoding="utf-8"))
    # no star import in the package or any stage
    for init in [REPO / "audit" / "__init__.py", *(REPO / "audit" / s / "__init__.py" for s in PACKAGES)]:
        stars = [n for n in ast.walk(ast.parse(init.read_text(encoding="utf-8")))
                 if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)]
        assert not stars, f"{init}: star import"
    assert any(isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in n.targets)
               for n in tree.body)
    assert 30 <= len(audit.__all__) <= 45, len(audit.__all__)
    assert len(set(audit.__all__)) == len(audit.__all__)
    for name in audit.__all__:
        assert getattr(audit, name) is not None, name
        assert name not in STAGES + ("cli", "demo"), f"{name} shadows a sub-package"
    assert {"connect", "init_db", "DbPath", "analyze_benchmark", "build_report", "run_judge", "run_predict",
            "RunOptions", "add_review", "create_version", "corrected_key_accuracy", "VERDICTS"} <= set(audit.__all__)


def test_stages_stay_modules():
    for stage in PACKAGES:
        assert getattr(audit, stage).__name__ == f"audit.{stage}"
    ns: dict = {}
    exec("from audit import *", ns)
    assert set(audit.__all__) <= set(ns)
    assert not set(STAGES) & set(ns)
    assert not callable(getattr(audit.analyze, "report", None))  # no function hides a module of the stage


def test_every_stage_has_an_explicit_all_of_defined_names():
    for stage in PACKAGES:
        mod = importlib.import_module(f"audit.{stage}")
        assert isinstance(mod.__all__, list) and mod.__all__, stage
        missing = [n for n in mod.__all__ if not hasattr(mod, n)]
        assert not missing, f"audit.{stage}.__all__ names what it does not define: {missing}"


def test_the_public_names_are_few():
    """``audit.__all__`` and the ``__all__`` of every package together list at most
    150 distinct names (the stages' alone, with ``audit``'s, at most 150 too)."""
    names = set(audit.__all__)
    stage_total = len(audit.__all__)
    for pkg in PACKAGES:
        mod = importlib.import_module(f"audit.{pkg}")
        names |= set(mod.__all__)
        stage_total += len(mod.__all__) if pkg in STAGES else 0
    assert len(names) <= MAX_PUBLIC_NAMES, f"{len(names)} public names"
    assert stage_total <= MAX_PUBLIC_NAMES, f"{stage_total} names in audit.__all__ and the stages' __all__"


@pytest.fixture(scope="module")
def demo_db_with_versions(tmp_path_factory):
    """The demo (without accounts) with one Tier 1 key corrected by two
    reviewers: the report then has sections from the review and export stages."""
    from audit.demo import build_demo

    db = tmp_path_factory.mktemp("report") / "demo.duckdb"
    build_demo(db)
    item = audit.review_queue("demo", db=db).iloc[0]
    for reviewer in ("Pema", "Dolma"):
        audit.add_review("demo", item["question_id"], reviewer, "key_wrong", corrected_answer=item["top_answer"],
                         cause="key_slip", db=db)
    return db


@pytest.mark.parametrize(
    "code",
    [
        "import audit, json, sys; rep = audit.build_report('demo', db=sys.argv[1]); "
        "print(json.dumps(sorted(rep['extra'])))",
        "import audit, audit.review, audit.export, audit.judge, json, sys; "
        "rep = audit.build_report('demo', db=sys.argv[1]); "
        "print(json.dumps(sorted(rep['extra'])))",
    ],
)
@pytest.mark.slow  # fresh interpreters analysing the demo
def test_the_report_is_the_same_whatever_was_imported_first(code, demo_db_with_versions):
    """The full report's sections come from :mod:`audit.report`, which calls
    each stage: a fresh interpreter gets the same sections as one that
    imported every stage first."""
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code, str(demo_db_with_versions)], capture_output=True, text=True,
                         check=True, cwd=REPO, env={**__import__("os").environ, "PYTHONPATH": str(REPO)})
    sections = json.loads(out.stdout)
    want = sorted({**audit.review.report_sections("demo", db=demo_db_with_versions),
                   **audit.export.report_section("demo", db=demo_db_with_versions)})
    assert sections == want and len(want) >= 3, sections


def test_import_auto_needs_no_prior_import(tmp_path):
    """``audit import auto`` of a judge file in a fresh interpreter: the
    judge stage's importer is called by :mod:`audit.auto` itself (the demo
    has accounts, so the import names its lead)."""
    import subprocess
    import sys

    db = tmp_path / "a.duckdb"
    code = (
        "import sys; from audit.demo import make_demo; make_demo(sys.argv[1]); "
        "from audit.auto import import_auto; import pathlib; "
        "p = pathlib.Path(sys.argv[2]); "
        "p.write_text('question_id,judge,key_correct\\nbo-multiplication-016,j1,false\\n'); "
        "s = import_auto(p, benchmark='demo', db=sys.argv[1], actor='lead'); print(type(s).__name__)"
    )
    out = subprocess.run([sys.executable, "-c", code, str(db), str(tmp_path / "verdicts.csv")], capture_output=True,
                         text=True, cwd=REPO, env={**__import__("os").environ, "PYTHONPATH": str(REPO)})
    assert out.returncode == 0, out.stderr
    assert "Import" in out.stdout, out.stdout


def test_names_outside_the_api_are_not_attributes():
    """A stage's name is reached through its stage, never through ``audit``."""
    assert "list_reviews" in audit.review.__all__
    for name in ("list_reviews", "no_such_name"):
        with pytest.raises(AttributeError):
            getattr(audit, name)


@pytest.mark.slow
def test_readme_python_example_runs(tmp_path, monkeypatch, capsys):
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Python API"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md (Python API)", "exec"), {})
    out = capsys.readouterr().out
    assert "tier" in out and "accuracy" in out and "'items': 300" in out
    assert (tmp_path / "demo.duckdb").exists()
