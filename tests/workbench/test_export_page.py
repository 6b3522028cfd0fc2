"""The workbench's Export page, run by Streamlit's AppTest on a real demo
database: versions table, policy preview, creating a version (checked on
disk and in the database), the lead-only rule, and the diff with its CSV."""
from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest
import streamlit as st

pytest.importorskip("streamlit.testing.v1")

import audit  # noqa: E402
from tests.support.common import copy_db  # noqa: E402


def _script():
    import sys
    from pathlib import Path

    root = Path.cwd()
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    import streamlit as st

    from workbench.views import export

    st.session_state["wb_reviewer"] = "Tenzin"
    export.page()


@pytest.fixture(scope="module")
def demo_template(tmp_path_factory, demo_db) -> Path:
    path = copy_db(demo_db, tmp_path_factory.mktemp("export_page") / "demo.duckdb")
    with duckdb.connect(str(path), read_only=True) as con:
        flagged = con.execute(
            "SELECT a.question_id, a.top_answer FROM current_audit a JOIN questions q USING (benchmark, question_id) "
            "WHERE a.benchmark = 'demo' AND a.tier IN (1, 2) AND a.top_answer IS NOT NULL ORDER BY q.seq LIMIT 3"
        ).fetchall()
    (q1, a1), (q2, _), (q3, _) = flagged
    for r in ("Ann", "Bo"):
        audit.review.add_review("demo", q1, r, "key_wrong", corrected_answer=a1, cause="key_slip", db=path)
        audit.review.add_review("demo", q2, r, "defective", cause="translation", db=path)
    audit.review.add_review("demo", q3, "Ann", "ambiguous", db=path)  # needs a second review: unchanged
    return path


@pytest.fixture
def env(demo_template, tmp_path, monkeypatch):
    db = tmp_path / "workbench.duckdb"
    shutil.copy(demo_template, db)
    monkeypatch.setenv("AUDIT_DB", str(db))
    monkeypatch.setenv("AUDIT_EXPORTS", str(tmp_path / "exports"))
    monkeypatch.delenv("WORKBENCH_LEADS", raising=False)
    st.cache_data.clear()
    st.cache_resource.clear()
    yield db, tmp_path / "exports"
    st.cache_data.clear()
    st.cache_resource.clear()


def _run():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_script, default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


@pytest.mark.slow
def test_preview_create_and_diff(env):
    db, exports = env
    at = _run()
    assert any("No version of this benchmark" in i.value for i in at.info)
    assert any("**1** key(s) would be corrected and **1** item(s) left out" in m.value for m in at.markdown)
    assert at.text_input(key="export_version").value == "1.1"
    at.button(key="export_create").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("Created demo 1\\.1" in s.value for s in at.success), [s.value for s in at.success]
    # the versions table lists the new version in the same run, and the release is offered as a zip
    listed = next(d.value for d in at.dataframe if "Version" in d.value.columns)
    assert list(listed["Version"]) == ["1.0", "1.1"]
    assert at.selectbox(key="export_pick").value == "1.1"
    import io
    import zipfile

    import audit

    data = audit.export.release_zip("demo", "1.1", db=db)
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    assert "demo-1.1/manifest.json" in names and "demo-1.1/DATASHEET.md" in names
    assert data == audit.export.release_zip("demo", "1.1", db=db)  # deterministic
    (exports / "demo" / "1.1" / "DATASHEET.md").write_text("changed", encoding="utf-8")
    with pytest.raises(audit.AuditError, match="no longer matches its manifest"):
        audit.export.release_zip("demo", "1.1", db=db)
    (exports / "demo" / "1.1" / "DATASHEET.md").unlink()
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("SELECT version, parent, policy, n_corrected, n_excluded FROM key_versions "
                           "ORDER BY version").fetchall()
    assert rows == [("1.0", None, "original", 0, 0), ("1.1", "1.0", "default", 1, 1)]
    assert (exports / "demo" / "1.1" / "manifest.json").exists()
    # the diff section appears with both versions and a CSV download
    assert at.selectbox(key="export_diff_a").value == "1.0" and at.selectbox(key="export_diff_b").value == "1.1"
    assert any("2 item(s) differ between 1.0 and 1.1" in m.value for m in at.markdown)
    # creating the same version again is refused with a clear message; nothing changes
    at.text_input(key="export_version").set_value("1.1").run()
    at.button(key="export_create").click().run()
    assert any("already exists" in e.value for e in at.error)
    assert sorted(p.name for p in (exports / "demo").iterdir()) == ["1.0", "1.1"]


def test_only_a_lead_may_create(env, monkeypatch):
    monkeypatch.setenv("WORKBENCH_LEADS", "Dolma")
    at = _run()
    assert at.button(key="export_create").disabled
    assert any("Only a lead reviewer" in c.value for c in at.caption)
