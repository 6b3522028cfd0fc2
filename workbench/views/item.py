"""Item page: one question in its own script, what the models answered, the
parallel source, warnings, the judge, the verdict form and the history.

Layout: the question and its options take two thirds of the width (the
Tibetan text needs the room); the verdict form sits on the right, compact
enough that Save is visible without scrolling at 1280×720 for a 4-option
item.  The model vote summary is one line above a per-family table kept in
an expander.

Keyboard shortcuts (Streamlit's native button shortcuts; they are ignored
while the cursor is in a text box): 1–5 choose a verdict, S saves,
N / P go to the next / previous item of the queue filter, Q back to the queue.

Speed: the verdict form is a fragment (choosing a verdict reruns only the
form); the item is read through a cache invalidated by any write to the
database file; Save, by default, opens the next item that still needs this
reviewer (``audit.review.queue.next_for_reviewer``) in the same run.

The draft verdict of every item is kept in ``st.session_state`` (not only in
the widgets, whose state Streamlit drops when another page or item is shown),
so moving between items keeps unsaved drafts and a failed save — e.g. the
database is locked by an ``audit`` command — loses nothing and the reviewer
can simply save again.
"""
from __future__ import annotations

import streamlit as st

import audit
import audit.review.changes
import audit.review.queue
from audit import i18n
from audit.i18n import option_labels
from audit.vocab import CAUSES, VERDICTS
from workbench import render, routing, session
from workbench.views import common, item_evidence, item_reports, queue
from workbench.views.common import t

VERDICT_KEYS = list(VERDICTS)                 # shortcut n selects VERDICT_KEYS[n-1]
NO_CAUSE = "—"
FIELDS = ("verdict", "answer", "cause", "rationale", "fix", "adjudicate")
K_MOVE_ON = "wb_move_on"                      # Save opens the next item that needs me (default True)
K_LAST_VIEW = "wb_last_view"


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
    """on_click of a verdict button.  A cause and a corrected answer belong
    to the verdict they were chosen for: a different verdict clears both."""
    k = _wkey(bench, qid, "verdict")
    if st.session_state.get(k) != verdict:
        for field, empty in (("answer", None), ("cause", NO_CAUSE)):
            st.session_state[_wkey(bench, qid, field)] = empty
            _draft(bench, qid)[field] = empty
    st.session_state[k] = verdict
    _draft(bench, qid)["verdict"] = verdict


def _clear_form(bench: str, qid: str) -> None:
    for f in FIELDS:
        st.session_state.pop(_wkey(bench, qid, f), None)
    st.session_state.pop(_draft_key(bench, qid), None)


def _option_shown(view, label: str | None) -> str | None:
    """An option label as the item itself shows it (ཀ for C on an item whose
    options are labelled ཀ ཁ ག ང; C on TLUE, whose text writes A.–D.), in
    every interface language (:mod:`audit.i18n.option_labels`)."""
    return option_labels.shown(view.shown_labels, label)


def _save(bench: str, qid: str) -> None:
    """on_click of Save: append the verdict through audit.review.add_review,
    then (by default) open the next item that still needs this reviewer."""
    for f in FIELDS:  # the widgets' latest values are the draft
        k = _wkey(bench, qid, f)
        if k in st.session_state:
            _draft(bench, qid)[f] = st.session_state[k]
    d = dict(_draft(bench, qid))
    verdict = d.get("verdict")
    if not verdict:
        st.session_state["wb_save_error"] = (qid, t("item.err_no_verdict"))
        return
    answer = d.get("answer") if verdict == "key_wrong" else None
    if verdict == "key_wrong" and not answer:
        st.session_state["wb_save_error"] = (qid, t("item.err_no_answer"))
        return
    cause = d.get("cause")
    me = session.reviewer()
    db = session.db_path()
    # A second verdict is a revision only when the page showed this reviewer's
    # earlier one; a stale tab (shown before that save) is refused.
    shown = st.session_state.get(K_LAST_VIEW)
    revision = bool(shown is not None and (shown.question.benchmark, shown.question.question_id) == (bench, qid)
                    and shown.reviewed_by_me)
    try:
        audit.review.add_review(bench, qid, me, verdict, revision=revision,
            corrected_answer=answer,
            cause=None if cause in (None, NO_CAUSE) else cause,
            rationale=d.get("rationale") or None,
            proposed_fix=d.get("fix") or None,
            is_adjudication=bool(d.get("adjudicate")),
            source="workbench", app_version=audit.__version__,
            db=db, actor=session.actor(),
        )
    except audit.DatabaseLockedError:
        st.session_state["wb_save_error"] = (qid, t("common.locked"))
        return
    except audit.AuditError as exc:
        st.session_state["wb_save_error"] = (qid, t("item.not_saved", error=render.md(exc)))
        return
    common.note_write(bench, qid)
    st.session_state.setdefault("wb_saved_ids", set()).add((bench, qid))
    _clear_form(bench, qid)
    what = t("item.saved_adjudication") if d.get("adjudicate") else t("item.saved_verdict")
    last = st.session_state.get(K_LAST_VIEW)
    shown = _option_shown(last, answer) if last is not None else answer
    lab = common.label("verdict", verdict) + (f" → {shown}" if answer else "")
    session.flash("success", t("item.saved", what=what, qid=render.md(qid), label=lab))
    if st.session_state.get(K_MOVE_ON, True) and me:
        flt = queue.queue_filter(bench, me)
        nxt = _next_from_queue_page(bench, qid, flt)
        if nxt is None:
            try:
                nxt = audit.review.queue.next_for_reviewer(
                    bench, me, after=qid, db=db,
                    **{k: v for k, v in flt.items() if k not in ("status", "reviewer")})
            except audit.AuditError:
                nxt = None
        if nxt is None:
            session.flash("success", t("item.saved", what=what, qid=render.md(qid), label=lab)
                          + " " + t("item.all_done"))
        else:
            session.open_item(bench, nxt)
    st.session_state["wb_saved_rerun"] = True


def _next_from_queue_page(bench: str, qid: str, flt: dict) -> str | None:
    """The item after ``qid`` on the "needs my verdict" queue page last shown
    (no query); None when that page does not tell (other filter, last row)."""
    cached = st.session_state.get(queue.K_QUEUE_IDS)
    if (not cached or flt.get("status") != "needs_me" or cached["benchmark"] != bench
            or cached["filter"] != repr(flt) or qid not in cached["ids"]):
        return None
    done = st.session_state.setdefault("wb_saved_ids", set())
    ids = cached["ids"]
    return next((x for x in ids[ids.index(qid) + 1:] if (bench, x) not in done), None)


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
            prev_id, next_id = audit.review.queue.neighbours(bench, qid, db=session.db_path(), **flt)
        except audit.AuditError as exc:
            session.flash("error", common.error_text(exc))
            return
        target = next_id if direction > 0 else prev_id
    if target is None:
        session.flash("info", t("item.last") if direction > 0 else t("item.first"))
        return
    session.open_item(bench, target)


def _header(view, bench: str, qid: str, flt: dict) -> None:
    prev_id, next_id = _known_neighbours(bench, qid, flt)
    q = view.question
    a = view.audit
    # the three buttons wrap onto a second line rather than squeeze their words (1024 px, sidebar open)
    left, right = st.columns([3, 2.2], vertical_alignment="center")
    with left:
        tier = t("item.not_audited") if a is None or a.tier is None else t("queue.tier_n", n=a.tier)
        st.markdown(f"#### {t('item.heading', qid=render.md(qid))}")
        if view.evidence_hidden:   # evidence-blind: not even the tier (it says what the models think)
            meta = t("item.meta_blind", bench=bench, subject=common.subject_name(q.subject) or "—")
        else:
            meta = t("item.meta_n", bench=bench, subject=common.subject_name(q.subject) or "—", tier=tier,
                     status=common.label("status", view.status), count=verdict_count(view.n_verdicts, view.required))
        st.html('<div class="wb-meta" style="font-family:system-ui;color:#555;font-size:.9rem">'
                + render.esc(meta) + "</div>")
    with right, st.container(horizontal=True, horizontal_alignment="right", key="item_nav"):
        st.button(t("item.queue"), key="back_queue", shortcut="Q", icon=":material/checklist:",
                  width="content", help=t("item.queue_help"), on_click=routing.go, args=("queue",))
        st.button(t("item.prev"), key="nav_prev", shortcut="P", icon=":material/arrow_back:", disabled=prev_id is None,
                  on_click=_step, args=(bench, qid, prev_id, -1, flt), width="content")
        st.button(
            t("item.next"),
            key="nav_next",
            shortcut="N",
            icon=":material/arrow_forward:",
            disabled=next_id is None,
            on_click=_step,
            args=(bench, qid, next_id, 1, flt),
            width="content",
        )


def verdict_count(n: int, required: int) -> str:
    """"1 of 2 verdicts" while more are needed; "3 verdicts" once there are
    enough (never "3 of 2")."""
    return t("item.count_of", n=n, m=required) if n < required else t("item.count", n=n)


def _warnings(view) -> list[str]:
    q = view.question
    out = []
    if q.structure_suspect:
        out.append(t("item.warn_suspect", reason=f" ({q.structure_reason})" if q.structure_reason else ""))
    for f in q.flags:
        if f == "structure_suspect" and q.structure_suspect:
            continue
        out.append(t("item.warn_flag", flag=common.label("flag", f)))
    if view.parallel is not None and not view.parallel.key_match:
        out.append(t("item.warn_parallel", source=view.parallel.source, id=view.parallel.counterpart_id,
                     pkey=view.parallel.key, key=_option_shown(view, q.answer_key)))
    if view.n_invalid:
        out.append(t("item.warn_invalid", n=view.n_invalid))
    return out


def _question(view) -> None:
    q = view.question
    counts = {oc.label: oc.n for oc in view.option_counts}
    n_answers = sum(counts.values()) + view.n_invalid
    words = {"key_word": t("item.key"), "top_word": t("item.models_top")}
    html = render.question_html(
        q.stem, [(o.label, o.text) for o in q.options], script=q.script, language=q.language,
        answer_key=q.answer_key, top_answer=view.audit.top_answer if view.audit else None,
        counts=counts, n_answers=n_answers, context=q.context, option_scripts=q.option_scripts,
        context_word=t("item.passage"), shown_labels=view.shown_labels, **words)
    st.html(html)
    par = view.parallel
    if par is not None:
        # the parallel source right under the question, compact (options two by two), so the
        # benchmark's own text keeps the whole width of the column
        head = render.esc(t("item.parallel", source=par.source, id=par.counterpart_id))
        st.html(f'<div class="wb-par"><div class="wb-par-head">{head}</div>'
                + render.question_html(par.stem, [(o.label, o.text) for o in par.options],
                                       script=None, language=par.language, answer_key=par.key, **words)
                + "</div>")


def _vote_summary(view) -> None:
    """One line: how many models chose what (the compact summary)."""
    a = view.audit
    if not view.families:
        st.caption(t("item.vote_none"))
        return
    if a is not None and a.top_answer:
        text = t("item.vote_summary", agree=a.agreement_count, n=a.n_models, fam=a.agreeing_families,
                 top=_option_shown(view, a.top_answer), correct=a.n_correct,
                 key=_option_shown(view, view.question.answer_key))
        st.html(f'<div class="wb-votes">{render.esc(text)} {render.esc(t("item.vote_legend"))}</div>')
    else:
        st.html(f'<div class="wb-votes">{render.esc(t("item.vote_legend"))}</div>')


def _models(view) -> None:
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
    st.html(render.family_table_html(rows, labels, view.question.answer_key,
                                     family_word=t("item.family"), invalid_word=t("item.invalid"),
                                     shown_labels=view.shown_labels))
    st_ = render.style_for(view.question.script, view.question.language, view.question.stem)
    parts = []
    for fam in view.families:
        parts.append(f'<details><summary style="font-family:system-ui;font-size:.9rem">'
                     f'{render.esc(t("item.raw_responses", family=fam.family, n=len(fam.answers)))}</summary>')
        for m in fam.answers:
            ans = _option_shown(view, m.answer) if m.valid and m.answer else t("item.no_valid_answer")
            run = f" ({render.esc(t('item.run', run=m.run))})" if m.run and m.run != "default" else ""
            parts.append(
                f'<div style="margin:.3rem 0"><b style="font-family:system-ui">{render.esc(m.model)}</b> '
                f'<span style="font-family:system-ui;color:#555">→ {render.esc(ans)}{run}</span>'
                f'<div class="wb-text" style="font-family:{st_.font_family};background:rgba(128,128,128,.08);'
                f'padding:.3rem .5rem;border-radius:.3rem">'
                f'{render.esc(m.response if m.response is not None else t("item.only_letter"))}</div></div>')
        parts.append("</details>")
    st.html("".join(parts))


def _judges(view) -> None:
    for j in view.judges:
        ok = {True: t("item.judge_ok"), False: t("item.judge_wrong"), None: t("item.judge_none")}[j.answer_key_correct]
        extra = (
            f" → {_option_shown(view, j.correct_answer)}" if j.correct_answer and j.answer_key_correct is False else ""
        )
        conf = ", " + t("item.judge_conf", c=f"{j.confidence:.2f}") if j.confidence is not None else ""
        st.html(f'<div class="wb-warn" style="background:#eef4ff;border-color:#8fb0e8;color:#12305a">'
                f'<b>{render.esc(t("item.judge", name=j.judge or ""))}</b>: {render.esc(ok + extra + conf)}'
                f'<div class="wb-text">{render.esc(j.explanation or "")}</div></div>')


def outcome_text(view) -> str:
    """The item's outcome as one sentence ("Settled: key wrong → ག")."""
    return i18n.outcome(
        view.status, view.settled_verdict, view.settled_answer, adjudicated=view.adjudicated,
        option_label=_option_shown(view, view.settled_answer), lang=common.lang())


def _history(view) -> None:
    st.markdown(f"##### {t('item.history')}")
    settled = view.status == "done"
    if not view.history_hidden or settled:
        st.html(f'<div class="wb-outcome{"" if settled else " wb-open"}" data-testid="wb-outcome">'
                f'{render.esc(outcome_text(view))}</div>')
    if view.history_hidden and view.n_hidden:
        st.info(t("item.hidden", n=view.n_hidden), icon=":material/visibility_off:")
    if not view.history:
        if not view.n_hidden:
            st.caption(t("item.no_history"))
        return
    st.html(
        render.history_cards_html(
            [
                {
                    "when": r.created_at.strftime("%Y-%m-%d %H:%M")
                    if hasattr(r.created_at, "strftime")
                    else str(r.created_at or ""),
                    "reviewer": r.reviewer,
                    "verdict": common.label("verdict", r.verdict),
                    "answer": _option_shown(view, r.corrected_answer),
                    "cause": common.label("cause", r.cause) if r.cause else None,
                    "rationale": r.rationale,
                    "fix": r.proposed_fix,
                    "adjudication": bool(r.is_adjudication),
                }
                for r in view.history
            ],
            words={
                "answer": t("item.corrected"),
                "cause": t("item.cause"),
                "rationale": t("item.rationale"),
                "fix": t("item.fix"),
                "adjudication": t("item.adjudication"),
            },
        )
    )


@st.fragment
def _form(view, bench: str, qid: str) -> None:
    """The verdict form (a fragment: choosing a verdict reruns only this)."""
    session.check_fragment()   # an ended session saves nothing and leaves the page, fragment reruns included
    if st.session_state.pop("wb_saved_rerun", False):
        # only this fragment ran after Save: show the next item (or this one with its history)
        st.rerun(scope="app")
    q = view.question
    adjudicating = view.status == "disputed" and view.can_adjudicate
    st.markdown(f"##### {t('item.adjudication') if adjudicating else t('item.your_verdict')}")
    if view.answered_blind:
        st.caption(t("item.blind_was", answer=_option_shown(view, view.blind_answer) or t("item.blind_none")))
    if view.reviewed_by_me and not adjudicating:
        st.caption(t("item.already"))
    if adjudicating:
        st.warning(t("item.adjudicate_default"), icon=":material/gavel:")
    # One button per verdict, shortcuts 1–5; the chosen one is highlighted.
    vk = _seed(bench, qid, "verdict", None)
    verdict = st.session_state.get(vk)
    for i, v in enumerate(VERDICT_KEYS, start=1):
        st.button(t(f"btn.{v}"), key=f"vbtn_{v}", shortcut=str(i),
                  type="primary" if v == verdict else "secondary",
                  icon=":material/radio_button_checked:" if v == verdict else ":material/radio_button_unchecked:",
                  on_click=_pick_verdict, args=(bench, qid, v), width="stretch", help=t(f"help.{v}"))
    answers = [o.label for o in q.options if o.label != q.answer_key]
    ak = _seed(bench, qid, "answer", None)
    if st.session_state.get(ak) not in answers:
        st.session_state[ak] = None
    c1, c2 = st.columns(2)
    with c1:
        st.selectbox(t("item.corrected"), answers, key=ak, format_func=lambda l: _option_shown(view, l),
                     placeholder=t("item.corrected_placeholder"), disabled=verdict != "key_wrong",
                     on_change=_keep, args=(bench, qid, "answer"))
    with c2:
        ck = _seed(bench, qid, "cause", NO_CAUSE)
        if st.session_state.get(ck) not in (NO_CAUSE, *CAUSES):  # e.g. after a language switch
            st.session_state[ck] = NO_CAUSE
        st.selectbox(t("item.cause"), [NO_CAUSE, *CAUSES], key=ck,
                     format_func=lambda c: c if c == NO_CAUSE else common.label("cause", c),
                     on_change=_keep, args=(bench, qid, "cause"))
    st.text_area(t("item.rationale"), key=_seed(bench, qid, "rationale", ""), height=68,
                 placeholder=t("item.rationale_placeholder"), on_change=_keep, args=(bench, qid, "rationale"))
    fk = _seed(bench, qid, "fix", "")
    with st.expander(t("item.fix"), expanded=bool(st.session_state.get(fk))):
        st.text_area(t("item.fix"), key=fk, height=70, label_visibility="collapsed",
                     placeholder=t("item.fix_placeholder"), on_change=_keep, args=(bench, qid, "fix"))
    if adjudicating:
        # ticked by default: a lead's verdict on a dispute decides it; unticked, it is an ordinary
        # verdict, and the lead may still decide later (audit.review.dispute)
        st.checkbox(t("item.record_adjudication"), key=_seed(bench, qid, "adjudicate", True),
                    on_change=_keep, args=(bench, qid, "adjudicate"), help=t("item.adjudicate_help"))
    err = st.session_state.pop("wb_save_error", None)
    if err and err[0] == qid:
        st.error(err[1], icon=":material/lock:" if err[1] == t("common.locked") else ":material/error:")
    st.button(t("item.save"), key="save", type="primary", shortcut="S", icon=":material/save:",
              on_click=_save, args=(bench, qid), width="stretch")
    st.session_state.setdefault(K_MOVE_ON, True)
    st.toggle(t("item.move_on"), key=K_MOVE_ON, help=t("item.move_on_help"))
    st.caption(t("item.shortcuts"))


def _record_blind(bench: str, qid: str) -> None:
    """on_click of "Record my answer": the blind answer, then the evidence."""
    choice = st.session_state.get(f"blind::{bench}::{qid}")
    if choice is None:
        st.session_state["wb_save_error"] = (qid, t("item.blind_choose"))
        return
    try:
        audit.review.blind.record_blind_answer(bench, qid, session.reviewer(), None if choice == BLIND_NONE else choice,
                                               source="workbench", db=session.db_path())
    except audit.DatabaseLockedError:
        st.session_state["wb_save_error"] = (qid, t("common.locked"))
        return
    except audit.AuditError as exc:
        st.session_state["wb_save_error"] = (qid, t("item.not_saved", error=render.md(exc)))
        return
    common.note_write(bench, qid)


BLIND_NONE = "—"


def _blind_form(view, bench: str, qid: str) -> None:
    """Evidence-blind review: the reviewer's own answer first (the evidence
    and the verdict form appear once it is recorded)."""
    st.markdown(f"##### {t('item.blind_title')}")
    st.caption(t("item.blind_intro"))
    labels = [o.label for o in view.question.options] + [BLIND_NONE]
    st.radio(t("item.blind_answer"), labels, index=None, key=f"blind::{bench}::{qid}",
             format_func=lambda l: t("item.blind_none") if l == BLIND_NONE else _option_shown(view, l))
    err = st.session_state.pop("wb_save_error", None)
    if err and err[0] == qid:
        st.error(err[1], icon=":material/error:")
    st.button(t("item.blind_save"), key="blind_save", type="primary", icon=":material/visibility:",
              on_click=_record_blind, args=(bench, qid), width="stretch")


@st.cache_data(ttl=common.OTHERS_TTL, show_spinner=False, max_entries=16)
def _guidelines(lang: str, db: str, version: tuple):
    return audit.review.guidelines.get_guidelines(lang, db=db)


def _guidelines_button(db) -> None:
    """The campaign's guidelines in the interface language, one click away."""
    # keyed by the writes that are not verdicts (an admin's save): a saved verdict keeps the cached text
    g = common.call(_guidelines, common.lang(), str(db), common.review_version(db)[:2], quiet=True)
    if g is None or not g.text:
        return
    with st.popover(t("item.guidelines", v=g.version), icon=":material/menu_book:", width="stretch"):
        if g.language != common.lang():
            st.caption(t("item.guidelines_other_language"))
        st.markdown(audit.review.guidelines.safe_markdown(g.text))


ITEM_CSS = """<style>
.wb-par { border-left: 3px solid rgba(128,128,128,.35); padding-left: .6rem; margin: .1rem 0 .3rem 0; }
.wb-par-head { font-family: system-ui, sans-serif; font-size: .8rem; color: #555; margin-bottom: .2rem; }
.wb-par .wb-stem { padding: .3rem .6rem; margin-bottom: .3rem; }
.wb-par .wb-opts { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: .25rem; }
.wb-par .wb-opt { padding: .15rem .5rem; }
.wb-par .wb-text { font-size: 1rem !important; line-height: 1.5 !important; }
/* the item page uses the whole width: the Tibetan text needs the room */
[data-testid="stMainBlockContainer"] { padding-top: 3.2rem; padding-left: 1.5rem; padding-right: 1.5rem;
                                       padding-bottom: 2rem; max-width: 100%; }
[data-testid="stMainBlockContainer"] h4, [data-testid="stMainBlockContainer"] h5 { padding-top: .1rem;
                                                                                    padding-bottom: .2rem; }
.st-key-item_side [data-testid="stVerticalBlock"] { gap: .45rem; }
/* Queue / Previous / Next keep their words whole (never cut to "Q…") */
.st-key-item_nav button p { white-space: nowrap !important; overflow: visible !important;
                            text-overflow: clip !important; }
.st-key-item_side [data-testid="stBaseButton-primary"], .st-key-item_side [data-testid="stBaseButton-secondary"] {
    min-height: 2.2rem; padding-top: .15rem; padding-bottom: .15rem; }
</style>"""


def page() -> None:
    routing.follow_goto("item")
    # the question needs the width: the sidebar starts collapsed here (reopen it with its arrow)
    st.set_page_config(initial_sidebar_state="collapsed")
    common.css()
    st.html(ITEM_CSS)
    cur = session.current_item()
    if cur is None:
        st.title(t("item.title"))
        st.info(t("item.open_from_queue"))
        return
    bench, qid = cur
    st.session_state.pop("wb_saved_rerun", None)  # a whole-page run already shows the result of a save
    st.query_params.update({"benchmark": bench, "question": qid})
    db = session.db_path()
    me = session.reviewer()
    last = st.session_state.get(K_LAST_VIEW)
    have_last = last is not None and (last.question.benchmark, last.question.question_id) == (bench, qid)
    try:
        view = common.cached_item(bench, qid, me, str(db), common.review_version(db, (bench, qid)))
    except audit.DatabaseLockedError:
        if not have_last:
            st.error(t("common.locked"), icon=":material/lock:")
            return
        view = last  # keep the page (and the unsaved form) usable while the file is busy
        st.warning(t("item.busy"), icon=":material/lock:")
    except audit.NotFoundError:
        st.error(t("item.not_found", qid=render.md(qid), bench=render.md(bench)))
        return
    except audit.AuditError as exc:
        st.error(render.md(exc))
        return
    else:
        st.session_state[K_LAST_VIEW] = view
    flt = queue.queue_filter(bench, me)
    _header(view, bench, qid, flt)
    session.show_flash()
    warns = _warnings(view)
    if warns:
        st.html(render.warnings_html(warns))
    if view.status == "done" and not view.evidence_hidden:   # why it reopened is evidence too
        _reopened(bench, qid, db)
    main, side = st.columns([2, 1], gap="medium")
    with main:
        with st.container(key="item_main"):
            _question(view)
            if not view.evidence_hidden:   # evidence-blind: the question alone until the reviewer answers it
                _evidence(view, bench, qid, db)
    with side:
        with st.container(key="item_side"):
            _guidelines_button(db)
            if view.evidence_hidden:
                _blind_form(view, bench, qid)
            else:
                _form(view, bench, qid)
                _history(view)
    _prefetch(bench, qid, me, flt, db)


def _evidence(view, bench: str, qid: str, db) -> None:
    """Everything that speaks about the key, under the question (left out
    while the evidence is withheld, :mod:`audit.review.blind`)."""
    _vote_summary(view)
    item_reports.show(view, option=lambda x: _option_shown(view, x))   # readers' error reports
    with st.container(key="item_evidence"):   # sentences and figures from audit.review
        item_evidence.show(bench, qid, db, option=lambda x: _option_shown(view, x))
    if view.judges:
        _judges(view)
    if view.families:
        with st.expander(t("item.models_by_family")):
            _models(view)
    if view.question.raw_text:
        with st.expander(t("item.raw_text")):
            st_ = render.style_for(view.question.script, view.question.language, view.question.raw_text)
            st.html(render.text_span(view.question.raw_text, st_))
    if view.question.explanation:
        with st.expander(t("item.explanation")):
            st_ = render.style_for(view.question.script, view.question.language, view.question.explanation)
            st.html(render.text_span(view.question.explanation, st_))


@st.cache_data(ttl=common.OTHERS_TTL, show_spinner=False, max_entries=16)
def _changes(bench: str, db: str, lang: str):
    return audit.review.changes.review_changes(bench, db=db, lang=lang)


def _reopened(bench: str, qid: str, db) -> None:
    """A settled item new evidence reopened says why (:mod:`audit.review.changes`);
    its settled verdict stands."""
    ch = common.call(_changes, bench, str(db), common.lang(), quiet=True)
    if ch is None or ch.empty:
        return
    hit = ch[(ch["question_id"] == qid) & (ch["change"] == "reopened")]
    if len(hit):
        st.warning(f"**{t('item.reopened_h')}** · " + render.md(hit.iloc[0]["reason"]), icon=":material/replay:")


def _prefetch(bench: str, qid: str, me: str | None, flt: dict, db) -> None:
    """While the reviewer reads this item: warm the item Save or N would
    open, and the queue page as it is now (Q)."""
    version = common.review_version(db)
    nxt = _next_from_queue_page(bench, qid, flt) if me else None
    if nxt is None:
        _, known = _known_neighbours(bench, qid, flt)
        nxt = known if isinstance(known, str) else None
    if nxt is not None:
        item_version = common.review_version(db, (bench, nxt))
        common.prefetch(common.cached_item, bench, nxt, me, str(db), item_version)
        common.prefetch(common.cached_why, bench, nxt, str(db), item_version)
    page_no = max(1, int(st.session_state.get(session.K_PAGE_NO, 1)))
    common.prefetch(common.cached_progress, bench, str(db), version,
                    common.freeze({k: v for k, v in flt.items() if k != "status"}))
    common.prefetch(common.cached_queue, bench, str(db), version, common.freeze(flt), queue.PAGE_SIZE + 1,
                    (page_no - 1) * queue.PAGE_SIZE)
