"""The examples of the extension points page (docs/reference/extension-points.md)
run, in order, in one shell, as a reader would run them
(``tests/test_readme_commands.run_blocks``), and what they assert holds: a
registered export policy and a registered queue order are used by the
library calls the page names."""
from __future__ import annotations

import pytest

from tests.docs.test_readme import ROOT, code_blocks, run_blocks

PAGE = ROOT / "docs" / "reference" / "extension-points.md"

pytestmark = pytest.mark.slow


def test_the_page_declares_both_extension_points():
    text = PAGE.read_text(encoding="utf-8")
    for name in ("audit.export.register_policy", "audit.review.register_order",
                 "audit/export/policy.py", "audit/review/queue.py"):
        assert name in text, name


def test_extension_point_examples_run(tmp_path):
    blocks = code_blocks(PAGE.read_text(encoding="utf-8"))
    assert len(blocks) == 3 and {b[0] for b in blocks} == {"python"}
    work = tmp_path / "work"
    work.mkdir()
    r = run_blocks(blocks, "docs/reference/extension-points.md", work)
    assert r.returncode == 0, r.stderr[-4000:]
    assert "two-reviewers-corrections-only 1 corrected, 0 excluded" in r.stdout
    assert "default 1 corrected, 1 excluded" in r.stdout
    assert "key_error" in r.stdout
