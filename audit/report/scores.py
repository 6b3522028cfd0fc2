"""``audit report scores``: every model's accuracy under every key version of
a benchmark (:func:`audit.export.scores.version_scores`), rendered as a
table, JSON rows, CSV or Markdown.  The change from one version to the next
is labelled as a key correction, never as a change of the model."""
from __future__ import annotations

import html
import io
import json
import os
from pathlib import Path

import pandas as pd

from audit.analyze.reporting import records
from audit.errors import InputError
from audit.export.scores import scores_markdown, version_scores
from audit.store import DbPath

FORMATS = ("table", "json", "csv", "markdown")


def md(text) -> str:
    """Untrusted text for a Markdown table cell: HTML escaped, pipes and
    backticks escaped, on one line.

    >>> print(md("<b>x</b> | `y`"))
    &lt;b&gt;x&lt;/b&gt; \\| \\`y\\`
    """
    s = html.escape(" ".join(str(text).split()), quote=False)
    for ch in ("\\", "|", "`", "*", "_", "[", "]"):
        s = s.replace(ch, "\\" + ch)
    return s


def render_scores(df: pd.DataFrame, fmt: str, benchmark: str = "") -> str:
    """The scores table in *fmt* (``table``, ``json``, ``csv``, ``markdown``).

    >>> df = pd.DataFrame([{"model": "m", "version": "1.0", "accuracy": 0.5, "accuracy_low": 0.4,
    ...     "accuracy_high": 0.6, "conditional_accuracy": 0.5, "n_valid": 10, "n_items": 10,
    ...     "change_points": None, "superseded": True}])
    >>> json.loads(render_scores(df, "json"))[0]["superseded"]
    True
    """
    if fmt not in FORMATS:
        raise InputError(f"unknown format '{fmt}' (choose one of {', '.join(FORMATS)})")
    if fmt == "json":
        return json.dumps(records(df), ensure_ascii=False, indent=2) + "\n"
    if fmt == "csv":
        from audit._util.safe_csv import write_csv

        buf = io.StringIO()
        write_csv(df, buf)
        return buf.getvalue()
    if fmt == "markdown":
        title = "# Scores under every key version" + (f": {md(benchmark)}" if benchmark else "")
        return "\n".join([title, "", *scores_markdown(df, md), ""])
    if df.empty:
        return "(no model predictions)\n"
    show = df.assign(
        accuracy=[f"{100 * a:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]" if pd.notna(a) else "–"
                  for a, lo, hi in zip(df["accuracy"], df["accuracy_low"], df["accuracy_high"])],
        conditional_accuracy=[f"{100 * a:.1f}" if pd.notna(a) else "–" for a in df["conditional_accuracy"]],
        change_points=["–" if c is None or pd.isna(c) else f"{c:+.1f}" for c in df["change_points"]],
        superseded=["superseded" if s else "" for s in df["superseded"]],
    ).drop(columns=["accuracy_low", "accuracy_high"]).rename(columns={
        "accuracy": "accuracy % [95% CI]", "conditional_accuracy": "conditional %",
        "change_points": "change (key correction, points)", "superseded": "status"})
    return (show.to_string(index=False) + "\n\nThe change from the previous version is a key correction: "
            "the models' answers are the same under every version.\n")


def scores_report(benchmark: str | None = None, *, fmt: str = "table", output: str | os.PathLike | None = None,
                  db: DbPath = None) -> str | None:
    """``audit report scores``: :func:`audit.export.scores.version_scores`
    of *benchmark* in *fmt*; written to *output* when given (returns None)."""
    if fmt not in FORMATS:
        raise InputError(f"unknown format '{fmt}' (choose one of {', '.join(FORMATS)})")
    df = version_scores(benchmark, db=db)
    text = render_scores(df, fmt, benchmark or "")
    if output is None:
        return text
    Path(output).write_text(text, encoding="utf-8")
    return None


__all__ = ["FORMATS", "md", "render_scores", "scores_report"]
