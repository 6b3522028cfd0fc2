"""LLM judges: which judges ran, their bias towards their own model family,
bias versus accuracy against the experts, the judge-based scenarios, and the
agreement between several judges.  Every number and every sentence of
reading comes from ``audit.judge`` (statistics and SQL live there); this page
only lays them out.  Benchmark text and names are escaped before display."""
from __future__ import annotations

import streamlit as st

from audit.judge import judge_bias
from audit.judge import judge_agreement, judge_scenarios, panel_verdict
from audit.review import bias_vs_accuracy, report_sections
from audit.judge import list_judges, list_runs, unparsed_replies
from workbench import render, session
from workbench.views import common

def _table(df, **kwargs) -> None:
    """A table with plain column names (the stored names stay in exports)."""
    cc = kwargs.pop("column_config", None)
    if cc:
        kwargs["column_config"] = {common.label("column", k): v for k, v in cc.items()}
    st.dataframe(common.columns(df), **kwargs)


def _reading(lines: list[str]) -> None:
    st.html("".join(f"<p style='margin:0.2rem 0'>{render.esc(line)}</p>" for line in lines))


def _pct_cols(df, cols):
    out = df.copy()
    for c in cols:
        if c in out.columns:
            out[c] = (out[c] * 100).round(1)
    return out


def _agreement_statistics(bench: str, db) -> None:
    st.caption("Cohen's kappa (statsmodels; asymptotic SE and 95 % Wald CI) between any two raters on the items "
               "both rated — judges, judges vs the experts' settled verdicts, reviewers, models — and Fleiss' "
               "kappa for three or more on the items all of them rated. n = number of common items.")
    sections = common.call(report_sections, bench, db=db)
    if sections is None:
        return
    if not sections:
        st.info("Nothing to compare yet.")
    for i, (title, df) in enumerate(sections.items()):
        st.subheader(title)
        _table(df, hide_index=True, width="stretch", key=f"judge_kappa_{i}")


def page() -> None:
    common.css()
    st.title(common.t("judges.title"))
    db = session.db_path()
    bench = common.benchmark_picker("judge_benchmark")
    if bench is None:
        return
    judges = common.call(list_judges, bench, db=db)
    if judges is None:
        return
    if judges.empty:
        st.info("No judge verdicts on this benchmark yet. Run a judge with "
                "`audit judge run --model <provider/model>` or import a methodology file with "
                "`audit import judge FILE --judge NAME`.")
        with st.expander("Agreement statistics (models, reviewers)"):
            _agreement_statistics(bench, db)
        return
    st.caption("One row per judge and prompt version. Unparseable replies are stored as received and never "
               "guessed; they are listed under *Unparsed replies*.")
    _table(judges, hide_index=True, width="stretch", key="judge_list")
    names = list(dict.fromkeys(judges["judge"]))
    judge = st.selectbox("Judge", names, key="judge_pick")

    t_bias, t_acc, t_sets, t_multi, t_kappa, t_raw, t_runs = st.tabs(
        ["Bias", "Bias vs accuracy", "Scenarios and sets", "Several judges", "Agreement statistics",
         "Unparsed replies", "Runs"])

    with t_bias:
        rep = common.call(judge_bias, bench, judge, db=db)
        if rep is not None:
            if rep.self_family:
                st.warning(f"The judge belongs to the {rep.judge_family} family, whose models are among those "
                           "judged: agreement with them may be self-preference.", icon=":material/warning:")
            _reading(rep.reading)
            st.subheader("Agreement with each model on the disputed items")
            st.caption("Share of the items the judge disputes where the model gives the judge's answer "
                       "(95 % Wilson interval), in %.")
            _table(_pct_cols(rep.models, ["rate", "rate_low", "rate_high"]), hide_index=True,
                         width="stretch", key="judge_models")
            st.subheader("Family pairs")
            st.caption("Disputed items split by which family (any of its models) gives the judge's answer. "
                       "Bias ratio = X only / Y only, exact two-sided binomial test, exact 95 % CI of the ratio. "
                       "X is the judge's family where the pair contains it.")
            _table(rep.pairs, hide_index=True, width="stretch", key="judge_pairs",
                         column_config={"p_value": st.column_config.NumberColumn(format="%.2e")})

    with t_acc:
        st.caption("Needs items with settled expert verdicts. A judge that agrees with its own family where "
                   "that family is right is accurate, not biased; one that repeats its family's *wrong* "
                   "answers more than other families' wrong answers is biased.")
        acc = common.call(bias_vs_accuracy, bench, judge, db=db)
        if acc is not None:
            _reading(acc.reading)
            st.subheader("Judge against the experts")
            _table(acc.overall, hide_index=True, width="stretch", key="judge_acc_overall")
            st.subheader("Accuracy per agreement pattern (disputed items)")
            _table(_pct_cols(acc.patterns, ["accuracy", "accuracy_low", "accuracy_high"]), hide_index=True,
                         width="stretch", key="judge_acc_patterns")
            st.subheader("Self-preference on errors")
            st.caption("Items where the family's (or model's) answer is wrong per the experts: how often the "
                       "judge gives that same wrong answer, in %.")
            _table(_pct_cols(acc.errors, ["rate", "rate_low", "rate_high"]), hide_index=True,
                         width="stretch", key="judge_acc_errors")
            with st.expander("Per model"):
                _table(_pct_cols(acc.errors_by_model, ["rate", "rate_low", "rate_high"]), hide_index=True,
                             width="stretch", key="judge_acc_models")

    with t_sets:
        js = common.call(judge_scenarios, bench, judge, db=db)
        if js is not None:
            _reading(js.reading)
            _table(_pct_cols(js.sets, ["share_of_tier12", "share_of_judge", "share_of_items"]), hide_index=True,
                         width="stretch", key="judge_sets")
            sc = js.scenarios
            wide = (sc.assign(accuracy=(sc["conditional_accuracy"] * 100).round(1))
                    .pivot_table(index=["model", "family"], columns="scenario", values="accuracy", sort=False))
            st.caption("Conditional accuracy (%) per model with the judge's scenarios added.")
            _table(wide, width="stretch", key="judge_scen")

    with t_multi:
        if len(names) < 2:
            st.info("Only one judge on this benchmark: run or import another (ideally of another family).")
        else:
            on = st.radio("Compare", ["answer", "verdict"], horizontal=True, key="judge_on")
            ja = common.call(judge_agreement, bench, on=on, db=db)
            if ja is not None:
                _reading(ja.reading)
                _table(ja.pairs, hide_index=True, width="stretch", key="judge_agree")
            st.subheader("Cross-family panel")
            st.caption("One vote per model family (majority of that family's judges); a strict majority of "
                       "the families decides.")
            pv = common.call(panel_verdict, bench, db=db)
            if pv is not None:
                _table(pv["panel_verdict"].value_counts().rename_axis("panel_verdict").reset_index(),
                             hide_index=True, key="judge_panel_counts")
                _table(pv[pv["panel_verdict"] != "key_correct"], hide_index=True, width="stretch",
                             key="judge_panel")

    with t_kappa:
        _agreement_statistics(bench, db)

    with t_raw:
        raw = common.call(unparsed_replies, bench, judge, db=db)
        if raw is not None:
            if raw.empty:
                st.success("Every reply of this judge was parsed.")
            for r in raw.head(200).itertuples():
                st.html(f"<p><b>{render.esc(r.question_id)}</b> · {render.esc(r.parse_error)}</p>")
                st.code(r.raw_reply or "", language=None)

    with t_runs:
        runs = common.call(list_runs, bench, db=db)
        if runs is not None:
            _table(runs, hide_index=True, width="stretch", key="judge_runs")
