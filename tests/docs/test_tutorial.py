"""Every code block of the tutorial (docs/tutorial.md) runs, in order, in one
shell, as a reader would run them (``tests/test_readme_commands.run_blocks``:
this checkout's ``audit`` on the PATH, ``../shared/data`` reaching the
reference data), and the outcomes the page describes hold."""
from __future__ import annotations

import json

import pytest

from tests.conftest import SHARED_DATA
from tests.docs.test_readme import ROOT, code_blocks, run_blocks

TUTORIAL = ROOT / "docs" / "tutorial.md"

pytestmark = pytest.mark.slow


def test_tutorial_runs_end_to_end(tmp_path):
    if not (SHARED_DATA / "tlue_subset670").exists() or not (SHARED_DATA / "cmmlu_subset670").exists():
        pytest.skip(f"the tutorial needs the reference data {SHARED_DATA}/tlue_subset670 and cmmlu_subset670")
    blocks = code_blocks(TUTORIAL.read_text(encoding="utf-8"))
    assert len(blocks) >= 10 and {b[0] for b in blocks} <= {"bash", "python"}
    work = tmp_path / "work"
    work.mkdir()
    r = run_blocks(blocks, "docs/tutorial.md", work)
    assert r.returncode == 0, r.stderr[-4000:]
    out = r.stdout
    # what the page says at each step
    assert "linked 670 questions of 'tlue' to cmmlu: 0 key mismatch(es)" in out
    assert "670 items, 5 models" in out
    assert "Tier 1          3" in out
    queue = out[out.index("position"):].splitlines()[1:4]  # the queue's first three rows
    assert sorted(row.split()[1] for row in queue) == ["high_school_mathematics7", "sociology2", "virology2"], queue
    assert "disputed: sociology2" in out
    assert "(adjudication)" in out
    assert "2 corrected, 0 excluded, 668 unchanged, 3 reviewed of 670 items" in out
    exported = work / "tlue-exports" / "tlue" / "1.1"
    manifest = json.loads((exported / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["version"] == "1.1"
    for subject, loc in (("high_school_mathematics", "high_school_mathematics7"), ("sociology", "sociology2")):
        answers = {json.loads(line)["loc"]: json.loads(line)["answer"]
                   for line in (exported / f"{subject}.jsonl").read_text(encoding="utf-8").splitlines()}
        assert answers[loc] == "C", loc
    assert (work / "tlue-report.md").read_text(encoding="utf-8").strip()
