"""Export page: corrected answer-key versions — the versions so far, a preview
of what a new version would change under a policy, creating it, and the
difference between two versions.  UI only — every action is one call to
``audit.export``; downloads go through ``audit._csv.write_csv``."""
from __future__ import annotations

import io

import streamlit as st

import audit
from audit._csv import write_csv
from workbench import session
from workbench.views import common


def _csv_bytes(df) -> bytes:
    buf = io.BytesIO()
    write_csv(df, buf)
    return buf.getvalue()


def _next_version(versions: list[str]) -> str:
    """1.1 after 1.0 / none, 1.(n+1) after 1.n, keeping the major number."""
    if not versions:
        return "1.1"
    major, minor = (versions[-1].split(".") + ["0"])[:2]
    return f"{major}.{int(minor) + 1}"


def page() -> None:
    st.title("Export corrected keys")
    st.caption("A version is derived from the original keys and the verdicts settled now, under a named "
               "policy; it is written once to `exports/<benchmark>/<version>/` and never changed. "
               "Version 1.0 is the original keys (created first, automatically).")
    db = session.db_path()
    bench = common.benchmark_picker("export_benchmark")
    if bench is None:
        return
    try:
        audit.validate_benchmark(bench)
    except audit.AuditError as exc:
        st.error(str(exc))
        return

    st.subheader("Versions")
    versions = common.call(audit.list_versions, bench, db=db, verify=True)
    if versions is None:
        return
    names = versions["version"].tolist()
    if versions.empty:
        st.info("No version of this benchmark has been exported yet.")
    else:
        st.dataframe(versions.drop(columns=["data_sha256"]), hide_index=True, key="export_versions")
        broken = versions.loc[~versions["intact"], "version"].tolist()
        if broken:
            st.warning(f"Files of version(s) {', '.join(broken)} no longer match their manifest (changed or "
                       "removed on disk).")

    st.subheader("New version")
    policies = audit.list_policies()
    choices = [p for p in policies["name"] if p != "original"]
    policy = st.selectbox("Policy", choices, index=choices.index("default"), key="export_policy")
    st.caption(policies.set_index("name").loc[policy, "description"])
    preview = common.call(audit.preview_version, bench, policy=policy, db=db)
    if preview is not None:
        c = preview.attrs["counts"]
        st.markdown(f"**{c['corrected']}** key(s) would be corrected and **{c['excluded']}** item(s) excluded; "
                    f"{c['unchanged']} of {c['items']} items keep their key ({c['reviewed']} reviewed).")
        if not preview.empty:
            st.dataframe(preview, hide_index=True, key="export_preview")
    version = st.text_input("Version number", value=_next_version(names), key="export_version").strip()
    leads = common.call(audit.review.get_leads, db=db) or []
    may_create = session.is_lead() or (not leads and not session.accounts_exist())  # enforced in audit too
    if not may_create:
        st.caption("Only a lead reviewer can create a version.")
    if st.button("Create version", key="export_create", type="primary", disabled=not may_create):
        with st.spinner(f"Writing {bench} {version}…"):
            summary = common.call(audit.create_version, bench, version, policy=policy, db=db,
                                  actor=session.reviewer())
        if summary is not None:
            st.success(str(summary))
            with st.expander("DATASHEET.md", expanded=False):
                # the datasheet escapes untrusted text itself; no raw HTML is rendered
                st.markdown((summary.path / "DATASHEET.md").read_text(encoding="utf-8"))
            versions = common.call(audit.list_versions, bench, db=db)
            names = versions["version"].tolist() if versions is not None else names

    if len(names) >= 2:
        st.subheader("Difference between two versions")
        c1, c2 = st.columns(2)
        a = c1.selectbox("From", names, index=len(names) - 2, key="export_diff_a")
        b = c2.selectbox("To", names, index=len(names) - 1, key="export_diff_b")
        diff = common.call(audit.diff_versions, bench, a, b, db=db)
        if diff is not None:
            st.markdown(f"{len(diff)} item(s) differ between {a} and {b}.")
            if not diff.empty:
                st.dataframe(diff, hide_index=True, key="export_diff")
                st.download_button("Download as CSV", _csv_bytes(diff), file_name=f"{bench}-{a}-{b}-diff.csv",
                                   mime="text/csv", key="export_diff_csv")
