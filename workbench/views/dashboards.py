"""Dashboards: where the flagged items are, how much they move model scores,
how far the review has got and how much reviewers agree.  Every number comes
from ``audit`` (statistics and SQL live there); this page only lays it out."""
from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

import audit
from audit.export.corrected import corrected_key_accuracy
from workbench import session
from workbench.views import common


TIER_ORDER = [f"Tier {t}" for t in range(6)] + ["incomplete"]


def _heatmap(df: pd.DataFrame) -> alt.Chart:
    order = [t for t in TIER_ORDER if t in set(df["tier_label"])]
    x = alt.X("tier_label:O", title="Tier", sort=order, axis=alt.Axis(labelAngle=0))
    y = alt.Y("subject:N", title=None, axis=alt.Axis(labelOverlap=False, labelLimit=260))
    base = alt.Chart(df)
    return (
        base.mark_rect().encode(
            x=x, y=y,
            color=alt.Color("n:Q", title="Items", scale=alt.Scale(scheme="oranges")),
            tooltip=["subject", "tier_label", "n"],
        )
        + base.mark_text(fontSize=11).encode(x=x, y=y, text="n:Q")
    ).properties(height=max(120, 24 * df["subject"].nunique()))


def page() -> None:
    st.title("Dashboards")
    db = session.db_path()
    bench = common.benchmark_picker("dash_benchmark")
    if bench is None:
        return

    tab_tiers, tab_scen, tab_prog, tab_models, tab_kappa = st.tabs(
        ["Tiers per subject", "Scenarios", "Review progress", "Original vs corrected keys", "Reviewer agreement"])

    with tab_tiers:
        st.caption("How many items of each subject fall in each agreement tier of the current audit "
                   "(Tier 1 = many models of several families agree on an answer other than the key).")
        df = common.call(audit.review.tier_by_subject, bench, db=db, any_error=True)
        if df is not None and len(df):
            df = df.copy()
            df["tier_label"] = df["tier"].map(lambda t: "incomplete" if pd.isna(t) else f"Tier {int(t)}")
            st.altair_chart(_heatmap(df), width="stretch")
            with st.expander("As a table"):
                st.dataframe(df[["subject", "tier", "bucket", "n"]], hide_index=True, key="dash_tiers",
                             width="stretch")
        else:
            st.info("No audit results yet — run `audit analyze` first.")

    with tab_scen:
        st.caption("Conditional accuracy (correct / valid answers) per model when the flagged tiers are "
                   "left out, with 95 % Wilson intervals and the change from the baseline in points.")
        sc = common.call(audit.scenario_table, bench, db=db, any_error=True)
        if sc is not None and len(sc):
            show = sc.assign(
                accuracy=(sc["conditional_accuracy"] * 100).round(1),
                ci=[f"{lo * 100:.1f}–{hi * 100:.1f}" for lo, hi in
                    zip(sc["conditional_accuracy_low"], sc["conditional_accuracy_high"])],
                change=sc["delta_points"].round(1),
            )
            wide = show.pivot_table(index=["model", "family"], columns="scenario", values="accuracy", sort=False)
            st.dataframe(wide, width="stretch", key="dash_scenarios",
                         column_config={c: st.column_config.NumberColumn(format="%.1f %%") for c in wide.columns})
            chart = (
                alt.Chart(show)
                .mark_line(point=True)
                .encode(
                    x=alt.X("scenario:N", sort=list(dict.fromkeys(show["scenario"])), title="Scenario"),
                    y=alt.Y("change:Q", title="Change from baseline (points)"),
                    color="model:N",
                    tooltip=["model", "scenario", "accuracy", "ci", "change", "n_valid"],
                )
            )
            st.altair_chart(chart, width="stretch")
            with st.expander("Full table (with intervals)"):
                st.dataframe(show[["scenario", "model", "family", "n_questions", "n_excluded", "n_valid",
                                   "n_correct", "accuracy", "ci", "change"]],
                             hide_index=True, width="stretch")
        else:
            st.info("No scenario table yet — run `audit analyze` first.")

    with tab_prog:
        prog = common.call(audit.review.progress_by_reviewer, bench, db=db, any_error=True)
        if prog is not None and len(prog):
            st.dataframe(prog, hide_index=True, width="stretch", key="dash_progress")
            ycol = "n_items" if "n_items" in prog.columns else prog.columns[1]
            st.altair_chart(
                alt.Chart(prog).mark_bar().encode(x=alt.X(f"{ycol}:Q", title="Items reviewed"),
                                                  y=alt.Y("reviewer:N", sort="-x", title=None)),
                width="stretch")
        else:
            st.info("Nobody has saved a verdict on this benchmark yet.")

    with tab_models:
        st.caption("Conditional accuracy against the original keys and against the expert-corrected keys "
                   "(settled 'key wrong' items scored against the corrected answer; settled 'ambiguous' "
                   "and 'defective' items left out) — the same figures as the DATASHEET.md of a version "
                   "exported under the chosen policy.")
        policies = [p for p in sorted(audit.export.POLICIES) if p != "original"]
        policy = st.selectbox("Export policy", policies, index=policies.index("default"), key="dash_policy",
                              help="\n\n".join(f"**{p}**: {audit.export.POLICIES[p].description}" for p in policies))
        ca = common.call(corrected_key_accuracy, bench, policy=policy, db=db, any_error=True)
        if ca is not None and len(ca):
            st.markdown(f"{ca.attrs.get('n_corrected', 0)} key(s) corrected, "
                        f"{ca.attrs.get('n_excluded', 0)} item(s) left out as ambiguous or defective.")
            pct = {c: st.column_config.NumberColumn(format="percent") for c in ca.columns
                   if c.startswith("accuracy_")}
            pct["difference_points"] = st.column_config.NumberColumn("difference (points)", format="%+.1f")
            st.dataframe(ca, hide_index=True, width="stretch", key="dash_corrected", column_config=pct)
            st.altair_chart(
                alt.Chart(ca).mark_bar().encode(
                    x=alt.X("difference_points:Q", title="Corrected minus original (points)"),
                    y=alt.Y("model:N", sort="-x", title=None),
                    color=alt.condition("datum.difference_points >= 0", alt.value("#1a7f37"), alt.value("#b35900")),
                    tooltip=["model", "accuracy_original", "accuracy_corrected", "difference_points"]),
                width="stretch")
        else:
            st.info("No settled verdicts yet.")

    with tab_kappa:
        st.caption("Cohen's kappa between each pair of reviewers on the items both reviewed "
                   "(statsmodels), with the number of items n.")
        ka = common.call(audit.review.reviewer_agreement, bench, db=db, any_error=True)
        if ka is not None and len(ka.pairs):
            st.markdown(f"**Overall:** {ka.label} (pairs of verdicts n = {ka.overall.n})")
            st.dataframe(ka.pairs, hide_index=True, width="stretch", key="dash_kappa")
        else:
            st.info("No item has been reviewed by two people yet.")
