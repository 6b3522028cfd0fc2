"""Plain words for what reviewers read: every stored code (verdicts, causes,
statuses, flags, scenario names, table columns) has a short human label
here, plus a glossary.  The stored codes themselves live in
:mod:`audit.vocab` and never change; pages, the CLI and exports show these
labels instead of the codes.

The workbench translates these labels (its catalogue uses the same keys,
``"verdict.key_wrong"`` and so on — see :func:`catalogue`), so the English
wording here is the single source.

>>> label("verdict", "key_wrong"), label("flag", "option_markers_repaired")
('Key wrong', 'Option letters repaired on import')
>>> label("flag", "some_new_flag")     # an unknown code still reads as words
'Some new flag'
>>> outcome("done", "key_wrong", "C", adjudicated=False)
'Settled: key wrong → C'
>>> outcome("done", "key_wrong", "C", adjudicated=False, option_label="ག")
'Settled: key wrong → ག'
>>> outcome("disputed", None, None, adjudicated=False)
'Disputed: the reviewers disagree; a lead decides'
"""
from __future__ import annotations

import re

from audit.vocab import CAUSES, VERDICTS

VERDICT_LABELS: dict[str, str] = {
    "key_correct": "Key correct",
    "key_wrong": "Key wrong",
    "ambiguous": "Ambiguous",
    "defective": "Question defective",
    "skip": "Skipped",
}
assert set(VERDICT_LABELS) == set(VERDICTS)

CAUSE_LABELS: dict[str, str] = dict(CAUSES)

STATUS_LABELS: dict[str, str] = {
    "unreviewed": "Not reviewed yet",
    "needs_second_review": "Needs a second review",
    "disputed": "Disputed",
    "done": "Settled",
    "reviewed_by_me": "Reviewed by me",
    "not_reviewed_by_me": "Not reviewed by me",
    "needs_me": "Needs my verdict",
}

FLAG_LABELS: dict[str, str] = {
    "option_markers_repaired": "Option letters repaired on import",
    "structure_suspect": "Options may be split wrongly",
    "key_not_in_options": "The key is not one of the options",
    "duplicate_options": "Two options have the same text",
    "multiple_correct_references": "The source lists several correct answers",
    "normalized_nfc": "Text normalised (Unicode NFC) on import",
}

SCENARIO_LABELS: dict[str, str] = {
    "baseline": "All questions",
    "excl_tier1": "Without Tier 1",
    "excl_tier1-2": "Without Tiers 1–2",
    "excl_tier1-3": "Without Tiers 1–3",
    "excl_tier1-4": "Without Tiers 1–4",
}

COLUMN_LABELS: dict[str, str] = {
    "question_id": "Item", "subject": "Subject", "tier": "Tier", "bucket": "Group", "n": "Items",
    "reviewer": "Reviewer", "n_items": "Items reviewed", "n_reviews": "Verdicts saved",
    "key_correct": "Key correct", "key_wrong": "Key wrong", "ambiguous": "Ambiguous",
    "defective": "Defective", "skip": "Skipped", "adjudications": "Adjudications",
    "first_review_at": "First verdict (UTC)", "last_review_at": "Latest verdict (UTC)",
    "model": "Model", "family": "Family",
    "n_valid_original": "Readable answers (original keys)",
    "n_correct_original": "Correct (original keys)",
    "accuracy_original": "Accuracy (original keys)",
    "accuracy_original_low": "Lowest likely (original)", "accuracy_original_high": "Highest likely (original)",
    "n_valid_corrected": "Readable answers (corrected keys)",
    "n_correct_corrected": "Correct (corrected keys)",
    "accuracy_corrected": "Accuracy (corrected keys)",
    "accuracy_corrected_low": "Lowest likely (corrected)", "accuracy_corrected_high": "Highest likely (corrected)",
    "difference_points": "Change (points)",
    "rater_a": "Reviewer A", "rater_b": "Reviewer B", "agreement": "Same verdict",
    "kappa": "Agreement beyond chance (kappa)", "se": "Standard error",
    "ci_low": "Lowest likely kappa", "ci_high": "Highest likely kappa",
    "scenario": "Questions counted", "n_questions": "Questions", "n_excluded": "Left out",
    "n_valid": "Readable answers", "n_correct": "Correct", "accuracy": "Accuracy (%)",
    "ci": "Likely range (%)", "change": "Change (points)",
    "version": "Version", "parent": "Based on", "policy": "Rule", "created_at": "Created (UTC)",
    "n_corrected": "Keys corrected", "n_unchanged": "Unchanged", "n_reviewed": "Reviewed",
    "path": "Folder", "on_disk": "Files present", "intact": "Files unchanged",
    "when": "When (UTC)", "verdict": "Verdict", "corrected_answer": "Corrected answer",
    "cause": "Cause", "rationale": "Why", "proposed_fix": "Proposed fix",
    "is_adjudication": "Lead's decision", "source": "Entered in",
}

GLOSSARY: dict[str, str] = {
    "Key": "The answer the benchmark marks as correct.",
    "Tier": "How strongly the models point to a wrong key. Tier 1: many models of several families agree "
            "on another answer (the key is most likely wrong). Higher tiers: weaker evidence. Tier 0: the "
            "models agree with the key.",
    "Family": "Models from the same maker or lineage; agreement across families counts for more.",
    "Double review": "Each flagged item needs two independent verdicts; you see the others' verdicts "
                     "only after saving your own.",
    "Disputed": "Two reviewers disagree; a lead reviewer records the deciding verdict (adjudication).",
    "Settled": "Enough reviewers agree, or a lead has decided; the item's outcome goes into the next "
               "exported version.",
    "Kappa": "Agreement between two reviewers beyond what chance would give (1 = always agree, "
             "0 = no better than chance). It means little on fewer than 10 shared items.",
    "Version": "A corrected copy of the benchmark's answer keys, written once and never changed.",
}

_KINDS = {"verdict": VERDICT_LABELS, "cause": CAUSE_LABELS, "status": STATUS_LABELS, "flag": FLAG_LABELS,
          "scenario": SCENARIO_LABELS, "column": COLUMN_LABELS}


def _humanise(code: str) -> str:
    words = re.sub(r"[_\-]+", " ", str(code)).strip()
    return words[:1].upper() + words[1:] if words else str(code)


def label(kind: str, code: str | None) -> str:
    """The plain label of a stored ``code`` of ``kind`` (verdict, cause,
    status, flag, scenario, column); an unknown code is turned into words."""
    if code is None:
        return ""
    table = _KINDS[kind]
    return table.get(code) or _humanise(code)


def catalogue() -> dict[str, str]:
    """Every label as ``"kind.code" → English text`` plus
    ``"glossary.Term" → definition`` (the keys a translation must cover).

    >>> catalogue()["status.done"]
    'Settled'
    """
    out = {f"{kind}.{code}": text for kind, table in _KINDS.items() for code, text in table.items()}
    out.update({f"glossary.{term}": text for term, text in GLOSSARY.items()})
    out.update({f"term.{term}": term for term in GLOSSARY})
    out.update(_OUTCOME)
    return out


def glossary_table(words: dict[str, str] | None = None, headers: tuple[str, str] = ("Term", "Meaning")) -> str:
    r"""The glossary as a Markdown table, one row per term (the term, what it
    means), so that it reads as a list of definitions rather than one run-on
    paragraph.  ``words`` replaces the English texts (``term.*`` and
    ``glossary.*`` keys of :func:`catalogue`) for a translated page;
    ``headers`` names the two columns.  A ``|`` in a text is escaped.

    >>> print(glossary_table().splitlines()[0])
    | Term | Meaning |
    >>> glossary_table().splitlines()[2]
    '| **Key** | The answer the benchmark marks as correct. |'
    >>> glossary_table({"term.Key": "a|b"}).splitlines()[2][:12]
    '| **a\\|b** |'
    """
    w = {**catalogue(), **(words or {})}

    def cell(text: str) -> str:
        return " ".join(str(text).split()).replace("|", "\\|")

    rows = [f"| {cell(headers[0])} | {cell(headers[1])} |", "|---|---|"]
    rows += [f"| **{cell(w['term.' + term])}** | {cell(w['glossary.' + term])} |" for term in GLOSSARY]
    return "\n".join(rows)


def outcome(status: str, verdict: str | None, corrected_answer: str | None, *, adjudicated: bool,
            option_label: str | None = None, words: dict[str, str] | None = None) -> str:
    """One sentence stating where an item stands ("Settled: key wrong → ག").
    ``option_label`` shows the corrected answer in the item's own script;
    ``words`` replaces the English texts (keys of :func:`catalogue` plus
    ``outcome.*``) for a translated page."""
    w = {**catalogue(), **(words or {})}
    if status == "done" and verdict:
        v = w[f"verdict.{verdict}"].lower() if words is None else w[f"verdict.{verdict}"]
        what = v + (f" → {option_label or corrected_answer}" if verdict == "key_wrong" and corrected_answer else "")
        head = w["outcome.decided"] if adjudicated else w["outcome.settled"]
        return f"{head}: {what}"
    return w.get(f"outcome.{status}", _humanise(status))


_OUTCOME = {
    "outcome.settled": "Settled",
    "outcome.decided": "Settled by a lead",
    "outcome.done": "Settled",
    "outcome.disputed": "Disputed: the reviewers disagree; a lead decides",
    "outcome.needs_second_review": "Waiting for a second reviewer",
    "outcome.unreviewed": "No verdict yet",
}
