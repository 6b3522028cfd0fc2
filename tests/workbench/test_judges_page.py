"""The workbench's LLM-judges page, run by Streamlit's own app test harness
on a real database: every tab renders without error, the self-family warning
shows, and untrusted text (judge names, raw replies) is escaped."""
from __future__ import annotations

import json

import pytest

from tests.judge.test_bias import JUDGE, build

pytest.importorskip("streamlit.testing.v1")


def _script():
    import sys
    from pathlib import Path

    root = Path.cwd()
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from workbench.views import judges

    judges.page()


@pytest.mark.slow
def test_judges_page_renders(db_path, tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from audit.analyze import analyze_benchmark
    from audit.judge import import_judge

    build(db_path, tmp_path)
    analyze_benchmark("meth", db=db_path, t1=5, t2=4)
    evil = "<script>alert(1)</script>"
    f = tmp_path / "evil.jsonl"
    f.write_text("".join(json.dumps({"loc": f"m{i:03d}", "llm_validation": {
        "answer_key_correct": i % 2 == 0, "correct_answer": None if i % 2 == 0 else "C"}}) + "\n"
        for i in range(150)), encoding="utf-8")
    import_judge(f, judge=evil, benchmark="meth", db=db_path)
    monkeypatch.setenv("AUDIT_DB", str(db_path))
    at = AppTest.from_function(_script, default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert len(at.tabs) == 8   # the reliability card first
    at.selectbox(key="judge_pick").set_value(JUDGE).run()
    assert not at.exception and not at.error
    assert any("google family" in w.value for w in at.warning)
    subheaders = [h.value for h in at.subheader]
    assert "Family pairs" in subheaders and "Cross-family panel" in subheaders
    # choose the judge with the hostile name: its text is escaped in the HTML blocks
    at.selectbox(key="judge_pick").set_value(evil).run()
    assert not at.exception
    html = " ".join(str(getattr(h, "proto", h)) for h in at.get("html"))
    assert "&lt;script&gt;" in html and "<script>alert(1)</script>" not in html.replace("\\", "")
