"""HTML for benchmark text in its own script.

Every piece of benchmark text (stems, options, responses, explanations,
subjects, ids) is untrusted: it goes through :func:`esc` (``html.escape`` with
quotes) before it is placed in markup.  The markup itself is built only from
the constants below, so nothing a question contains can add an element, an
attribute or a script.

Scripts (ISO 15924 codes as stored in ``questions.script``):

* ``Tibt`` — Noto Serif Tibetan / Noto Sans Tibetan, large size and tall
  line height so stacked consonants are not clipped.
* ``Arab`` — Uyghur / Kazakh in Arabic script: ``dir="rtl"``, Noto Naskh
  Arabic / Noto Sans Arabic.
* ``Mong`` — traditional Mongolian: ``writing-mode: vertical-lr`` (columns
  run top to bottom, left to right), Noto Sans Mongolian.
* ``Hans`` / ``Hant`` / ``Jpan`` / ``Kore`` — Noto Sans CJK when installed, else the system font.
* anything else — the page font.

The script is a text's, not an item's: a Chinese stem may have Mongolian
options (stored per option, ``questions.option_scripts``), each rendered in
its own; a passage the question refers to is shown above the stem in the
script of its own letters.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass

from audit.options import LATIN_TO_TIBETAN
from audit.scripts import script_of


@dataclass(frozen=True)
class ScriptStyle:
    code: str
    name: str
    lang: str
    direction: str  # 'ltr' | 'rtl'
    vertical: bool
    font_family: str
    font_size: str
    line_height: str


SCRIPT_STYLES: dict[str, ScriptStyle] = {
    "Tibt": ScriptStyle(
        "Tibt",
        "Tibetan",
        "bo",
        "ltr",
        False,
        "'Noto Serif Tibetan', 'Noto Sans Tibetan', 'Jomolhari', 'Microsoft Himalaya', 'Kailasa', serif",
        "1.45rem",
        "2.1",
    ),
    "Arab": ScriptStyle(
        "Arab",
        "Arabic script (Uyghur / Kazakh)",
        "ug",
        "rtl",
        False,
        "'Noto Naskh Arabic', 'Noto Sans Arabic', 'Microsoft Uighur', 'Tahoma', sans-serif",
        "1.35rem",
        "1.9",
    ),
    "Mong": ScriptStyle(
        "Mong",
        "Traditional Mongolian",
        "mn-Mong",
        "ltr",
        True,
        "'Noto Sans Mongolian', 'Mongolian Baiti', sans-serif",
        "1.3rem",
        "1.8",
    ),
    "Hans": ScriptStyle(
        "Hans",
        "Chinese (simplified)",
        "zh-Hans",
        "ltr",
        False,
        "'Noto Sans CJK SC', 'Noto Sans SC', 'Source Han Sans SC', 'PingFang SC', 'Microsoft YaHei', sans-serif",
        "1.15rem",
        "1.8",
    ),
    "Hant": ScriptStyle(
        "Hant",
        "Chinese (traditional)",
        "zh-Hant",
        "ltr",
        False,
        "'Noto Sans CJK TC', 'Noto Sans TC', 'Source Han Sans TC', 'PingFang TC', 'Microsoft JhengHei', sans-serif",
        "1.15rem",
        "1.8",
    ),
    "Jpan": ScriptStyle(
        "Jpan",
        "Japanese",
        "ja",
        "ltr",
        False,
        "'Noto Sans CJK JP', 'Noto Sans JP', 'Hiragino Sans', 'Yu Gothic', 'Meiryo', sans-serif",
        "1.15rem",
        "1.8",
    ),
    "Kore": ScriptStyle(
        "Kore",
        "Korean",
        "ko",
        "ltr",
        False,
        "'Noto Sans CJK KR', 'Noto Sans KR', 'Apple SD Gothic Neo', 'Malgun Gothic', sans-serif",
        "1.15rem",
        "1.8",
    ),
    "Latn": ScriptStyle("Latn", "Latin", "en", "ltr", False, "inherit", "1.05rem", "1.6"),
}


def esc(value: object) -> str:
    """HTML-escape any value (None → empty string).

    >>> esc('<img src=x onerror="alert(1)">')
    '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;'
    """
    return "" if value is None else html.escape(str(value), quote=True)


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def md(value: object) -> str:
    r"""Escape untrusted text for Streamlit Markdown (labels, captions,
    messages): every Markdown character gets a backslash, so text such as
    ``![x](http://…)`` or ``**`` shows literally.

    >>> print(md("![x](u) *b*"))
    \!\[x\]\(u\) \*b\*
    """
    return "" if value is None else _MD_SPECIAL.sub(r"\\\1", str(value))


def code_line(value: object) -> str:
    """*value* (a path) as a Markdown code span on a line of its own, shown
    exactly as it is (no escaping inside a code span; the fence is longer
    than any run of backticks in it); "" for None.

    >>> code_line("/tmp/a_b.key")
    '\\n\\n`/tmp/a_b.key`'
    """
    if value is None:
        return ""
    text = " ".join(str(value).split())
    runs = [len(r) for r in re.findall("`+", text)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"\n\n{fence}{pad}{text}{pad}{fence}"


def style_for(script: str | None, language: str | None = None, sample: str | None = None) -> ScriptStyle:
    """The style for a question's script (falling back to the script of
    *sample*, :func:`audit.scripts.script_of`; Latin for any other)."""
    code = script if script in SCRIPT_STYLES else script_of(sample)
    st = SCRIPT_STYLES.get(code or "Latn", SCRIPT_STYLES["Latn"])
    if code == "Arab" and language:
        # keep the real language tag (ug, kk-Arab, ...) for correct shaping/hyphenation
        st = ScriptStyle(st.code, st.name, language, st.direction, st.vertical, st.font_family,
                         st.font_size, st.line_height)
    return st


# Static CSS (no benchmark text inside).  Injected once per page.
CSS = """
<style>
.wb-text { white-space: pre-wrap; overflow-wrap: break-word; }
.wb-stem { padding: .6rem .9rem; border-radius: .5rem; background: rgba(128,128,128,.07); margin-bottom: .6rem; }
.wb-opts { display: flex; flex-direction: column; gap: .35rem; }
.wb-opt { display: flex; align-items: flex-start; gap: .6rem; padding: .35rem .6rem; border-radius: .45rem;
          border: 1px solid rgba(128,128,128,.25); }
.wb-opt.wb-key { border: 2px solid #1a7f37; background: rgba(26,127,55,.10); }
.wb-opt.wb-top { border-style: dashed; border-color: #b35900; }
.wb-label { font-weight: 700; min-width: 2.2rem; white-space: nowrap; font-family: system-ui, sans-serif;
            font-size: 1rem; padding-top: .2rem; }
.wb-badge { display: inline-block; font-family: system-ui, sans-serif; font-size: .75rem; font-weight: 600;
            padding: .05rem .45rem; border-radius: .6rem; margin-inline-start: .4rem; white-space: nowrap; }
.wb-badge-key { background: #1a7f37; color: #fff; }
.wb-badge-top { background: #b35900; color: #fff; }
.wb-count { font-family: system-ui, sans-serif; font-size: .8rem; color: #555; white-space: nowrap;
            padding-top: .3rem; }
.wb-bar { display: inline-block; height: .55rem; background: #4a72b0; border-radius: .2rem; vertical-align: middle; }
.wb-bar-key { background: #1a7f37; }
.wb-body { flex: 1; min-width: 3rem; }
.wb-badges { display: block; margin-top: .1rem; }
.wb-rtl { text-align: right; }
.wb-vertical-wrap { display: flex; flex-direction: row; gap: .8rem; overflow-x: auto; align-items: flex-start;
                    padding: .5rem; border-radius: .5rem; background: rgba(128,128,128,.05); }
.wb-vertical { writing-mode: vertical-lr; text-orientation: sideways; max-height: 26rem; }
.wb-vertical .wb-opt { flex-direction: column; }
.wb-vertical-wrap .wb-opt { writing-mode: vertical-lr; flex-direction: row; max-height: 26rem; }
.wb-vertical-wrap .wb-label, .wb-vertical-wrap .wb-count { writing-mode: horizontal-tb; min-width: 0; }
.wb-vertical-wrap .wb-opt { padding: .3rem .3rem; gap: .3rem; }
.wb-vertical-wrap .wb-bar { max-width: 40px; }
.wb-vertical-wrap .wb-stem { margin-bottom: 0; }
.wb-vertical-wrap .wb-badges { writing-mode: horizontal-tb; }
.wb-warn { padding: .4rem .7rem; border-radius: .4rem; background: #fff4e5; border: 1px solid #f0b060; color: #5a3a00;
           margin: .2rem 0; font-family: system-ui, sans-serif; }
.wb-family { font-family: system-ui, sans-serif; font-size: .9rem; border-collapse: collapse; }
.wb-family td, .wb-family th { padding: .15rem .5rem; border-bottom: 1px solid rgba(128,128,128,.2); text-align: left; }
.wb-qrow { display: grid;
           grid-template-columns: minmax(0, 9rem) 3.6rem minmax(0, 9rem) minmax(0, 8.5rem) minmax(0, 1fr);
           gap: .6rem; align-items: center; font-family: system-ui, sans-serif; font-size: .92rem; min-height: 2.4rem; }
.wb-qrow > div { min-width: 0; }
.wb-subject { overflow-wrap: anywhere; line-height: 1.25; font-size: .85rem; }
.wb-outcome { font-family: system-ui, sans-serif; font-weight: 600; padding: .3rem .6rem; border-radius: .4rem;
              background: rgba(26,127,55,.10); border: 1px solid rgba(26,127,55,.4); margin: .2rem 0 .4rem 0; }
.wb-outcome.wb-open { background: rgba(128,128,128,.08); border-color: rgba(128,128,128,.3); }
.wb-votes { font-family: system-ui, sans-serif; font-size: .85rem; color: #444; margin: .1rem 0 .3rem 0; }
.wb-qhead { font-weight: 700; min-height: 0; }
.wb-context { padding: .5rem .9rem; border-left: 3px solid rgba(128,128,128,.45); margin-bottom: .6rem;
              background: rgba(128,128,128,.04); }
.wb-context-head { font-family: system-ui, sans-serif; font-size: .8rem; color: #555; margin-bottom: .2rem; }
.wb-preview { display: -webkit-box; -webkit-line-clamp: 2; line-clamp: 2; -webkit-box-orient: vertical;
               white-space: normal; overflow: hidden; max-width: 100%; }
</style>
"""


def _text_attrs(st: ScriptStyle, extra_class: str = "") -> str:
    cls = "wb-text" + (" wb-rtl" if st.direction == "rtl" else "") + (f" {extra_class}" if extra_class else "")
    style = f"font-family: {st.font_family}; font-size: {st.font_size}; line-height: {st.line_height};"
    return f'class="{cls}" lang="{esc(st.lang)}" dir="{st.direction}" style="{style}"'


def text_span(text: str | None, st: ScriptStyle, extra_class: str = "") -> str:
    """One escaped piece of text in the script's font and direction."""
    return f"<div {_text_attrs(st, extra_class)}>{esc(text)}</div>"


def _bar(count: int, total: int, is_key: bool) -> str:
    width = 0 if total <= 0 else round(60 * count / total)
    cls = "wb-bar wb-bar-key" if is_key else "wb-bar"
    return (f'<span class="wb-count"><span class="{cls}" style="width:{width}px"></span> '
            f"{int(count)}/{int(total)}</span>")


def question_html(stem: str | None, options: list[tuple[str, str]], *, script: str | None,
                  language: str | None = None, answer_key: str | None = None,
                  top_answer: str | None = None, counts: dict[str, int] | None = None,
                  n_answers: int = 0, show_label_native: bool = True,
                  key_word: str = "key", top_word: str = "models' top answer",
                  context: str | None = None, option_scripts: list[str | None] | None = None,
                  context_word: str = "Passage", shown_labels: dict[str, str] | None = None) -> str:
    """The stem and its options as HTML.  ``options`` = [(label, text)];
    the key is highlighted, the models' top non-key answer marked, and each
    option gets a small bar with how many models chose it.  *context* (the
    passage the question refers to) comes above the stem; *option_scripts*
    gives an option written in another script than the stem its own
    (vertical Mongolian options under a Chinese stem); ``shown_labels``
    (stored label → the label the item shows, :mod:`audit.i18n.option_labels`)
    names each option as the item does, alone.

    >>> h = question_html("<b>1+1?</b>", [("A", "2"), ("B", "<script>x</script>")], script="Latn", answer_key="A")
    >>> "<script>" in h, "&lt;script&gt;x&lt;/script&gt;" in h, "wb-key" in h
    (False, True, True)
    >>> h = question_html("离山的虎", [("A", "ᠪᠠᠷᠰ"), ("B", "ᠨᠡᠷᠡ")], script="Hans", context="<i>p</i>",
    ...                   option_scripts=["Mong", "Mong"])
    >>> h.index("&lt;i&gt;p&lt;/i&gt;") < h.index("离山的虎"), 'data-script="Mong"' in h, "wb-vertical-wrap" in h
    (True, True, True)
    """
    sample = (stem or "") + " ".join(t for _, t in options)
    st = style_for(script, language, sample)
    own = list(option_scripts or [])
    counts = counts or {}
    opts = []
    any_vertical = False
    for i, (label, text) in enumerate(options):
        ost = st
        if i < len(own) and own[i] and own[i] != st.code:     # an option in a script of its own
            ost = style_for(own[i], None, text)
        any_vertical = any_vertical or ost.vertical
        is_key = answer_key is not None and label == answer_key
        is_top = top_answer is not None and label == top_answer and not is_key
        cls = "wb-opt" + (" wb-key" if is_key else "") + (" wb-top" if is_top else "")
        shown = esc(label)
        if shown_labels is not None:
            as_shown = shown_labels.get(label, label)
            shown = (f'<span lang="bo" style="font-family:{st.font_family}">{esc(as_shown)}</span>'
                     if as_shown in LATIN_TO_TIBETAN.values() else esc(as_shown))
        elif st.code == "Tibt" and show_label_native and label in LATIN_TO_TIBETAN:
            shown += f' <span lang="bo" style="font-family:{st.font_family}">({esc(LATIN_TO_TIBETAN[label])})</span>'
        badges = ""
        if is_key:
            badges += f'<span class="wb-badge wb-badge-key">{esc(key_word)}</span>'
        if is_top:
            badges += f'<span class="wb-badge wb-badge-top">{esc(top_word)}</span>'
        bar = _bar(counts.get(label, 0), n_answers, is_key) if n_answers else ""
        badges = f'<span class="wb-badges">{badges}</span>' if badges else ""
        attr = f' data-script="{ost.code}"' if ost is not st else ""
        opts.append(
            f'<div class="{cls}" dir="{ost.direction}" data-label="{esc(label)}"{attr}>'
            f'<span class="wb-label">{shown}</span>'
            f'<div class="wb-body">{text_span(text, ost)}{badges}</div>{bar}</div>'
        )
    ctx = ""
    if isinstance(context, str) and context.strip():
        cst = style_for(None, language, context)
        ctx = (f'<div class="wb-context" data-script="{cst.code}"><div class="wb-context-head">{esc(context_word)}'
               f'</div>{text_span(context, cst)}</div>')
    if st.vertical:
        return (ctx + f'<div class="wb-vertical-wrap" data-script="{st.code}">'
                f'<div class="wb-stem">{text_span(stem, st, "wb-vertical")}</div>'
                + "".join(opts) + "</div>")
    if any_vertical:   # a horizontal stem over options written vertically: the options side by side
        return (f'<div data-script="{st.code}">{ctx}<div class="wb-stem">{text_span(stem, st)}</div>'
                f'<div class="wb-vertical-wrap">{"".join(opts)}</div></div>')
    return (f'<div data-script="{st.code}">{ctx}<div class="wb-stem">{text_span(stem, st)}</div>'
            f'<div class="wb-opts">{"".join(opts)}</div></div>')


def preview_html(text: str | None, *, script: str | None, language: str | None = None, limit: int = 140) -> str:
    """A one-line preview of a stem for the queue list (always horizontal)."""
    st = style_for(script, language, text)
    short = (text or "").replace("\n", " ")
    if len(short) > limit:
        short = short[:limit] + "…"
    size = "1.1rem" if st.code == "Tibt" else "1rem"
    style = f"font-family: {st.font_family}; font-size: {size}; line-height: 1.7;"
    cls = "wb-preview" + (" wb-rtl" if st.direction == "rtl" else "")
    return f'<div class="{cls}" lang="{esc(st.lang)}" dir="{st.direction}" style="{style}">{esc(short)}</div>'


_STATUS_COLOUR = {"unreviewed": "#6e7781", "needs_second_review": "#b35900", "disputed": "#cf222e",
                  "done": "#1a7f37"}


def _breakable(text: str) -> str:
    """Escaped text that may wrap after ``_`` (long subject names)."""
    return esc(text).replace("_", "_<wbr>")


def queue_row_html(*, subject, tier, agreement_count, n_models, top_answer, answer_key, status,
                   structure_suspect, key_mismatch, reviewed_by_me, stem, script, language,
                   words: dict[str, str] | None = None) -> str:
    """One queue row (everything but the open button) as one HTML block.
    ``words``: the texts shown (``tier``, ``status``, ``models``, ``key``,
    ``suspect``, ``mismatch``, ``mine``), already in the page's language and
    with ``{n}``/``{m}``/``{answer}``/``{key}`` placeholders where needed."""
    w = {"tier": "Tier {n}", "status": status, "models": "{n}/{m} say {answer} (key {key})", "key": "key {key}",
         "suspect": "options may be split wrongly", "mismatch": "source key differs", "mine": "reviewed by you",
         **(words or {})}
    tier_s = "—" if tier is None or tier != tier else w["tier"].format(n=int(tier))
    if top_answer and agreement_count == agreement_count and agreement_count is not None:
        models = esc(w["models"].format(n=int(agreement_count), m=int(n_models), answer="\x00", key=answer_key))
        models = models.replace("\x00", f"<b>{esc(top_answer)}</b>")
    else:
        models = esc(w["key"].format(key=answer_key))
    colour = _STATUS_COLOUR.get(status, "#6e7781")
    extras = []
    if structure_suspect:
        extras.append(f'<span style="color:#b35900">{esc(w["suspect"])}</span>')
    if key_mismatch:
        extras.append(f'<span style="color:#cf222e">{esc(w["mismatch"])}</span>')
    if reviewed_by_me:
        extras.append(f'<span style="color:#0969da">{esc(w["mine"])}</span>')
    return (
        '<div class="wb-qrow">'
        f'<div class="wb-subject" title="{esc(subject or "")}">{_breakable(subject or "—")}</div>'
        f"<div>{esc(tier_s)}</div><div>{models}</div>"
        f'<div><span class="wb-badge" style="background:{colour};color:#fff;white-space:normal">'
        f'{esc(w["status"])}</span>'
        f'<div style="font-size:.8rem">{" · ".join(extras)}</div></div>'
        f'<div style="min-width:0">{preview_html(stem, script=script, language=language)}</div></div>'
    )


def queue_head_html(subject: str = "Subject", tier: str = "Tier", models: str = "Models", status: str = "Status",
                    question: str = "Question") -> str:
    return (
        '<div class="wb-qrow wb-qhead">'
        + "".join(f"<div>{esc(x)}</div>" for x in (subject, tier, models, status, question))
        + "</div>"
    )


QUEUE_HEAD_HTML = queue_head_html()


def warnings_html(messages: list[str]) -> str:
    return "".join(f'<div class="wb-warn">⚠ {esc(m)}</div>' for m in messages)


def family_table_html(rows: list[tuple[str, dict[str, int], int]], labels: list[str], answer_key: str | None,
                      family_word: str = "family", invalid_word: str = "invalid",
                      shown_labels: dict[str, str] | None = None) -> str:
    """Models' answers grouped by family: rows = [(family, {label: n}, n_invalid)];
    ``shown_labels`` names the options as the item does."""
    own = shown_labels or {}
    head = "".join(f"<th>{esc(own.get(l, l))}{' ✓' if l == answer_key else ''}</th>" for l in labels)
    body = []
    for fam, counts, invalid in rows:
        total = sum(counts.values()) + invalid
        cells = []
        for l in labels:
            n = counts.get(l, 0)
            cells.append(f"<td>{_bar(n, total, l == answer_key) if n else '·'}</td>")
        body.append(f"<tr><td><b>{esc(fam)}</b></td>{''.join(cells)}<td>{int(invalid) or '·'}</td></tr>")
    return (f'<table class="wb-family"><tr><th>{esc(family_word)}</th>{head}<th>{esc(invalid_word)}</th></tr>'
            + "".join(body) + "</table>")


HISTORY_CSS = """<style>
.wb-cards { display: flex; flex-direction: column; gap: .5rem; }
.wb-card { border: 1px solid rgba(128,128,128,.35); border-radius: .5rem; padding: .45rem .65rem;
           background: rgba(128,128,128,.04); overflow-wrap: anywhere; line-height: 1.6; }
.wb-card-adj { border-color: #c9a227; background: rgba(201,162,39,.08); }
.wb-card-head { display: flex; flex-wrap: wrap; gap: .2rem .6rem; align-items: baseline; }
.wb-card-who { font-weight: 700; }
.wb-card-when { color: #666; font-size: .85rem; }
.wb-card-verdict { font-weight: 600; }
.wb-card-field { margin-top: .2rem; white-space: pre-wrap; }
.wb-card-field b { font-weight: 600; }
</style>"""


def history_cards_html(rows: list[dict], *, words: dict[str, str]) -> str:
    """Reviewers' verdicts as cards: who, when, the verdict and
    corrected answer, then the cause, the full reason and the proposed fix,
    wrapped (never cut) so a lead can read them at 1024 px.  ``rows``: dicts
    with ``when, reviewer, verdict, answer, cause, rationale, fix,
    adjudication``; empty fields are left out (no "None").  Every text is
    escaped.

    >>> html = history_cards_html([{"when": "2026-01-02 10:00", "reviewer": "<b>Pema</b>", "verdict": "Key wrong",
    ...     "answer": "B", "cause": None, "rationale": "see " * 40, "fix": None, "adjudication": False}],
    ...     words={"answer": "Answer", "cause": "Cause", "rationale": "Reason", "fix": "Fix", "adjudication": "Adj."})
    >>> "&lt;b&gt;Pema" in html, "None" in html, html.count("see ")
    (True, False, 40)
    """
    out = [HISTORY_CSS, '<div class="wb-cards" data-testid="wb-history">']
    for r in rows:
        adj = bool(r.get("adjudication"))
        verdict = esc(r.get("verdict") or "") + (f" → {esc(r['answer'])}" if r.get("answer") else "")
        out.append(
            f'<div class="wb-card{" wb-card-adj" if adj else ""}"><div class="wb-card-head">'
            f'<span class="wb-card-who">{esc(r.get("reviewer") or "")}</span>'
            f'<span class="wb-card-verdict">{verdict}</span>'
            + (f'<span class="wb-badge" style="background:#f4e3a1">{esc(words["adjudication"])}</span>' if adj else "")
            + f'<span class="wb-card-when">{esc(r.get("when") or "")}</span></div>'
        )
        for key in ("cause", "rationale", "fix"):
            if r.get(key):
                out.append(f'<div class="wb-card-field"><b>{esc(words[key])}:</b> {esc(r[key])}</div>')
        out.append("</div>")
    out.append("</div>")
    return "".join(out)
