"""Dashboards: where the flagged items are, how much they move model scores,
how far the review has got and how much reviewers agree.  Every number comes
from ``audit`` (statistics and SQL live there); this page only lays it out."""
from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

import audit
import audit.analyze.reporting
import audit.analyze.scenarios
import audit.export.policy
import audit.export.scores
import audit.report.compare
import audit.review.agreement
import audit.review.changes
import audit.review.dashboard
from audit import i18n
from workbench import render, session
from workbench.views import admin_trust, common
from workbench.views.common import t

INT_AXIS = {"format": "d", "tickMinStep": 1}  # counts: whole numbers on the axis


BUCKET_ORDER = [f"tier{n}" for n in range(6)] + ["incomplete", "multi_answer", "no_prediction", "needs_two_models"]


def _bucket_label(bucket: str) -> str:
    """An audit bucket (``tier0`` … ``tier5``, ``incomplete``, ``multi_answer``,
    ``no_prediction``, ``needs_two_models``) in the session's language."""
    if bucket.startswith("tier") and bucket[4:].isdigit():
        return t("queue.tier_n", n=int(bucket[4:]))
    key = f"dash.bucket_{bucket}"
    return t(key) if key in i18n.en.MESSAGES else bucket


def _tip(field: str, kind: str = "column", code: str | None = None) -> alt.Tooltip:
    """A tooltip field titled with its translated column name."""
    return alt.Tooltip(field, title=common.label(kind, code or field.split(":")[0]))


def _heatmap(df: pd.DataFrame) -> alt.Chart:
    order = [_bucket_label(b) for b in BUCKET_ORDER if b in set(df["bucket"])]
    x = alt.X("tier_label:O", title=t("queue.tier"), sort=order, axis=alt.Axis(labelAngle=0))
    y = alt.Y("subject_label:N", title=None, axis=alt.Axis(labelOverlap=False, labelLimit=260))
    base = alt.Chart(df)
    return (
        base.mark_rect().encode(
            x=x, y=y,
            color=alt.Color("n:Q", title=common.label("column", "n"), scale=alt.Scale(scheme="oranges"),
                            legend=alt.Legend(format="d", tickMinStep=1)),
            tooltip=[_tip("subject_label:N", code="subject"), _tip("tier_label:O", code="tier"), _tip("n:Q")],
        )
        + base.mark_text(fontSize=11).encode(x=x, y=y, text="n:Q")
    ).properties(height=max(120, 24 * df["subject_label"].nunique()))


def page() -> None:
    common.css()
    st.title(t("dash.title"))
    db = session.db_path()
    bench = common.benchmark_picker("dash_benchmark")
    if bench is None:
        return
    tabs = st.tabs([t("dash.tab_cost"), t("dash.tab_tiers"), t("dash.tab_scenarios"), t("dash.tab_progress"),
                    t("dash.tab_corrected"), t("dash.tab_kappa"), t("dash.tab_blind"), t("dash.tab_since"),
                    t("dash.tab_compare"), t("dash.tab_reviewers")])
    for tab, show in zip(tabs, (_cost, _tiers, _scenarios, _progress, _corrected, _kappa, _blind, _since, _compare,
                                _reviewers)):
        with tab:
            show(bench, db)


def _tiers(bench: str, db) -> None:
    """Where the flagged items are: tiers by subject, as a heat map."""
    st.caption(t("dash.tiers_caption"))
    df = common.call(audit.review.dashboard.tier_by_subject, bench, db=db, any_error=True)
    if df is None or not len(df):
        st.info(t("dash.no_audit"))
        return
    df = df.copy()
    df["tier_label"] = df["bucket"].map(_bucket_label)
    df["subject_label"] = df["subject"].map(common.subject_name)
    st.altair_chart(_heatmap(df), width="stretch")
    with st.expander(t("dash.as_table")):
        table = df[["subject_label", "tier_label", "n"]].rename(columns={
            "subject_label": "subject", "tier_label": "tier"})
        st.dataframe(common.columns(table), hide_index=True, key="dash_tiers", width="stretch")


def _scenarios(bench: str, db) -> None:
    """Accuracy of each model when the flagged tiers are left out, and how
    much of the change key errors explain (:func:`audit.analyze.scenarios.scenario_summary`)."""
    st.caption(t("dash.scen_caption"))
    sc = common.call(audit.scenario_table, bench, db=db, any_error=True)
    if sc is None or not len(sc):
        st.info(t("dash.no_scen"))
        return
    show = sc.assign(   # rounded as `audit report` prints them (2 decimals)
        accuracy=(sc["conditional_accuracy"] * 100).round(2),
        ci=[f"{lo * 100:.2f}–{hi * 100:.2f}" for lo, hi in
            zip(sc["conditional_accuracy_low"], sc["conditional_accuracy_high"])],
        change=sc["delta_points"].round(2),
        scenario=sc["scenario"].map(lambda c: common.label("scenario", c)),
    )
    wide = show.pivot_table(index=["model", "family"], columns="scenario", values="accuracy", sort=False)
    wide.index = wide.index.set_names([common.label("column", n) for n in wide.index.names])
    st.dataframe(wide, width="stretch", key="dash_scenarios",
                 column_config={c: st.column_config.NumberColumn(format="%.2f %%") for c in wide.columns})
    chart = (
        alt.Chart(show)
        .mark_line(point=True)
        .encode(
            x=alt.X("scenario:N", sort=list(dict.fromkeys(show["scenario"])),
                    title=common.label("column", "scenario"), axis=alt.Axis(labelAngle=0)),
            y=alt.Y("change:Q", title=t("dash.scen_chart_y")),
            color=alt.Color("model:N", title=common.label("column", "model")),
            tooltip=[_tip("model:N"), _tip("scenario:N"), _tip("accuracy:Q"), _tip("ci:N"),
                     _tip("change:Q"), _tip("n_valid:Q")],
        )
    )
    st.altair_chart(chart, width="stretch")
    if audit.analyze.reporting.scenario_note(sc):
        st.markdown(t("dash.control_caption"))
        ctl = audit.analyze.scenarios.scenario_summary(sc).round(2)
        ctl["scenario"] = ctl["scenario"].map(lambda c: common.label("scenario", c))
        ctl = ctl.set_index("scenario")[["change_points", "control_points", "explained_points"]]
        ctl.columns = [t("dash.col_change"), t("dash.col_control"), t("dash.col_explained")]
        ctl.index.name = common.label("column", "scenario")
        st.dataframe(ctl, width="stretch", key="dash_control")
    with st.expander(t("dash.full_table")):
        st.dataframe(common.columns(show[["scenario", "model", "family", "n_questions", "n_excluded",
                                          "n_valid", "n_correct", "accuracy", "ci", "change"]]),
                     hide_index=True, width="stretch")


def _progress(bench: str, db) -> None:
    """How many items each reviewer has reviewed."""
    prog = common.call(audit.review.dashboard.progress_by_reviewer, bench, db=db, any_error=True)
    if prog is None or not len(prog):
        st.info(t("dash.no_progress"))
        return
    st.dataframe(common.columns(prog.rename(columns={"n_items": "items_reviewed"})), hide_index=True,
                 width="stretch", key="dash_progress")
    if prog["n_items"].max() > 0:   # a chart of nothing but skips would be empty
        st.altair_chart(
            alt.Chart(prog).mark_bar().encode(
                x=alt.X("n_items:Q", title=t("dash.items_reviewed"), axis=alt.Axis(**INT_AXIS),
                        scale=alt.Scale(domainMin=0)),
                y=alt.Y("reviewer:N", sort="-x", title=None, axis=alt.Axis(labelLimit=240))),
            width="stretch")


def _corrected(bench: str, db) -> None:
    """Each model's accuracy under the original and the corrected keys, for a
    correction rule (:func:`audit.export.corrected_key_accuracy`)."""
    st.caption(t("dash.corr_caption"))
    policies = [p for p in sorted(audit.export.policy.POLICIES) if p != "original"]
    policy = st.selectbox(t("dash.policy"), policies, index=policies.index("default"), key="dash_policy",
                          format_func=lambda p: common.label("policy", p) or p,
                          help="\n\n".join(f"**{common.label('policy', p) or p}**: {_policy_desc(p)}"
                                           for p in policies))
    ca = common.call(audit.export.corrected_key_accuracy, bench, policy=policy, db=db, any_error=True)
    if ca is None or not len(ca):
        st.info(t("dash.no_settled"))
        return
    st.markdown(t("dash.corr_counts", c=ca.attrs.get("n_corrected", 0), e=ca.attrs.get("n_excluded", 0)))
    pct = {common.label("column", c): st.column_config.NumberColumn(format="percent") for c in ca.columns
           if c.startswith("accuracy_")}
    pct[common.label("column", "difference_points")] = st.column_config.NumberColumn(format="%+.2f")
    st.dataframe(common.columns(ca.round({"difference_points": 2})), hide_index=True, width="stretch",
                 key="dash_corrected", column_config=pct)
    if not (ca["difference_points"].abs() > 0).any():   # nothing moved: a chart of zero-length bars says nothing
        st.caption(t("dash.corr_none"))
        return
    st.altair_chart(
        alt.Chart(ca).mark_bar().encode(
            x=alt.X("difference_points:Q", title=t("dash.corr_x"), axis=alt.Axis(format="+.2f")),
            y=alt.Y("model:N", sort="-x", title=None),
            color=alt.condition("datum.difference_points >= 0", alt.value("#1a7f37"), alt.value("#b35900")),
            tooltip=[_tip("model:N"), _tip("accuracy_original:Q"), _tip("accuracy_corrected:Q"),
                     _tip("difference_points:Q")]),
        width="stretch")


def _kappa(bench: str, db) -> None:
    """How much reviewers agree: Cohen's kappa per pair and pooled, a pair's
    kappa shown only on enough items (:func:`audit.review.reviewer_agreement`
    with ``min_items``)."""
    st.caption(t("dash.kappa_caption"))
    ka = common.call(audit.review.reviewer_agreement, bench, min_items=audit.review.agreement.MIN_KAPPA_ITEMS, db=db,
                     any_error=True)
    if ka is None or not len(ka.pairs):
        st.info(t("dash.no_kappa"))
        return
    if ka.enough:
        st.markdown(t("dash.kappa_overall", label=_kappa_words(ka)))
    else:
        st.warning(t("dash.kappa_few", n=ka.n_items, min=ka.min_items))
    st.dataframe(common.columns(ka.pairs.drop(columns=["se"]).round({"kappa": 2, "ci_low": 2, "ci_high": 2})),
                 hide_index=True, width="stretch",
                 key="dash_kappa",
                 column_config={common.label("column", "agreement"): st.column_config.NumberColumn(format="percent")})


def _policy_desc(policy: str) -> str:
    """A correction rule's description in the session's language (the
    library's English one for a rule the catalogue does not know)."""
    key = f"policy_desc.{policy}"
    return t(key) if key in i18n.en.MESSAGES else audit.export.policy.POLICIES[policy].description


def _kappa_words(ka) -> str:
    """The pooled kappa in the session's language (``ka.label`` is the library's English)."""
    k = ka.overall
    if k.ci_low != k.ci_low:   # no interval
        return t("dash.kappa_value_noci", k=f"{k.kappa:.2f}", n=ka.n_items)
    return t("dash.kappa_value", k=f"{k.kappa:.2f}", lo=f"{k.ci_low:.2f}", hi=f"{k.ci_high:.2f}", n=ka.n_items)


@st.cache_data(ttl=common.OTHERS_TTL, show_spinner=False, max_entries=16)
def _impact(bench: str, db: str) -> dict:
    return audit.analyze.impact_summary(bench, db=db)


def _sampled(bench: str, db: str) -> dict:
    return audit.review.sample.sampled_counts(bench, db=db)


def _sample_count(bench: str, db, model_based: dict) -> None:
    """The random audit sample's count beside the model-based one
    (:func:`audit.review.sample.sampled_counts`, :func:`audit.review.sample.compare_counts`)."""
    sc = common.call(_sampled, bench, str(db), quiet=True)
    if sc is None:
        return
    st.markdown("##### " + t("dash.sampled_title"))
    b = sc["benchmark"]
    if not b["n_sampled"]:
        st.caption(t("dash.sampled_none"))
        return
    if b["estimate"] is None:
        st.caption(t("dash.sampled_pending", k=b["n_settled"], n=b["n_sampled"]))
        return
    st.markdown(audit.review.sample.compare_counts(model_based, b, common.lang()))
    by = [r for r in sc["by_subject"] if r.get("estimate") is not None]
    if by:
        st.dataframe(pd.DataFrame({
            common.label("column", "subject"): [common.subject_name(r["subject"]) for r in by],
            t("dash.col_sampled"): [f"{r['estimate']:.1f} ({r['low']:.0f}–{r['high']:.0f})" for r in by],
            common.label("column", "n_settled"): [r["n_settled"] for r in by],
        }), hide_index=True, width="stretch", key="dash_sampled_subject")


def _cost(bench: str, db) -> None:
    """What wrong keys cost each model and how many keys are probably wrong
    (every number from :func:`audit.analyze.impact_summary`)."""
    imp = common.call(_impact, bench, str(db), any_error=True)
    if imp is None:
        st.info(t("dash.no_audit"))
        return
    if not imp["scored"]:
        st.info(t("dash.need_two"))
        return
    lvl = f"{100 * imp['level']:.0f}%"
    e = imp["expected_wrong_keys"]
    st.markdown(t("dash.expected", est=f"{e['estimate']:.1f}", lo=f"{e['low']:.0f}", hi=f"{e['high']:.0f}",
                  n=e["n_items"], level=lvl))
    warning = audit.analyze.reporting.model_set_warning(imp["model_set_reasons"], common.lang())
    if warning:
        st.warning(warning)
    _sample_count(bench, db, e)
    st.caption(t("dash.cost_caption", level=lvl))
    c = imp["wrong_key_cost"]
    asked = c["n_asked"] if "n_asked" in c else [e["n_items"]] * len(c)
    tab = pd.DataFrame({
        t("dash.col_model"): c["model"],
        t("dash.col_asked"): [t("dash.asked_all", m=e["n_items"]) if int(k) >= e["n_items"]
                              else t("dash.asked_some", n=int(k), m=e["n_items"]) for k in asked],
        t("dash.col_accuracy"): (100 * c["accuracy"]).round(2),   # as `audit report` prints them
        t("dash.col_right_keys"): (100 * c["accuracy_right_keys"]).round(2),
        t("dash.col_interval", level=lvl): [f"{100 * lo:.2f}–{100 * hi:.2f}" for lo, hi in
                                           zip(c["accuracy_right_keys_low"], c["accuracy_right_keys_high"])],
        t("dash.col_corrected"): (100 * c["accuracy_corrected"]).round(2),
        t("dash.col_cost"): c["cost_points"].round(2),
    })
    two = st.column_config.NumberColumn(format="%.2f")   # every figure with its two decimals, as the CLI
    st.dataframe(tab, hide_index=True, width="stretch", key="dash_cost",
                 column_config={c: two for c in (t("dash.col_accuracy"), t("dash.col_right_keys"),
                                                 t("dash.col_corrected"), t("dash.col_cost"))})
    by = imp["expected_wrong_keys_by_subject"]
    if by is not None and len(by) > 1:
        st.markdown("##### " + t("dash.by_subject"))
        st.dataframe(pd.DataFrame({
            common.label("column", "subject"): [common.subject_name(g) for g in by["group"]],
            t("dash.col_items"): by["n_items"],
            t("dash.col_expected"): by["estimate"].round(1),
            t("dash.col_interval", level=lvl): [f"{lo:.0f}–{hi:.0f}" for lo, hi in zip(by["low"], by["high"])],
        }), hide_index=True, width="stretch", key="dash_ewk_subject",
            column_config={t("dash.col_expected"): st.column_config.NumberColumn(format="%.1f")})


def _blind(bench: str, db) -> None:
    """Evidence-blind review: each reviewer's answers given before the
    evidence against the settled keys, and how often the verdict then
    differed (:func:`audit.review.blind.blind_agreement`)."""
    st.caption(t("dash.blind_caption"))
    df = common.call(audit.review.blind.blind_agreement, bench, db=db, any_error=True)
    if df is None or not len(df):
        st.info(t("dash.no_blind"))
        return
    shown = pd.DataFrame({
        common.label("column", "reviewer"): df["reviewer"],
        t("dash.col_blind"): df["n_blind"],
        t("dash.col_unsure"): df["n_unsure"],
        t("dash.col_blind_agree"): [f"{a} / {n}" for a, n in zip(df["n_agree"], df["n_settled"])],
        t("dash.col_blind_share"): [_pct(x) for x in df["agreement"]],
        t("dash.col_changed"): [f"{c} / {n}" for c, n in zip(df["n_changed"], df["n_verdicts"])],
        t("dash.col_changed_share"): [_pct(x) for x in df["changed"]],
    })
    st.dataframe(shown, hide_index=True, width="stretch", key="dash_blind")


def _pct(x) -> str:
    """A share as the CLI prints it in ``audit review status`` (whole percent; "—" when undefined)."""
    return "—" if x is None or x != x else f"{100 * x:.0f}%"




@st.cache_data(ttl=common.OTHERS_TTL, show_spinner=False, max_entries=16)
def _versions(bench: str, db: str) -> list[str]:
    return audit.export.list_versions(bench, db=db)["version"].tolist()


def _since(bench: str, db) -> None:
    """What moved since a version: the items new models reopened or moved in or out of the queue
    (:func:`audit.review.changes.review_changes`), and every model's score under every key
    version (:func:`audit.export.scores.version_scores`)."""
    versions = common.call(_versions, bench, str(db), any_error=True) or []
    since = None
    if versions:
        since = st.selectbox(t("dash.since_pick"), list(reversed(versions)), key="dash_since")
        st.caption(t("dash.since_caption", v=since))
    else:
        st.caption(t("dash.since_caption_run"))
    ch = common.call(audit.review.changes.review_changes, bench, since=since, db=db, lang=common.lang(),
                     any_error=True)
    if ch is not None:
        if ch.empty:
            st.info(t("dash.since_none") if len(versions) or _has_two_runs(bench, db) else t("dash.since_no_run"))
        else:
            show = pd.DataFrame({"question_id": ch["question_id"],
                                 "what_changed": [t(f"change.{c}") for c in ch["change"]], "reason": ch["reason"]})
            st.dataframe(common.columns(show), hide_index=True, width="stretch", key="dash_changes",
                         column_config={common.label("column", "reason"): st.column_config.TextColumn(width="large")})
    st.markdown("##### " + t("dash.scores_h"))
    st.caption(t("dash.scores_caption"))
    sc = common.call(audit.export.scores.version_scores, bench, db=db, any_error=True)
    if sc is None or sc.empty:
        st.info(t("dash.no_audit"))
        return
    sc = sc.assign(
        version=[
            t("dash.working") if v == audit.export.scores.WORKING else (f"{v} ({t('dash.superseded')})" if s else v)
            for v, s in zip(sc["version"], sc["superseded"])
        ]
    )
    wide = sc.pivot_table(index="model", columns="version", values="accuracy", sort=False) * 100
    wide.index.name = common.label("column", "model")
    st.dataframe(wide.round(1), width="stretch", key="dash_scores",
                 column_config={c: st.column_config.NumberColumn(format="%.1f %%") for c in wide.columns})
    with st.expander(t("dash.full_table")):
        full = sc.drop(columns=["superseded"]).assign(
            accuracy=(sc["accuracy"] * 100).round(1), accuracy_low=(sc["accuracy_low"] * 100).round(1),
            accuracy_high=(sc["accuracy_high"] * 100).round(1),
            conditional_accuracy=(sc["conditional_accuracy"] * 100).round(1),
            change_points=pd.to_numeric(sc["change_points"], errors="coerce").round(2))
        st.dataframe(common.columns(full), hide_index=True, width="stretch")


def _has_two_runs(bench: str, db) -> bool:
    return audit.review.changes.baseline(bench, db=db).run_id is not None


@st.cache_data(ttl=common.OTHERS_TTL, show_spinner=False, max_entries=8)
def _comparison(names: tuple[str, ...], db: str, lang: str) -> dict:
    return audit.report.compare.compare_benchmarks(list(names), db=db, lang=lang)


def _compare(bench: str, db) -> None:
    """Several benchmarks side by side (:func:`audit.report.compare.compare_benchmarks`): each
    one's own report figures, what wrong keys cost the models they share, and the parallel items
    whose keys or model agreement differ across languages."""
    st.caption(t("dash.compare_caption"))
    names = common.call(audit.review.dashboard.list_benchmarks, db=db, any_error=True) or []
    picked = st.multiselect(t("dash.compare_pick"), names, default=names[:3], key="dash_compare")
    if len(picked) < 2:
        st.info(t("dash.compare_need_two"))
        return
    cmp = common.call(_comparison, tuple(picked), str(db), common.lang(), any_error=True)
    if cmp is None:
        return

    ewk = audit.report.compare.estimate_text
    table = pd.DataFrame([{
        "benchmark": b["benchmark"], "items": b["items"], "models": len(b["models"]),
        "expected_wrong_keys": ewk(b["expected_wrong_keys"]["model_based"]),
        "expected_wrong_keys_sampled": ewk(b["expected_wrong_keys"]["sampled"]),
        "settled_wrong_keys": b["settled_wrong_keys"]} for b in cmp["benchmarks"]])
    st.dataframe(common.columns(table), hide_index=True, width="stretch", key="dash_compare_table")
    if cmp["cost_in_all"]:
        st.markdown("##### " + t("dash.compare_cost"))
        cost = pd.DataFrame(cmp["cost_in_all"]).set_index("model")
        cost.index.name = common.label("column", "model")
        st.dataframe(cost.round(2), width="stretch", key="dash_compare_cost")
    if not cmp["parallel"]:
        st.info(t("dash.compare_no_parallel"))
        return
    for p in cmp["parallel"]:
        st.markdown(render.md(t("dash.compare_parallel", a=p["benchmark_a"], b=p["benchmark_b"], n=p["linked"],
                                k=p["keys_differ"], g=p["agreement_differs"])))
    if cmp["parallel_differences"]:
        st.caption(t("dash.compare_damage"))
        diff = pd.DataFrame(cmp["parallel_differences"])[["benchmark_a", "question_id_a", "benchmark_b",
                                                           "question_id_b", "key_a", "key_b", "reason"]]
        st.dataframe(common.columns(diff), hide_index=True, width="stretch", key="dash_compare_diff")


def _reviewers(bench: str, db) -> None:
    """Each reviewer's reliability, overall and per language and subject
    (:mod:`audit.review.reliability`), where there are enough known-answer items."""
    st.caption(t("dash.reviewers_caption"))
    df = common.call(audit.review.reviewer_reliability, bench, db=db, any_error=True)
    if df is None or df.empty:
        st.info(t("dash.no_reviewers"))
        return
    shown, cfg = admin_trust.reliability_frame(df)
    st.dataframe(shown, hide_index=True, width="stretch", key="dash_reliability", column_config=cfg)
    for by, head in (("language", t("dash.reviewers_by_language")), ("subject", t("dash.reviewers_by_subject"))):
        st.markdown(f"**{head}**")
        g = common.call(audit.review.reliability.reliability_by, bench, by, db=db, any_error=True)
        if g is None or g.empty:
            st.caption(t("dash.no_reviewers"))
            continue
        few = int((g["n_gold"] < audit.review.reliability.MIN_GOLD).sum())
        if few:
            st.caption(t("dash.reviewers_few", n=few, min=audit.review.reliability.MIN_GOLD))
        shown, cfg = admin_trust.reliability_frame(g, by)
        st.dataframe(shown, hide_index=True, width="stretch", key=f"dash_reliability_{by}", column_config=cfg)
