"""LLM judges: which judges ran, their bias towards their own model family,
bias versus accuracy against the experts, the judge-based scenarios, and the
agreement between several judges.  Every number and every sentence of
reading comes from ``audit.judge`` (as keys and figures, worded by the
interface's catalogue; statistics and SQL live there); this page only
lays them out.  Benchmark text and names are escaped before display."""
from __future__ import annotations

import streamlit as st

from audit import i18n
from audit.judge import (
    judge_agreement,
    judge_bias,
    judge_scenarios,
    list_judges,
    list_runs,
    panel_verdict,
    unparsed_replies,
)
from audit.judge.bias import render_readings
from audit.judge.panel import REPORT_TITLE_KEYS
from audit.review import bias_vs_accuracy, report_sections
from audit.review.judges import judge_card, judge_family_name
from workbench import render, session
from workbench.views import common
from workbench.views.common import t


def _table(df, **kwargs) -> None:
    """A table with plain column names (the stored names stay in exports)."""
    cc = kwargs.pop("column_config", None)
    if cc:
        kwargs["column_config"] = {common.label("column", k): v for k, v in cc.items()}
    missing = [c for c in df.columns if df[c].isna().any()]
    if missing:   # a figure that does not exist reads "—", never "None"
        df = df.copy()
        for c in missing:
            df[c] = df[c].astype(object).where(df[c].notna(), "—")
    st.dataframe(common.columns(df), **kwargs)


def _reading(codes: list[tuple[str, dict]]) -> None:
    """The sentences of reading audit.judge writes, from their keys and
    figures (``reading_codes``), in the interface's language."""
    lines = render_readings(codes, i18n.messages(common.lang()))
    st.html('<div class="wb-reading">' + "".join(f"<p style='margin:0.2rem 0'>{render.esc(line)}</p>"
                                                for line in lines) + "</div>")


def _pct_cols(df, cols):
    out = df.copy()
    for c in cols:
        if c in out.columns:
            out[c] = (out[c] * 100).round(1)
    return out


def _agreement_statistics(bench: str, db) -> None:
    st.caption(t("judges.kappa_caption"))
    sections = common.call(report_sections, bench, db=db)
    if sections is None:
        return
    if not sections:
        st.info(t("judges.nothing"))
    for i, (title, df) in enumerate(sections.items()):
        # section titles written by audit, translated by their reading.section.* key
        shown = t(REPORT_TITLE_KEYS[title]) if title in REPORT_TITLE_KEYS else title
        st.html(f'<h3 class="wb-reading" style="font-size:1.25rem;margin:.6rem 0 .2rem 0">{render.esc(shown)}</h3>')
        _table(df, hide_index=True, width="stretch", key=f"judge_kappa_{i}")


def page() -> None:
    common.css()
    st.title(t("judges.title"))
    db = session.db_path()
    bench = common.benchmark_picker("judge_benchmark")
    if bench is None:
        return
    judges = common.call(list_judges, bench, db=db)
    if judges is None:
        return
    if judges.empty:
        st.info(t("judges.none"))
        with st.expander(t("judges.agreement_expander")):
            _agreement_statistics(bench, db)
        return
    st.caption(t("judges.list_caption"))
    _table(judges, hide_index=True, width="stretch", key="judge_list")
    names = list(dict.fromkeys(judges["judge"]))
    judge = st.selectbox(t("judges.judge"), names, key="judge_pick")

    t_card, t_bias, t_acc, t_sets, t_multi, t_kappa, t_raw, t_runs = st.tabs(
        [t("judges.tab_card"), t("judges.tab_bias"), t("judges.tab_acc"), t("judges.tab_sets"), t("judges.tab_multi"),
         t("judges.tab_kappa"), t("judges.tab_raw"), t("judges.tab_runs")])
    with t_card:
        _card(bench, db)
    with t_bias:
        _bias(bench, judge, db)
    with t_acc:
        _accuracy(bench, judge, db)
    with t_sets:
        _sets(bench, judge, db)
    with t_multi:
        _several_judges(bench, names, db)
    with t_kappa:
        _agreement_statistics(bench, db)
    with t_raw:
        _unparsed(bench, judge, db)
    with t_runs:
        _runs(bench, db)


def _bias(bench: str, judge: str, db) -> None:
    """Does the judge favour its own model family (:func:`audit.judge.judge_bias`)?"""
    rep = common.call(judge_bias, bench, judge, db=db)
    if rep is None:
        return
    if rep.self_family:
        st.warning(t("judges.self_family", family=render.md(rep.judge_family)), icon=":material/warning:")
    _reading(rep.reading_codes)
    st.subheader(t("judges.models_h"))
    st.caption(t("judges.models_caption"))
    _table(_pct_cols(rep.models, ["rate", "rate_low", "rate_high"]), hide_index=True, width="stretch",
           key="judge_models")
    st.subheader(t("judges.pairs_h"))
    st.caption(t("judges.pairs_caption"))
    _table(rep.pairs, hide_index=True, width="stretch", key="judge_pairs",
           column_config={"p_value": st.column_config.NumberColumn(format="%.2e")})


def _accuracy(bench: str, judge: str, db) -> None:
    """The judge's bias against its accuracy on the experts' verdicts
    (:func:`audit.review.bias_vs_accuracy`)."""
    st.caption(t("judges.acc_caption"))
    acc = common.call(bias_vs_accuracy, bench, judge, db=db)
    if acc is None:
        return
    _reading(acc.reading_codes)
    st.subheader(t("judges.acc_overall_h"))
    _table(acc.overall, hide_index=True, width="stretch", key="judge_acc_overall")
    st.subheader(t("judges.acc_patterns_h"))
    _table(_pct_cols(acc.patterns, ["accuracy", "accuracy_low", "accuracy_high"]), hide_index=True,
           width="stretch", key="judge_acc_patterns")
    st.subheader(t("judges.errors_h"))
    st.caption(t("judges.errors_caption"))
    _table(_pct_cols(acc.errors, ["rate", "rate_low", "rate_high"]), hide_index=True,
           width="stretch", key="judge_acc_errors")
    with st.expander(t("judges.per_model")):
        _table(_pct_cols(acc.errors_by_model, ["rate", "rate_low", "rate_high"]), hide_index=True,
               width="stretch", key="judge_acc_models")


def _sets(bench: str, judge: str, db) -> None:
    """The judge-based item sets and scenarios (:func:`audit.judge.judge_scenarios`)."""
    js = common.call(judge_scenarios, bench, judge, db=db)
    if js is None:
        return
    _reading(js.reading_codes)
    _table(_pct_cols(js.sets, ["share_of_tier12", "share_of_judge", "share_of_items"]), hide_index=True,
           width="stretch", key="judge_sets")
    sc = js.scenarios
    wide = (sc.assign(accuracy=(sc["conditional_accuracy"] * 100).round(1))
            .pivot_table(index=["model", "family"], columns="scenario", values="accuracy", sort=False))
    st.caption(t("judges.scen_caption"))
    _table(wide, width="stretch", key="judge_scen")


def _several_judges(bench: str, names: list[str], db) -> None:
    """Agreement between judges and the panel's verdict
    (:func:`audit.judge.judge_agreement`, :func:`audit.judge.panel_verdict`)."""
    if len(names) < 2:
        st.info(t("judges.one_judge"))
        return
    on = st.radio(t("judges.compare"), ["answer", "verdict"], horizontal=True, key="judge_on",
                  format_func=lambda x: t(f"judges.compare_{x}"))
    ja = common.call(judge_agreement, bench, on=on, db=db)
    if ja is not None:
        _reading(ja.reading_codes)
        _table(ja.pairs, hide_index=True, width="stretch", key="judge_agree")
    st.subheader(t("judges.panel_h"))
    st.caption(t("judges.panel_caption"))
    pv = common.call(panel_verdict, bench, db=db)
    if pv is not None:
        _table(pv["panel_verdict"].value_counts().rename_axis("panel_verdict").reset_index(),
               hide_index=True, key="judge_panel_counts")
        _table(pv[pv["panel_verdict"] != "key_correct"], hide_index=True, width="stretch", key="judge_panel")


def _unparsed(bench: str, judge: str, db) -> None:
    """The judge's replies that could not be read, escaped."""
    raw = common.call(unparsed_replies, bench, judge, db=db)
    if raw is None:
        return
    if raw.empty:
        st.success(t("judges.all_parsed"))
    for r in raw.head(200).itertuples():
        st.html(f"<p><b>{render.esc(r.question_id)}</b> · {render.esc(r.parse_error)}</p>")
        st.code(r.raw_reply or "", language=None)


def _runs(bench: str, db) -> None:
    runs = common.call(list_runs, bench, db=db)
    if runs is not None:
        _table(runs, hide_index=True, width="stretch", key="judge_runs")



def _card(bench: str, db) -> None:
    """The reliability card per judge and prompt version, side by side
    (:func:`audit.review.judges.judge_card`): kappa with the settled verdicts,
    the flip rate under the permuted order, the same-family warning."""
    st.markdown("##### " + t("judges.card_h"))
    st.caption(t("judges.card_caption"))
    res = common.call(judge_card, bench, db=db, any_error=True)
    if res is None:
        return
    card = res.card
    if card.empty:
        st.info(t("judges.card_none"))
        return
    for r in card.itertuples():
        if r.unreliable:
            st.warning(render.md(t("judges.card_unreliable", judge=r.judge, prompt=r.prompt_language,
                                   rate=f"{100 * r.flip_rate:.0f}%")), icon=":material/shuffle:")
    for judge in sorted(set(card.loc[card["same_family_warning"], "judge"])):
        fam = common.call(judge_family_name, bench, judge, db=db, quiet=True) or "?"
        st.warning(render.md(t("judges.card_family", judge=judge, family=fam)), icon=":material/family_restroom:")
    show = card.assign(flip_rate=(card["flip_rate"].astype(float) * 100).round(1),
                       kappa=card["kappa"].astype(float).round(2), kappa_low=card["kappa_low"].astype(float).round(2),
                       kappa_high=card["kappa_high"].astype(float).round(2))
    _table(show, hide_index=True, width="stretch", key="judge_card")
    if len(res.languages):
        st.markdown("##### " + t("judges.card_pairs"))
        _table(res.languages.assign(**{c: res.languages[c].astype(float).round(2)
                                       for c in ("kappa", "kappa_low", "kappa_high")}),
               hide_index=True, width="stretch", key="judge_card_pairs")
