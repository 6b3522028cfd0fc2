"""Export page: corrected answer-key versions — the versions so far, a preview
of what a new version would change under a policy, creating it, and the
difference between two versions.  UI only — every action is one call to
``audit.export``; CSV downloads are :func:`audit.export.csv_bytes` (formula
cells neutralised)."""
from __future__ import annotations

from pathlib import Path

import streamlit as st

import audit
import audit.export.archive
import audit.export.names
from audit import i18n
from workbench import render, session
from workbench.views import common
from workbench.views.common import t


def _next_version(versions: list[str]) -> str:
    """1.1 after 1.0 / none, 1.(n+1) after 1.n, keeping the major number."""
    if not versions:
        return "1.1"
    major, minor = (versions[-1].split(".") + ["0"])[:2]
    return f"{major}.{int(minor) + 1}"


def _create(bench: str, policy: str, db) -> None:
    """on_click of Create version: runs before the page is drawn, so the
    version list below already shows the new version."""
    version = str(st.session_state.get("export_version", "")).strip()
    try:
        summary = audit.create_version(bench, version, policy=policy, db=db, actor=session.actor())
    except audit.DatabaseLockedError:
        st.session_state["export_result"] = ("error", t("common.locked"), None)
        return
    except audit.AuditError as exc:
        st.session_state["export_result"] = ("error", str(exc), None)
        return
    common.note_write()
    c = summary.counts
    st.session_state["export_result"] = (
        "success", t("export.created", bench=bench, v=summary.version, c=c["corrected"], e=c["excluded"],
                     u=c["unchanged"], n=c["items"]), str(summary.path))
    # the page drawn next offers the new version for download, and the difference moves to the new pair
    st.session_state["export_pick"] = summary.version
    if summary.parent:
        st.session_state["export_diff_a"] = summary.parent
    st.session_state["export_diff_b"] = summary.version
    st.session_state.pop("export_version_input_seed", None)


_CHANGES = {"key": "export.change_key", "inclusion": "export.change_inclusion",
            "key+inclusion": "export.change_key_inclusion", "added": "export.change_added",
            "removed": "export.change_removed"}
_CODES = {   # column → how its stored codes read
    "verdict": "verdict", "verdict_b": "verdict", "exclusion_list": "verdict", "exclusion_list_b": "verdict",
    "cause": "cause", "review_status": "status", "policy": "policy",
}


def _readable(df, a: str | None = None, b: str | None = None):
    """A table of the export stage in plain words: codes as their labels,
    yes/no for true/false, "—" for nothing, subjects by name, and headers
    that name the versions compared (display only; downloads keep the codes)."""
    out = df.copy()
    yes, no, none = t("item.yes"), t("common.no"), "—"
    for c in out.columns:
        col = out[c]
        if c in _CODES:
            out[c] = [none if v is None or v != v else (v if str(v).startswith("inconsistent")
                                                        else common.label(_CODES[c], v)) for v in col]
        elif c == "action":
            out[c] = [none if v is None or v != v else t(f"export.action_{v}") for v in col]
        elif c == "change":
            out[c] = [none if v is None or v != v else t(_CHANGES[v]) if v in _CHANGES else str(v) for v in col]
        elif c == "subject":
            out[c] = [common.subject_name(v) if isinstance(v, str) else none for v in col]
        elif col.dtype == bool or c in ("adjudicated", "included_a", "included_b", "on_disk", "intact"):
            out[c] = [none if v is None or v != v else (yes if bool(v) else no) for v in col]
        elif col.dtype.kind not in "biufcmM":   # text of any dtype: nothing reads "—", never "None"
            out[c] = [none if v is None or v != v else v for v in col]
    names = {"original_key": t("export.col_original_key"), "answer_key": t("export.col_new_key"),
             "action": t("export.col_action"), "exclusion_list": t("export.col_left_out_as"),
             "review_status": common.label("column", "status"), "change": t("export.col_change"),
             "n_items": common.label("column", "n_items")}
    if a is not None and b is not None:
        names.update(
            {
                "key_a": t("export.col_key_in", v=a),
                "key_b": t("export.col_key_in", v=b),
                "included_a": t("export.col_included_in", v=a),
                "included_b": t("export.col_included_in", v=b),
                "exclusion_list_b": t("export.col_left_out_in", v=b),
                "verdict_b": t("export.col_verdict_in", v=b),
            }
        )
    return common.columns(out.rename(columns=names))


@st.cache_data(ttl=600, show_spinner=False, max_entries=8)
def _release(bench: str, version: str, db: str, version_stamp: tuple) -> bytes:
    return audit.export.release_zip(bench, version, db=db)


def page() -> None:
    common.css()
    st.title(t("export.title"))
    st.caption(t("export.caption"))
    db = session.db_path()
    bench = common.benchmark_picker("export_benchmark")
    if bench is None:
        return
    try:
        audit.export.names.validate_benchmark(bench)
    except audit.AuditError as exc:
        st.error(str(exc))
        return

    result = st.session_state.pop("export_result", None)
    if result is not None:
        kind, message, path = result
        getattr(st, kind)(render.md(message))
        if path:
            with st.expander("DATASHEET.md", expanded=False):  # a file name, not a path
                # the datasheet escapes untrusted text itself; no raw HTML is rendered
                st.markdown((Path(path) / "DATASHEET.md").read_text(encoding="utf-8"))

    st.subheader(t("export.versions"))
    versions = common.call(audit.export.list_versions, bench, db=db, verify=True)
    if versions is None:
        return
    names = versions["version"].tolist()
    if versions.empty:
        st.info(t("export.none"))
    else:
        # where the files live on the server is for administrators only
        shown = versions.drop(columns=["data_sha256"] + ([] if session.is_admin() else
                                                         [c for c in ("path",) if c in versions.columns]))
        st.dataframe(_readable(shown), hide_index=True, key="export_versions")
        broken = versions.loc[~versions["intact"], "version"].tolist()
        if broken:
            st.warning(t("export.broken", v=", ".join(broken)))
        intact = versions.loc[versions["intact"], "version"].tolist()
        if intact:
            if st.session_state.get("export_pick") not in intact:
                st.session_state["export_pick"] = intact[-1]
            c1, c2 = st.columns([1, 2], vertical_alignment="bottom")
            pick = c1.selectbox(t("export.download_pick"), intact[::-1], key="export_pick")
            data = common.call(_release, bench, pick, str(db), tuple(versions["data_sha256"]))
            if data is not None:
                c2.download_button(
                    t("export.download", v=pick),
                    data,
                    file_name=audit.export.archive.release_name(bench, pick),
                    mime="application/zip",
                    key="export_zip",
                    icon=":material/download:",
                )

    st.subheader(t("export.new"))
    policies = audit.export.list_policies()
    choices = [p for p in policies["name"] if p != "original"]
    policy = st.selectbox(t("export.policy"), choices, index=choices.index("default"), key="export_policy",
                          format_func=lambda p: common.label("policy", p) or p)
    known = f"policy_desc.{policy}" in i18n.en.MESSAGES
    st.caption(t(f"policy_desc.{policy}") if known else policies.set_index("name").loc[policy, "description"])
    preview = common.call(audit.preview_version, bench, policy=policy, db=db)
    if preview is not None:
        c = preview.attrs["counts"]
        st.markdown(t("export.preview", c=c["corrected"], e=c["excluded"], u=c["unchanged"], n=c["items"],
                      r=c["reviewed"]))
        if not preview.empty:
            st.dataframe(_readable(preview), hide_index=True, key="export_preview")
    if st.session_state.get("export_version_input_seed") != names:
        st.session_state["export_version"] = _next_version(names)
        st.session_state["export_version_input_seed"] = names
    st.text_input(t("export.number"), key="export_version")
    leads = common.call(audit.accounts.get_leads, db=db) or []
    may_create = session.is_lead() or (not leads and session.accounts_exist() is False)  # enforced in audit too
    if not may_create:
        st.caption(t("export.lead_only"))
    st.button(t("export.create"), key="export_create", type="primary", disabled=not may_create,
              on_click=_create, args=(bench, policy, db))

    if len(names) >= 2:
        st.subheader(t("export.diff"))
        c1, c2 = st.columns(2)
        if st.session_state.get("export_diff_a") not in names:
            st.session_state["export_diff_a"] = names[-2]
        if st.session_state.get("export_diff_b") not in names:
            st.session_state["export_diff_b"] = names[-1]
        a = c1.selectbox(t("export.from"), names, key="export_diff_a")
        b = c2.selectbox(t("export.to"), names, key="export_diff_b")
        diff = common.call(audit.diff_versions, bench, a, b, db=db)
        if diff is not None:
            st.markdown(t("export.n_diff", n=len(diff), a=a, b=b))
            if not diff.empty:
                st.dataframe(_readable(diff, a=a, b=b), hide_index=True, key="export_diff")
                st.download_button(t("export.diff_csv"), audit.export.csv_bytes(diff),
                                   file_name=f"{bench}-{a}-{b}-diff.csv", mime="text/csv", key="export_diff_csv")

