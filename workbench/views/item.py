"""Item page: one question in its own script, what the models answered, the
parallel source, warnings, the judge, the verdict form and the history.

Keyboard shortcuts (Streamlit's native button shortcuts; they are ignored
while the cursor is in a text box): 1–5 choose a verdict, S saves,
N / P go to the next / previous item of the queue filter, Q back to the queue.

The draft verdict of every item is kept in ``st.session_state`` (not only in
the widgets, whose state Streamlit drops when another page or item is shown),
so moving between items keeps unsaved drafts and a failed save — e.g. the database is locked by an ``audit``
command — loses nothing and the reviewer can simply save again.
"""
from __future__ import annotations

import streamlit as st

import audit
from audit.vocab import CAUSES, VERDICTS
from workbench import render, session
from workbench.views import common, item_evidence, queue

VERDICT_KEYS = list(VERDICTS)                 # shortcut n selects VERDICT_KEYS[n-1]
SHORT_VERDICT_LABELS = {
    "key_correct": "Key correct",
    "key_wrong": "Key wrong",
    "ambiguous": "Ambiguous",
    "defective": "Defective",
    "skip": "Skip",
}
VERDICT_BUTTON_LABELS = {
    "key_correct": "Key correct",
    "key_wrong": "Key wrong → give the corrected answer",
    "ambiguous": "Ambiguous: several defensible answers",
    "defective": "Question defective",
    "skip": "Skip (decide later)",
}
NO_CAUSE = "—"
FIELDS = ("verdict", "answer", "cause", "rationale", "fix", "adjudicate")


def _wkey(bench: str, qid: str, field: str) -> str:
    return f"form::{bench}::{qid}::{field}"


def _draft_key(bench: str, qid: str) -> str:
    return f"draft::{bench}::{qid}"


def _draft(bench: str, qid: str) -> dict:
    return st.session_state.setdefault(_draft_key(bench, qid), {})


def _keep(bench: str, qid: str, field: str) -> None:
    """on_change: copy a widget's value into the item's draft."""
    _draft(bench, qid)[field] = st.session_state.get(_wkey(bench, qid, field))


def _seed(bench: str, qid: str, field: str, default):
    """Widget key for ``field``, seeded from the draft when the widget has
    no state (first show, or after another page was open)."""
    k = _wkey(bench, qid, field)
    if k not in st.session_state:
        st.session_state[k] = _draft(bench, qid).get(field, default)
    return k


def _pick_verdict(bench: str, qid: str, verdict: str) -> None:
    st.session_state[_wkey(bench, qid, "verdict")] = verdict
    _draft(bench, qid)["verdict"] = verdict


def _clear_form(bench: str, qid: str) -> None:
    for f in FIELDS:
        st.session_state.pop(_wkey(bench, qid, f), None)
    st.session_state.pop(_draft_key(bench, qid), None)


def _save(bench: str, qid: str) -> None:
    """on_click of Save: append the verdict through audit.review.add_review."""
    for f in FIELDS:  # the widgets' latest values are the draft
        k = _wkey(bench, qid, f)
        if k in st.session_state:
            _draft(bench, qid)[f] = st.session_state[k]
    d = dict(_draft(bench, qid))
    verdict = d.get("verdict")
    if not verdict:
        st.session_state["wb_save_error"] = (qid, "Choose a verdict first (keys 1–5).")
        return
    answer = d.get("answer") if verdict == "key_wrong" else None
    if verdict == "key_wrong" and not answer:
        st.session_state["wb_save_error"] = (qid, "Key wrong: choose the corrected answer.")
        return
    cause = d.get("cause")
    try:
        audit.review.add_review(bench, qid, session.reviewer(), verdict,
            corrected_answer=answer,
            cause=None if cause in (None, NO_CAUSE) else cause,
            rationale=d.get("rationale") or None,
            proposed_fix=d.get("fix") or None,
            is_adjudication=bool(d.get("adjudicate")),
            source="workbench", app_version=audit.__version__,
            db=session.db_path(),
        )
    except audit.DatabaseLockedError:
        st.session_state["wb_save_error"] = (qid, common.LOCKED_MESSAGE)
        return
    except audit.AuditError as exc:
        st.session_state["wb_save_error"] = (qid, f"Not saved: {render.md(exc)}")
        return
    _clear_form(bench, qid)
    what = "Adjudication" if d.get("adjudicate") else "Verdict"
    label = SHORT_VERDICT_LABELS[verdict] + (f" → {answer}" if answer else "")
    session.flash("success", f"{what} saved for {render.md(qid)}: **{label}**.")


UNKNOWN = object()  # a neighbour not in the queue page the reviewer came from


def _known_neighbours(bench: str, qid: str, flt: dict) -> tuple:
    """Previous / next from the queue page last shown (no query); UNKNOWN at
    the page's edges, None at the ends of the whole queue."""
    cached = st.session_state.get(queue.K_QUEUE_IDS)
    if not cached or cached["benchmark"] != bench or cached["filter"] != repr(flt) or qid not in cached["ids"]:
        return UNKNOWN, UNKNOWN
    ids, i = cached["ids"], cached["ids"].index(qid)
    prev_id = ids[i - 1] if i > 0 else (None if cached["first_page"] else UNKNOWN)
    next_id = ids[i + 1] if i + 1 < len(ids) else (UNKNOWN if cached["has_more"] else None)
    return prev_id, next_id


def _step(bench: str, qid: str, target, direction: int, flt: dict) -> None:
    """on_click of Previous / Next: open the neighbour, asking audit for it
    when the queue page did not show it."""
    if target is UNKNOWN:
        try:
            prev_id, next_id = audit.review.neighbours(bench, qid, db=session.db_path(), **flt)
        except audit.AuditError as exc:
            session.flash("error", render.md(exc))
            return
        target = next_id if direction > 0 else prev_id
    if target is None:
        session.flash("info", "This is the " + ("last" if direction > 0 else "first") + " item of the queue.")
        return
    session.open_item(bench, target)


def _header(view, bench: str, qid: str, flt: dict) -> None:
    prev_id, next_id = _known_neighbours(bench, qid, flt)
    q = view.question
    a = view.audit
    left, back, mid, right = st.columns([4.4, 1.2, 1.4, 1.2])
    with left:
        tier = "not audited" if a is None or a.tier is None else f"Tier {a.tier}"
        st.markdown(f"### Item {render.md(qid)}")
        st.html(f'<div style="font-family:system-ui;color:#555">{render.esc(bench)} · subject '
                f'<b>{render.esc(q.subject or "—")}</b> · {render.esc(tier)} · status '
                f'<b>{render.esc(audit.review.STATUS_LABELS.get(view.status, view.status))}</b> '
                f'({view.n_verdicts} of {view.required} reviews)</div>')
    with back:
        if st.button("Queue", key="back_queue", shortcut="Q", icon=":material/checklist:",
                     width="stretch", help="Back to the queue"):
            from workbench import nav

            st.switch_page(nav.queue_page())
    with mid:
        st.button("Previous", key="nav_prev", shortcut="P", icon=":material/arrow_back:", disabled=prev_id is None,
                  on_click=_step, args=(bench, qid, prev_id, -1, flt), width="stretch")
    with right:
        st.button("Next", key="nav_next", shortcut="N", icon=":material/arrow_forward:", disabled=next_id is None,
                  on_click=_step, args=(bench, qid, next_id, 1, flt), width="stretch")


def _warnings(view) -> list[str]:
    q = view.question
    out = []
    if q.structure_suspect:
        out.append("The options of this item could not be parsed with confidence"
                   + (f": {q.structure_reason}" if q.structure_reason else "") + ". Check the raw text below.")
    for f in q.flags:
        out.append({"key_not_in_options": "The answer key is not one of the options.",
                    "duplicate_options": "Two options have the same text."}.get(f, f"Flag: {f}"))
    if view.parallel is not None and view.parallel.key_match is False:
        out.append(f"The parallel source item ({view.parallel.source} {view.parallel.counterpart_id}) "
                   f"has a different key: {view.parallel.key} instead of {q.answer_key}.")
    if view.n_invalid:
        out.append(f"{view.n_invalid} model answer(s) could not be read as an option.")
    return out


def _question(view) -> None:
    q = view.question
    counts = {oc.label: oc.n for oc in view.option_counts}
    n_answers = sum(counts.values()) + view.n_invalid
    html = render.question_html(
        q.stem, [(o.label, o.text) for o in q.options], script=q.script, language=q.language,
        answer_key=q.answer_key, top_answer=view.audit.top_answer if view.audit else None,
        counts=counts, n_answers=n_answers)
    par = view.parallel
    if par is not None:
        c1, c2 = st.columns(2)
        with c1:
            st.caption("This benchmark")
            st.html(html)
        with c2:
            st.caption(f"Parallel source: {render.md(par.source)} {render.md(par.counterpart_id)}")
            st.html(render.question_html(par.stem, [(o.label, o.text) for o in par.options],
                                         script=None, language=par.language, answer_key=par.key))
    else:
        st.html(html)
    if view.audit is not None and view.audit.top_answer:
        a = view.audit
        st.caption(f"{a.agreement_count} of {a.n_models} models ({a.agreeing_families} families) chose "
                   f"{a.top_answer}; {a.n_correct} chose the key. The green box is the key, the dashed box "
                   "the models' top other answer; bars show how many models chose each option.")


def _models(view) -> None:
    if not view.families:
        st.caption("No model answers have been imported for this item.")
        return
    labels = [o.label for o in view.question.options]
    rows = []
    for fam in view.families:
        c: dict[str, int] = {}
        invalid = 0
        for m in fam.answers:
            if m.valid and m.answer in labels:
                c[m.answer] = c.get(m.answer, 0) + 1
            else:
                invalid += 1
        rows.append((fam.family, c, invalid))
    st.html(render.family_table_html(rows, labels, view.question.answer_key))
    st_ = render.style_for(view.question.script, view.question.language, view.question.stem)
    for fam in view.families:
        with st.expander(f"{render.md(fam.family)}: raw responses of {len(fam.answers)} model(s)"):
            parts = []
            for m in fam.answers:
                ans = m.answer if m.valid and m.answer else "no valid answer"
                parts.append(
                    f'<div style="margin:.3rem 0"><b style="font-family:system-ui">{render.esc(m.model)}</b> '
                    f'<span style="font-family:system-ui;color:#555">→ {render.esc(ans)} '
                    f'({render.esc(m.method)}, run {render.esc(m.run)})</span>'
                    f'<div class="wb-text" style="font-family:{st_.font_family};background:rgba(128,128,128,.08);'
                    f'padding:.3rem .5rem;border-radius:.3rem">{render.esc(m.response if m.response is not None else "(only a letter was given)")}</div></div>')
            st.html("".join(parts))


def _judges(view) -> None:
    for j in view.judges:
        ok = {True: "key correct", False: "key wrong", None: "no decision"}[j.answer_key_correct]
        extra = f" → {j.correct_answer}" if j.correct_answer and j.answer_key_correct is False else ""
        conf = f", confidence {j.confidence:.2f}" if j.confidence is not None else ""
        st.html(f'<div class="wb-warn" style="background:#eef4ff;border-color:#8fb0e8;color:#12305a">'
                f'<b>Judge {render.esc(j.judge or "")}</b>: {render.esc(ok + extra + conf)}'
                f'<div class="wb-text">{render.esc(j.explanation or "")}</div></div>')


def _history(view) -> None:
    st.markdown("#### History")
    if view.history_hidden and view.n_hidden:
        st.info(f"{view.n_hidden} verdict(s) by other reviewers are hidden until you save your own "
                "(independent double review).", icon=":material/visibility_off:")
    if not view.history:
        st.caption("No verdict recorded yet." if not view.n_hidden else "")
        return
    import pandas as pd

    df = pd.DataFrame([{
        "when (UTC)": r.created_at, "reviewer": r.reviewer, "verdict": r.verdict,
        "corrected": r.corrected_answer, "cause": r.cause, "rationale": r.rationale,
        "proposed fix": r.proposed_fix, "adjudication": r.is_adjudication, "source": r.source,
    } for r in view.history])
    st.dataframe(df, hide_index=True, width="stretch", key="history_table")


def _form(view, bench: str, qid: str) -> None:
    q = view.question
    adjudicating = view.status == "disputed" and view.can_adjudicate
    st.markdown("#### Adjudication" if adjudicating else "#### Your verdict")
    if view.reviewed_by_me and not adjudicating:
        st.caption("You have already saved a verdict on this item (see the history). Saving again adds "
                   "a new row; your latest one counts.")
    if adjudicating:
        st.warning("The reviewers disagree on this item. As a lead reviewer you can record the "
                   "adjudicated verdict; it settles the item.", icon=":material/gavel:")
    # One button per verdict, shortcuts 1–5; the chosen one is highlighted.
    vk = _seed(bench, qid, "verdict", None)
    verdict = st.session_state.get(vk)
    for i, v in enumerate(VERDICT_KEYS, start=1):
        st.button(VERDICT_BUTTON_LABELS[v], key=f"vbtn_{v}", shortcut=str(i),
                  type="primary" if v == verdict else "secondary",
                  icon=":material/radio_button_checked:" if v == verdict else ":material/radio_button_unchecked:",
                  on_click=_pick_verdict, args=(bench, qid, v), width="stretch", help=VERDICTS[v])
    answers = [o.label for o in q.options if o.label != q.answer_key]
    ak = _seed(bench, qid, "answer", None)
    if st.session_state.get(ak) not in answers:
        st.session_state[ak] = None
    c1, c2 = st.columns(2)
    with c1:
        st.selectbox("Corrected answer (for 'key wrong')", answers, key=ak,
                     placeholder="choose the right option", disabled=verdict != "key_wrong",
                     on_change=_keep, args=(bench, qid, "answer"))
    with c2:
        ck = _seed(bench, qid, "cause", NO_CAUSE)
        st.selectbox("Cause", [NO_CAUSE, *CAUSES], key=ck,
                     format_func=lambda c: c if c == NO_CAUSE else CAUSES[c],
                     on_change=_keep, args=(bench, qid, "cause"))
    st.text_area("Rationale", key=_seed(bench, qid, "rationale", ""), height=90,
                 placeholder="Why? (e.g. the translation changed the meaning of option B)",
                 on_change=_keep, args=(bench, qid, "rationale"))
    st.text_area("Proposed fix (optional)", key=_seed(bench, qid, "fix", ""), height=70,
                 placeholder="Corrected wording of the stem or an option", on_change=_keep,
                 args=(bench, qid, "fix"))
    if adjudicating:
        st.checkbox("Record as the adjudicated verdict", key=_seed(bench, qid, "adjudicate", False),
                    on_change=_keep, args=(bench, qid, "adjudicate"))
    err = st.session_state.pop("wb_save_error", None)
    if err and err[0] == qid:
        st.error(err[1], icon=":material/lock:" if err[1] == common.LOCKED_MESSAGE else ":material/error:")
    st.button("Save verdict", key="save", type="primary", shortcut="S", icon=":material/save:",
              on_click=_save, args=(bench, qid))
    st.caption("Shortcuts: **1**–**5** choose a verdict, **S** saves, **N** / **P** next / previous item, "
               "**Q** back to the queue (not while typing in a text box — click outside it first).")


def page() -> None:
    common.css()
    cur = session.current_item()
    if cur is None:
        st.title("Item")
        st.info("Open an item from the queue.")
        return
    bench, qid = cur
    st.query_params.update({"benchmark": bench, "question": qid})
    db = session.db_path()
    me = session.reviewer()
    cache_key = "wb_last_view"
    last = st.session_state.get(cache_key)
    have_last = last is not None and (last.question.benchmark, last.question.question_id) == (bench, qid)
    try:
        view = audit.review.item_view(bench, qid, reviewer=me, db=db)
    except audit.DatabaseLockedError:
        if not have_last:
            st.error(common.LOCKED_MESSAGE, icon=":material/lock:")
            return
        view = last  # keep the page (and the unsaved form) usable while the file is busy
        st.warning("The database is busy right now; the item is shown as it was last loaded.",
                   icon=":material/lock:")
    except audit.AuditError as exc:
        st.error(render.md(exc))
        return
    else:
        st.session_state[cache_key] = view
    flt = queue.queue_filter(bench, me)
    _header(view, bench, qid, flt)
    session.show_flash()
    warns = _warnings(view)
    if warns:
        st.html(render.warnings_html(warns))
    main, side = st.columns([7, 4], gap="large")
    with main:
        _question(view)
        item_evidence.show(bench, qid, db)
        if view.judges:
            _judges(view)
        st.markdown("#### Model answers by family")
        _models(view)
        if view.question.raw_text:
            with st.expander("Raw text as imported"):
                st_ = render.style_for(view.question.script, view.question.language, view.question.raw_text)
                st.html(render.text_span(view.question.raw_text, st_))
        if view.question.explanation:
            with st.expander("Explanation given with the benchmark"):
                st_ = render.style_for(view.question.script, view.question.language, view.question.explanation)
                st.html(render.text_span(view.question.explanation, st_))
    with side:
        _form(view, bench, qid)
        _history(view)
