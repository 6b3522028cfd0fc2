"""``DATASHEET.md``: a human-readable account of a version — what changed and
why (counts by cause, examples), who reviewed and how much they agreed
(Cohen's kappa), and how each model's score moves when the corrected keys
are used.  Deterministic: no timestamps (those are in manifest.json).

Untrusted text (benchmark items, rationales, names) is HTML-escaped and
table pipes / backticks are escaped, so the Markdown renders literally on
any viewer (GitHub, GitLab, IDEs)."""
from __future__ import annotations

import math

import pandas as pd

from audit._util.terminal import markdown_cell
from audit.i18n import label
from audit.store import DbPath

DATASHEET_NAME = "DATASHEET.md"
EXAMPLES = 5

#: Columns :func:`render_datasheet` expects in ``metrics``.
METRIC_COLUMNS = ["model", "n_original", "acc_original", "ci_low_original", "ci_high_original",
                  "n_corrected", "acc_corrected", "ci_low_corrected", "ci_high_corrected", "delta_points"]
#: :data:`audit.export._corrected.COMPARISON_COLUMNS` → the datasheet's shorter names.
DATASHEET_RENAME = {
    "n_valid_original": "n_original", "accuracy_original": "acc_original",
    "accuracy_original_low": "ci_low_original", "accuracy_original_high": "ci_high_original",
    "n_valid_corrected": "n_corrected", "accuracy_corrected": "acc_corrected",
    "accuracy_corrected_low": "ci_low_corrected", "accuracy_corrected_high": "ci_high_corrected",
    "difference_points": "delta_points",
}


def md(text, limit: int | None = None) -> str:
    """Escape untrusted text for a Markdown table cell or paragraph
    (:func:`audit._util.terminal.markdown_cell`, plus emphasis and code).

    >>> md("<img src=x onerror=alert(1)> | `x`")
    '&lt;img src=x onerror=alert(1)&gt; \\\\| \\\\`x\\\\`'
    """
    if text is None or (isinstance(text, float) and math.isnan(text)):
        return ""
    s = " ".join(str(text).split())
    if limit is not None and len(s) > limit:
        s = s[: limit - 1].rstrip() + "…"
    s = markdown_cell(s)   # HTML, links, pipes, escape sequences: the one Markdown writer
    for ch in ("`", "*", "_"):   # and no emphasis or code span in a datasheet cell
        s = s.replace(ch, "\\" + ch)
    return s


def _pct(x) -> str:
    return "–" if x is None or pd.isna(x) else f"{100 * x:.1f}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def render_datasheet(*, benchmark: str, version: str, parent: str | None, policy, counts: dict,
                     items: pd.DataFrame, kappa: pd.DataFrame | None, reviewer_counts: pd.DataFrame | None,
                     metrics: pd.DataFrame | None, model_note: str | None = None,
                     kappa_overall: str | None = None, stems: dict | None = None, impact: dict | None = None,
                     credits: pd.DataFrame | None = None, scores: pd.DataFrame | None = None) -> str:
    """The DATASHEET.md text.

    ``kappa``: pairwise reviewer agreement (``rater_a, rater_b, n, kappa,
    ci_low, ci_high``); ``reviewer_counts``: ``reviewer, n_items``;
    ``metrics``: :data:`METRIC_COLUMNS` (conditional accuracy with Wilson 95%
    CI on the original keys and on this version with excluded items removed);
    ``stems``: question id → question text, for the examples; ``impact``:
    :func:`audit.analyze.impact_summary` of the benchmark (what wrong keys
    cost each model, the expected number of wrong keys), shown first;
    ``credits``: readers' accepted error reports this version credits
    (``question_id, name``), listed under the name each gave.
    ``scores``: :func:`audit.export.scores.scores_with_new_version` (every
    model under every version up to this one).
    """
    L: list[str] = [f"# {md(benchmark)} — answer-key version {md(version)}", ""]
    L.append(f"- Parent version: {md(parent) if parent else 'none (original keys)'}")
    L.append(f"- Policy: `{policy.name}` — {md(policy.description)}")
    L.append(f"- Items: {counts['items']}; corrected: {counts['corrected']}; excluded: {counts['excluded']}; "
             f"unchanged: {counts['unchanged']}; reviewed: {counts['reviewed']}")
    L.append("- Keys in this version are derived from the original keys and every verdict settled at export "
             "time; excluded items stay in the data files with their original key and are listed in "
             "`excluded*.txt`.")
    L += _impact_lines(impact)
    L += ["", "## What changed and why", ""]
    changed = items[items["action"] != "unchanged"]
    if changed.empty:
        L.append("No key was corrected and no item was excluded.")
    else:
        by = (changed.assign(cause=changed["cause"].fillna("(none)"))
              .groupby(["action", "cause"]).size().reset_index(name="n")
              .sort_values(["action", "n", "cause"], ascending=[True, False, True]))
        L += _table(
            ["Action", "Cause", "Items"],
            [
                [r.action, md(label("cause", r.cause) if r.cause != "(none)" else r.cause), str(r.n)]
                for r in by.itertuples()
            ],
        )
        ex = changed[changed["action"] == "excluded"]
        if not ex.empty:
            lists = ex.groupby("exclusion_list").size()
            L += ["", "Exclusion lists: " + ", ".join(
                f"{md(label('verdict', k))} (`excluded-{md(k)}.txt`): {int(v)}" for k, v in lists.items())]
        for action, title in (("corrected", "Examples of corrected keys"), ("excluded", "Examples of excluded items")):
            sub = changed[changed["action"] == action].sort_values(["seq", "question_id"]).head(EXAMPLES)
            if sub.empty:
                continue
            L += ["", f"### {title} (first {len(sub)} in benchmark order)", ""]
            stems = stems or {}
            L += _table(["Question", "Text (excerpt)", "Key", "Verdict", "Cause", "Rationale"], [[
                md(r.question_id), md(stems.get(r.question_id), 80),
                f"{md(r.original_key)} → {md(r.answer_key)}" if action == "corrected" else md(r.original_key),
                md(r.verdict) + (" (adjudicated)" if r.adjudicated else ""),
                md(label("cause", r.cause) if r.cause != "(none)" else r.cause), md(r.rationale, 160),
            ] for r in sub.itertuples()])
    L += ["", "## Reviewers and their agreement", ""]
    if reviewer_counts is None or reviewer_counts.empty:
        L.append("No expert reviews were recorded.")
    else:
        L += _table(["Reviewer", "Items reviewed"],
                    [[md(r.reviewer), str(int(r.n_items))] for r in reviewer_counts.itertuples()])
        L += [""]
        if kappa is None or kappa.empty:
            L.append("Inter-reviewer agreement: no two reviewers reviewed the same item.")
        else:
            L.append("Inter-reviewer agreement on each pair's common items (each reviewer's latest non-skip "
                     "verdict, key_wrong compared with its corrected answer; Cohen's kappa via statsmodels, "
                     "asymptotic SE, 95% Wald CI):")
            L.append("")
            L += _table(["Reviewer A", "Reviewer B", "Common items", "Kappa", "95% CI"], [[
                md(r.rater_a), md(r.rater_b), str(int(r.n)),
                "–" if pd.isna(r.kappa) else f"{r.kappa:.2f}",
                "–" if pd.isna(r.ci_low) else f"[{r.ci_low:.2f}, {r.ci_high:.2f}]",
            ] for r in kappa.itertuples()])
            if kappa_overall:
                L += ["", md(kappa_overall)]
    L += _credit_lines(credits)
    L += ["", "## Model accuracy: original keys vs this version", ""]
    if metrics is None or metrics.empty:
        L.append(model_note or "No model predictions are stored for this benchmark.")
    else:
        L.append("Conditional accuracy (correct / valid answers, %) with Wilson 95% CI (statsmodels "
                 "`proportion_confint(method=\"wilson\")`), on the original keys and on this version's keys "
                 "with excluded items removed; Δ in percentage points.")
        if model_note:
            L += ["", md(model_note)]
        L.append("")
        L += _table(["Model", "n (orig.)", "Acc. orig. [95% CI]", "n (this)", "Acc. this [95% CI]", "Δ points"], [[
            md(r.model), str(int(r.n_original)),
            f"{_pct(r.acc_original)} [{_pct(r.ci_low_original)}, {_pct(r.ci_high_original)}]",
            str(int(r.n_corrected)),
            f"{_pct(r.acc_corrected)} [{_pct(r.ci_low_corrected)}, {_pct(r.ci_high_corrected)}]",
            "–" if pd.isna(r.delta_points) else f"{r.delta_points:+.1f}",
        ] for r in metrics.sort_values("model").itertuples()])
    L += _scores_lines(scores)
    return "\n".join(L) + "\n"


def _credit_lines(credits: pd.DataFrame | None) -> list[str]:
    """Readers outside the team whose error reports a lead accepted, each
    under the name they gave (or as an anonymous reader), with their items."""
    if credits is None or credits.empty:
        return []
    named = credits.assign(name=credits["name"].where(credits["name"].notna(), None))
    rows = []
    for name, g in named.groupby(named["name"].fillna("\x00"), sort=True):
        who = "An anonymous reader" if name == "\x00" else md(name, 80)
        rows.append([who, ", ".join(md(q) for q in dict.fromkeys(g["question_id"]))])
    return ["", "## Thanks to readers who reported errors", "",
            "Error reports sent by readers outside the review team and accepted by a lead reviewer:", "",
            *_table(["Reported by", "Items"], rows)]


def _scores_lines(scores: pd.DataFrame | None) -> list[str]:
    """Every model under every key version up to this one."""
    from audit.export.scores import scores_markdown

    if scores is None or scores.empty:
        return []
    L = ["", "## Scores under every key version", ""]
    L.append("Each model's accuracy (correct / items the version includes, %, Wilson 95% CI) under each answer-key "
             "version, with the answers stored when this version was created.  The change from one version to the "
             "next is a key correction: the models answered nothing differently.  Figures of a superseded version "
             "are marked as such.")
    L.append("")
    return L + scores_markdown(scores, md)


def datasheet_impact(benchmark: str, db: DbPath = None) -> dict | None:
    """:func:`audit.analyze.impact_summary` for the DATASHEET, with the random
    audit sample's count under ``sampled`` (:func:`audit.review.sample.sampled_counts`),
    or None when the benchmark has no audit run."""
    from audit.analyze import impact_summary
    from audit.errors import NotFoundError
    from audit.review.sample import sampled_counts

    try:
        out = impact_summary(benchmark, db=db)
    except NotFoundError:
        return None
    out["sampled"] = sampled_counts(benchmark, db=db)
    return out


def _sampled_line(sampled: dict | None, model_based: dict) -> str:
    """The random audit sample's count beside the model's, in one sentence."""
    from audit.review.sample import compare_counts

    b = (sampled or {}).get("benchmark") or {}
    if b.get("estimate") is None:
        why = b.get("reason") or "no random audit sample has been drawn"
        return (f"Random audit sample: no count yet ({md(why)}); a count that does not rest on the models needs the "
                "settled verdicts of a random audit sample (`audit review sample`).")
    return md(compare_counts(model_based, b))


def _impact_lines(impact: dict | None) -> list[str]:
    """The DATASHEET's first section: what wrong keys cost each model."""
    if impact is None:
        return []
    L = ["", "## What wrong keys cost (the audit's estimate, before this version's corrections)", ""]
    if not impact["scored"]:
        return L + ["Tiers and key-error scores need at least two models; this audit has one."]
    lvl = f"{100 * impact['level']:.0f}%"
    e = impact["expected_wrong_keys"]
    L.append(f"About {e['estimate']:.0f} of the {e['n_items']} keys are probably wrong ({lvl} posterior interval "
             f"{e['low']:.0f}–{e['high']:.0f}; the key-error model of the audit: a rate of wrong keys learned "
             "from expert-labelled benchmarks, moved by the random audit sample, and the settled verdicts).  "
             "Per model: accuracy on all items, on the items whose key is right, and with the "
             "probably wrong keys replaced by the models' most likely answer (posterior means, "
             f"{lvl} intervals); the cost is the difference in points.")
    if impact.get("model_set_warning"):
        L += ["", f"**{md(impact['model_set_warning'])}**"]
    L += ["", _sampled_line(impact.get("sampled"), e)]
    L.append("")
    c = impact["wrong_key_cost"]
    L += _table(["Model", "Accuracy", f"On right keys [{lvl}]", "Keys corrected", "Cost (points)"], [[
        md(r.model), _pct(r.accuracy),
        f"{_pct(r.accuracy_right_keys)} [{_pct(r.accuracy_right_keys_low)}, {_pct(r.accuracy_right_keys_high)}]",
        _pct(r.accuracy_corrected), f"{r.cost_points:+.2f}",
    ] for r in c.sort_values("model").itertuples()])
    return L
