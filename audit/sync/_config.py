"""The Label Studio labeling config and the task data, generated from the items.

A task shows one item: the passage it refers to (when it has one) above
its stem, the stem and each option in its own script (``lang``,
``dir="rtl"`` for Arabic script, ``writing-mode: vertical-lr`` for
traditional Mongolian; an option written in another script than the stem
is rendered in its own), the current key, the models' answers grouped by
family, and the tier.  The controls use the shared vocabulary of
:mod:`audit.vocab`: the stored value of every choice is the vocabulary key
(Label Studio's ``alias``), the text people read is the label.

Benchmark text is untrusted: every piece of it is HTML-escaped before it goes
into ``item_html`` (the only field rendered as HTML).
"""
from __future__ import annotations

import hashlib
import json
from html import escape
from xml.sax.saxutils import quoteattr

from audit.i18n import en
from audit.options import LATIN_LABELS, MAX_OPTIONS, MIN_OPTIONS
from audit.scripts import script_of
from audit.vocab import CAUSES, VERDICTS

RTL_SCRIPTS = {"Arab", "Hebr", "Syrc", "Thaa", "Nkoo", "Adlm"}
VERTICAL_SCRIPTS = {"Mong"}
RTL_LANGUAGES = {"ar", "fa", "ug", "ur", "ps", "he", "yi", "sd", "ckb", "kk-arab", "ky-arab"}

# Names of the controls in the labeling config (also the keys read back on pull).
VERDICT = "verdict"
ANSWER = "corrected_answer"
CAUSE = "cause"
RATIONALE = "rationale"
FIX = "proposed_fix"
ITEM = "item"


def text_direction(script: str | None, language: str | None) -> tuple[str, str]:
    """(``dir`` attribute, extra CSS) for text in ``script`` / ``language``.

    >>> text_direction("Arab", "ug")
    ('rtl', '')
    >>> text_direction("Mong", "mn-Mong")
    ('ltr', 'writing-mode: vertical-lr; max-height: 24em;')
    >>> text_direction("Tibt", "bo")
    ('ltr', '')
    """
    if script in VERTICAL_SCRIPTS:
        return "ltr", "writing-mode: vertical-lr; max-height: 24em;"
    if script in RTL_SCRIPTS or (language or "").lower() in RTL_LANGUAGES:
        return "rtl", ""
    return "ltr", ""


def labeling_config(n_options: int = 4) -> str:
    """The labeling config for items with up to ``n_options`` options (2–10).

    >>> cfg = labeling_config(5)
    >>> '<Choice value="E"' in cfg and '<Choice value="F"' not in cfg
    True
    >>> '<Choice value="J"' in labeling_config(10)
    True
    >>> 'alias="key_wrong"' in cfg and 'alias="translation"' in cfg
    True
    """
    if not MIN_OPTIONS <= n_options <= MAX_OPTIONS:
        raise ValueError(f"an item has {MIN_OPTIONS}–{MAX_OPTIONS} options, not {n_options}")
    verdicts = "\n".join(
        f'      <Choice value={quoteattr(text)} alias="{key}" hotkey="{i}"/>'
        for i, (key, text) in enumerate(((k, en.CHOICES[f"choice.verdict.{k}"]) for k in VERDICTS), start=1)
    )
    answers = "\n".join(f'      <Choice value="{label}"/>' for label in LATIN_LABELS[:n_options])
    causes = "\n".join(
        f'      <Choice value={quoteattr(text)} alias="{key}"/>'
        for key, text in ((k, en.CHOICES[f"choice.cause.{k}"]) for k in CAUSES)
    )
    return f"""<View>
  <Header value="$header"/>
  <HyperText name="{ITEM}" value="$item_html" inline="true"/>
  <View style="margin-top: 1em">
    <Header value="Verdict" size="5"/>
    <Choices name="{VERDICT}" toName="{ITEM}" choice="single-radio" required="true" showInline="false">
{verdicts}
    </Choices>
    <Header value="Corrected answer (only for 'Key wrong'; one of the item's option labels)" size="5"/>
    <Choices name="{ANSWER}" toName="{ITEM}" choice="single-radio" showInline="true">
{answers}
    </Choices>
    <Header value="Cause" size="5"/>
    <Choices name="{CAUSE}" toName="{ITEM}" choice="single-radio" showInline="false">
{causes}
    </Choices>
    <Header value="Rationale" size="5"/>
    <TextArea name="{RATIONALE}" toName="{ITEM}" maxSubmissions="1" editable="true" rows="3"/>
    <Header value="Proposed text fix (optional)" size="5"/>
    <TextArea name="{FIX}" toName="{ITEM}" maxSubmissions="1" editable="true" rows="2"/>
  </View>
</View>
"""


def _span(text: str, lang: str | None, direction: str, css: str) -> str:
    lang_attr = f' lang="{escape(lang)}"' if lang else ""
    style = f' style="{escape(css)}"' if css else ""
    return f'<span dir="{direction}"{lang_attr}{style}>{escape(text)}</span>'


def item_html(item: dict) -> str:
    """The item as escaped HTML.  ``item`` has benchmark, question_id, subject,
    language, script, stem, options [{label, text}], answer_key, tier,
    families [{family, answers: [{answer, n, models}]}] and optionally
    ``context`` (the passage, shown above the stem in its own script),
    ``option_scripts`` (each option's script, when one differs from the
    stem's) and ``evidence`` (the item page's plain-words sentences, shown
    last under ``evidence_heading``).

    >>> h = item_html({"stem": "<script>x</script>", "options": [{"label": "A", "text": "a"},
    ...     {"label": "B", "text": "<img src=x onerror=alert(1)>"}], "answer_key": "A", "script": "Arab"})
    >>> "<script>" in h or "<img" in h, "&lt;script&gt;" in h, 'dir="rtl"' in h
    (False, True, True)
    >>> h = item_html({"stem": "物以稀为贵", "script": "Hans", "context": "<b>p</b>", "answer_key": "A",
    ...     "options": [{"label": "A", "text": "ᠪᠠᠷᠰ"}, {"label": "B", "text": "ياڭاق"}],
    ...     "option_scripts": ["Mong", "Arab"]})
    >>> h.index("&lt;b&gt;p&lt;/b&gt;") < h.index("物以稀为贵"), "vertical-lr" in h, 'dir="rtl"' in h
    (True, True, True)
    """
    direction, css = text_direction(item.get("script"), item.get("language"))
    lang = item.get("language")
    key = item.get("answer_key")
    parts = ['<div class="audit-item">']
    context = item.get("context")
    if isinstance(context, str) and context.strip():
        cdir, ccss = text_direction(script_of(context, lang), lang)
        parts.append(f'<div class="audit-context" style="margin-bottom: .6em; padding: .4em .6em; '
                     f'border-left: 3px solid #999"><small>{escape(en.UI["item.passage"])}</small><br>'
                     f'{_span(context, lang, cdir, ccss)}</div>')
    parts.append(
        '<div style="font-size: 1.2em; margin-bottom: .6em">'
        f'{_span(item.get("stem") or "", lang, direction, css)}</div>'
    )
    parts.append('<table style="border-collapse: collapse">')
    own = list(item.get("option_scripts") or [])
    for i, opt in enumerate(item.get("options") or []):
        is_key = opt["label"] == key
        mark = ' <b style="color:#1a7f37">← current key</b>' if is_key else ""
        weight = "font-weight: bold; " if is_key else ""
        script = own[i] if i < len(own) else None
        odir, ocss = text_direction(script, None) if script and script != item.get("script") else (direction, css)
        olang = lang if not script or script == item.get("script") else None
        parts.append(
            f'<tr style="{weight}"><td style="padding: 2px 8px; vertical-align: top">{escape(opt["label"])}.</td>'
            f'<td style="padding: 2px 8px">{_span(opt.get("text") or "", olang, odir, ocss)}{mark}</td></tr>'
        )
    parts.append("</table>")
    key_text = escape(str(key)) if key is not None else "none"
    tier = item.get("tier")
    if not item.get("evidence_withheld"):   # an evidence-blind campaign shows the question alone
        parts.append(
            f'<p style="margin-top: .6em">Current key: <b>{key_text}</b> · '
            f'Tier: <b>{escape(str(tier)) if tier is not None else "–"}</b></p>'
        )
    for par in item.get("parallels") or []:
        pdir, pcss = text_direction(None, par.get("language"))
        plang = par.get("language")
        parts.append(f'<p style="margin-top: .8em; margin-bottom: .2em"><b>Source: {escape(str(par.get("source")))}'
                     f'</b> <small>({escape(str(par.get("id")))})</small></p>')
        parts.append(f'<div>{_span(par.get("stem") or "", plang, pdir, pcss)}</div>')
        parts.append('<table style="border-collapse: collapse">')
        for opt in par.get("options") or []:
            is_key = opt["label"] == par.get("key")
            parts.append(f'<tr style="{"font-weight: bold; " if is_key else ""}">'
                         f'<td style="padding: 2px 8px">{escape(opt["label"])}.</td>'
                         f'<td style="padding: 2px 8px">{_span(opt.get("text") or "", plang, pdir, pcss)}</td></tr>')
        parts.append("</table>")
        match = "" if par.get("key_match") else ' <b style="color:#b42318">(differs from the current key)</b>'
        parts.append(f'<p>Source key: <b>{escape(str(par.get("key") or "none"))}</b>{match}</p>')
    families = item.get("families") or []
    if families:
        parts.append('<table style="border-collapse: collapse; font-size: .9em">'
                     '<tr><th style="text-align:left; padding: 2px 8px">Family</th>'
                     '<th style="text-align:left; padding: 2px 8px">Answers (models)</th></tr>')
        for fam in families:
            cells = []
            for a in fam.get("answers") or []:
                label = escape(str(a.get("answer") or "invalid"))
                models = ", ".join(escape(m) for m in a.get("models") or [])
                cells.append(f"<b>{label}</b>×{int(a.get('n') or 0)} <small>({models})</small>")
            parts.append(f'<tr><td style="padding: 2px 8px; vertical-align: top">{escape(str(fam.get("family")))}</td>'
                         f'<td style="padding: 2px 8px">{"; ".join(cells)}</td></tr>')
        parts.append("</table>")
    if item.get("evidence"):
        parts.append(evidence_html(item.get("evidence_heading") or "Why this item is here", item["evidence"]))
    parts.append("</div>")
    return "".join(parts)


def evidence_html(heading: str, sentences: list[str]) -> str:
    """ "Why this item is here" as escaped HTML: the plain-words sentences of
    the item page (:func:`audit.review.reasons.evidence_reasons`, rendered in the
    push's language), one list entry each, inside the task's ``item_html``
    (so every project's labeling config shows them, old or new).

    >>> h = evidence_html("Why", ["Overall, the key is wrong with a chance of about 1 in 3.", "<b>x</b>"])
    >>> i = h.index("<li>")
    >>> h[:i]
    '<div class="audit-evidence" style="margin-top: .8em"><b>Why</b><ul style="margin-top: .2em">'
    >>> h[i:]
    '<li>Overall, the key is wrong with a chance of about 1 in 3.</li><li>&lt;b&gt;x&lt;/b&gt;</li></ul></div>'
    """
    items = "".join(f"<li>{escape(str(x))}</li>" for x in sentences)
    return (f'<div class="audit-evidence" style="margin-top: .8em"><b>{escape(heading)}</b>'
            f'<ul style="margin-top: .2em">{items}</ul></div>')


def external_id(benchmark: str, question_id: str) -> str:
    """The stable id of an item's task (also ``data.audit_id``).

    >>> external_id("tlue", "agronomy:7")
    'tlue::agronomy:7'
    """
    return f"{benchmark}::{question_id}"


def plain_text(item: dict) -> str:
    """The stem and options as one line of plain text (for Label Studio's
    task list, which shows data fields as they are: no HTML here).

    >>> plain_text({"stem": "2+2?", "options": [{"label": "A", "text": "3"}, {"label": "B", "text": "4"}]})
    '2+2? — A. 3 · B. 4'
    """
    opts = " · ".join(f'{o["label"]}. {o.get("text") or ""}' for o in item.get("options") or [])
    return " — ".join(x for x in (" ".join(str(item.get("stem") or "").split()), opts) if x)


# Columns of the project's task list that hold markup or internals: hidden in
# the "Audit items" Data Manager tab, which shows the plain-text fields.
HIDDEN_COLUMNS = ["tasks:data.item_html", "tasks:data.audit_hash", "tasks:data.audit_id", "tasks:data.header",
                  "tasks:data.options", "tasks:data.source_options"]


def task_data(item: dict) -> dict:
    """The ``data`` of the item's task, with ``audit_hash`` over its content."""
    header = " · ".join(
        str(x) for x in (item["benchmark"], item["question_id"], item.get("subject"),
                         f"Tier {item['tier']}" if item.get("tier") is not None else None) if x
    )
    data = {
        "audit_id": external_id(item["benchmark"], item["question_id"]),
        "audit_benchmark": item["benchmark"],
        "question_id": item["question_id"],
        "header": header,
        "item_html": item_html(item),
        "stem": item.get("stem") or "",
        "text": plain_text(item),
        "options": [o["label"] for o in item.get("options") or []],
        "answer_key": item.get("answer_key"),
        "tier": item.get("tier"),
        "subject": item.get("subject"),
        "language": item.get("language"),
    }
    context = item.get("context")
    if isinstance(context, str) and context.strip():   # (only then: the hash of other items' tasks stays as it was)
        data["context"] = context
    if item.get("evidence"):   # the item page's plain words, as text for the task list
        data["evidence"] = " ".join(str(x) for x in item["evidence"])
    pars = item.get("parallels") or []
    if pars:
        p = pars[0]
        data.update({
            "source_name": p.get("source"),
            "source_text": plain_text({"stem": p.get("stem"), "options": p.get("options")}),
            "source_options": [f'{o["label"]}. {o.get("text") or ""}' for o in p.get("options") or []],
            "source_key": p.get("key"),
        })
    data["audit_hash"] = content_hash(data)
    return data


def content_hash(obj) -> str:
    """A short stable hash of a JSON-able value."""
    raw = json.dumps(obj, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8")
    return hashlib.sha256(raw).hexdigest()[:20]


def verdict_result(verdict: str, corrected_answer=None, cause=None, rationale=None, proposed_fix=None) -> list[dict]:
    """An annotation ``result`` carrying one verdict (the controls above).

    >>> [r["from_name"] for r in verdict_result("key_wrong", "C", "translation", "x")]
    ['verdict', 'corrected_answer', 'cause', 'rationale']
    """
    def choice(name, value):
        return {"from_name": name, "to_name": ITEM, "type": "choices", "value": {"choices": [value]}}

    def text(name, value):
        return {"from_name": name, "to_name": ITEM, "type": "textarea", "value": {"text": [value]}}

    out = [choice(VERDICT, verdict)]
    if corrected_answer:
        out.append(choice(ANSWER, corrected_answer))
    if cause:
        out.append(choice(CAUSE, cause))
    if rationale:
        out.append(text(RATIONALE, rationale))
    if proposed_fix:
        out.append(text(FIX, proposed_fix))
    return out


def parse_result(result) -> dict:
    """The verdict fields of an annotation ``result`` (missing → None).
    Choices stored by display text (an old config without aliases) are
    mapped back to the vocabulary key.

    >>> parse_result(verdict_result("key_wrong", "C", "translation", "  why "))["corrected_answer"]
    'C'
    """
    by_text_v = {en.CHOICES[f"choice.verdict.{k}"]: k for k in VERDICTS}
    by_text_c = {en.CHOICES[f"choice.cause.{k}"]: k for k in CAUSES}
    out: dict[str, str | None] = {
        "verdict": None,
        "corrected_answer": None,
        "cause": None,
        "rationale": None,
        "proposed_fix": None,
    }
    for r in result or []:
        if not isinstance(r, dict):
            continue
        name, value = r.get("from_name"), r.get("value") or {}
        if name in (VERDICT, ANSWER, CAUSE):
            choices = value.get("choices") or []
            if not choices:
                continue
            v = str(choices[0])
            if name == VERDICT:
                out["verdict"] = by_text_v.get(v, v)
            elif name == CAUSE:
                out["cause"] = by_text_c.get(v, v)
            else:
                out["corrected_answer"] = v
        elif name in (RATIONALE, FIX):
            texts = value.get("text") or []
            if isinstance(texts, str):
                texts = [texts]
            joined = "\n".join(str(t) for t in texts).strip()
            out["rationale" if name == RATIONALE else "proposed_fix"] = joined or None
    return out


def verdict_hash(verdict, corrected_answer=None, cause=None, rationale=None, proposed_fix=None) -> str:
    """Hash of a verdict's content (to recognise an annotation we wrote)."""
    norm = [verdict, corrected_answer or None, cause or None, (rationale or "").strip() or None,
            (proposed_fix or "").strip() or None]
    return content_hash(norm)
