"""Queue page: the flagged items to review, filtered and in priority order,
with the review progress of the current filter.  Filtering, ordering and
counting happen in ``audit.review`` (one SQL query each, cached until the
database file changes); this page shows one page of rows at a time.

For a signed-in reviewer the default status filter is "Needs my verdict",
and "Start reviewing" opens the first item that still needs *their*
verdict.  Opening an item is one navigation: the click's callback records
the item and the next run switches page before the queue is computed again.
"""
from __future__ import annotations

import math

import streamlit as st

import audit
import audit.review.queue
from workbench import render, routing, session
from workbench.views import common
from workbench.views.common import t

PAGE_SIZE = 25
_COLS = [2.2, 7.8]  # open button | the row (subject, tier, models, status, question)
ALL_TIERS = [0, 1, 2, 3, 4, 5]
STATUS_FILTERS = {  # filter name → audit.review queue status
    "needs_me": "needs_me",
    "all": None,
    "unreviewed": "unreviewed",
    "reviewed_by_me": "reviewed_by_me",
    "needs_second_review": "needs_second_review",
    "disputed": "disputed",
    "done": "done",
}
K_QUEUE_IDS = "wb_queue_ids"  # the page of ids last shown, for previous / next without a query

# Filter values live under f_* (plain session keys, kept while other pages
# are open); the widgets use w_* keys seeded from them.
_FILTERS = {"f_tiers": [1, 2], "f_subjects": [], "f_status": "needs_me", "f_suspect": False, "f_mismatch": False}


def _wkey(fkey: str) -> str:
    """The widget key of a filter: one per interface language, because a
    widget whose option labels change under it loses its value."""
    lang = common.lang()
    return "w" + fkey[1:] + ("" if lang == "en" else f"_{lang}")


def _bind(fkey: str) -> str:
    wkey = _wkey(fkey)
    st.session_state.setdefault(fkey, _FILTERS[fkey])
    st.session_state[wkey] = st.session_state[fkey]
    return wkey


def _store(fkey: str) -> None:
    st.session_state[fkey] = st.session_state[_wkey(fkey)]
    st.session_state[session.K_PAGE_NO] = 1


def queue_filter(benchmark: str, reviewer: str | None) -> dict:
    """The current filter as keyword arguments of ``audit.review.review_queue``
    (also used by the item page for previous / next)."""
    for k, v in _FILTERS.items():
        st.session_state.setdefault(k, v)
    if st.session_state["f_status"] not in STATUS_FILTERS:
        st.session_state["f_status"] = _FILTERS["f_status"]
    tiers = [x for x in st.session_state["f_tiers"] if isinstance(x, int)]
    status = STATUS_FILTERS.get(st.session_state["f_status"])
    if status in ("needs_me", "reviewed_by_me") and not reviewer:
        status = None
    return {
        "tiers": list(tiers) if tiers else None,
        "subjects": list(st.session_state["f_subjects"]) or None,
        "status": status,
        "reviewer": reviewer,
        "structure_suspect": True if st.session_state["f_suspect"] else None,
        "parallel_mismatch": True if st.session_state["f_mismatch"] else None,
    }


def _open(benchmark: str, qid: str) -> None:
    session.open_item(benchmark, qid)
    routing.go("item")


def _start(benchmark: str, reviewer: str | None, flt: dict, fallback: str | None) -> None:
    """on_click of Start reviewing: the first item that needs this reviewer."""
    qid = fallback
    if reviewer:
        try:
            qid = audit.review.queue.next_for_reviewer(
                benchmark, reviewer, db=session.db_path(),
                **{k: v for k, v in flt.items() if k not in ("status", "reviewer")})
        except audit.AuditError as exc:
            session.flash("error", common.error_text(exc))
            return
    if qid is None:
        session.flash("info", t("queue.nothing_for_you"))
        return
    _open(benchmark, qid)


def _subjects(benchmark: str, db) -> list[str]:
    return common.call(common.subjects, benchmark, str(db), quiet=True) or []


def _filters_ui(benchmark: str, db) -> None:
    c1, c2, c3 = st.columns([2, 3, 2])
    with c1:
        st.multiselect(t("queue.tier"), ALL_TIERS, key=_bind("f_tiers"), on_change=_store, args=("f_tiers",),
                       format_func=lambda n: t("queue.tier_n", n=n), help=t("queue.tier_help"),
                       placeholder=t("queue.all_tiers"))
    with c2:
        st.multiselect(t("queue.subject"), _subjects(benchmark, db), key=_bind("f_subjects"), on_change=_store,
                       args=("f_subjects",), placeholder=t("queue.all_subjects"), format_func=common.subject_name)
    with c3:
        st.selectbox(
            t("queue.status"),
            list(STATUS_FILTERS),
            key=_bind("f_status"),
            on_change=_store,
            args=("f_status",),
            format_func=lambda s: t("queue.all") if s == "all" else common.label("status", s),
        )
    c4, c5, _ = st.columns([2, 3, 2])
    with c4:
        st.checkbox(t("queue.only_suspect"), key=_bind("f_suspect"), on_change=_store, args=("f_suspect",),
                    help=t("queue.only_suspect_help"))
    with c5:
        st.checkbox(t("queue.only_mismatch"), key=_bind("f_mismatch"), on_change=_store,
                    args=("f_mismatch",), help=t("queue.only_mismatch_help"))


def _row_words(status: str) -> dict[str, str]:
    return {"tier": t("queue.tier_n"), "status": common.label("status", status),
            "models": t("queue.models_say"), "key": t("queue.key_only"),
            "suspect": common.label("flag", "structure_suspect"), "mismatch": t("queue.source_differs"),
            "mine": t("queue.reviewed_by_you")}


def _row(r, benchmark: str) -> None:
    left, right = st.columns(_COLS, vertical_alignment="center")
    with left:
        st.button(render.md(r.question_id), key=f"open::{r.question_id}", width="stretch",
                  help=t("queue.open_help"), on_click=_open, args=(benchmark, r.question_id))
    with right:
        st.html(render.queue_row_html(
            subject=common.subject_name(r.subject), tier=r.tier, agreement_count=r.agreement_count, n_models=r.n_models,
            top_answer=r.top_answer, answer_key=r.answer_key, status=r.status,
            structure_suspect=bool(r.structure_suspect), key_mismatch=r.parallel_key_match is False,
            reviewed_by_me=bool(r.reviewed_by_me), stem=r.stem_preview, script=r.script, language=r.language,
            words=_row_words(r.status)))


# The queue at 1024 px with the sidebar open (about 620 px for the list):
# every id whole (it wraps inside its button rather than being cut to
# "bo-multiplication…", which made Tibetan items look alike), and when the row
# is too narrow for five columns the question moves to a line of its own
# under the other four instead of being squeezed to nothing.
QUEUE_CSS = """<style>
[class*="st-key-open--"] button { height: auto; min-height: 2.4rem; padding: .25rem .4rem; }
[class*="st-key-open--"] button p { white-space: normal !important; overflow-wrap: break-word; word-break: normal;
                                   text-overflow: clip !important; overflow: visible !important; }
[data-testid="stHtml"]:has(> .wb-qrow), .stHtml:has(> .wb-qrow) { container-type: inline-size; }
@container (max-width: 600px) {
  .wb-qrow { grid-template-columns: minmax(0, 1.3fr) minmax(3.2rem, .6fr) minmax(0, 1.4fr) minmax(0, 1.3fr); }
  .wb-qrow > div:nth-child(5) { grid-column: 1 / -1; }
}
</style>"""


def _turn(page_no: int) -> None:
    st.session_state[session.K_PAGE_NO] = page_no


def page() -> None:
    routing.follow_goto("queue")
    common.css()
    st.html(QUEUE_CSS)
    session.show_flash()
    db = session.db_path()
    me = session.reviewer()
    st.title(t("queue.title"))
    benchmark = common.benchmark_picker("queue_benchmark")
    if benchmark is None:
        return
    _filters_ui(benchmark, db)
    flt = queue_filter(benchmark, me)
    version = common.review_version(db)
    prog_flt = {k: v for k, v in flt.items() if k != "status"}
    prog = common.call(common.cached_progress, benchmark, str(db), version, common.freeze(prog_flt))
    if prog is not None:
        st.progress(prog.fraction, text=t("queue.progress", reviewed=prog.reviewed, total=prog.total,
                                          done=prog.done, second=prog.needs_second_review,
                                          disputed=prog.disputed) + t("queue.progress_sep")
                    + t("queue.progress_you", n=prog.reviewed_by_me))
    st.session_state.setdefault(session.K_PAGE_NO, 1)
    page_no = max(1, int(st.session_state[session.K_PAGE_NO]))
    df = common.call(common.cached_queue, benchmark, str(db), version, common.freeze(flt), PAGE_SIZE + 1,
                     (page_no - 1) * PAGE_SIZE)
    if df is None:
        return
    has_more = len(df) > PAGE_SIZE
    df = df.head(PAGE_SIZE)
    st.session_state[K_QUEUE_IDS] = {"benchmark": benchmark, "filter": repr(flt), "ids": list(df["question_id"]),
                                     "first_page": page_no == 1, "has_more": has_more}
    first = None if df.empty else df.iloc[0]["question_id"]
    st.button(t("queue.start"), type="primary", key="start_first", icon=":material/play_arrow:",
              help=t("queue.start_help"), on_click=_start, args=(benchmark, me, flt, first),
              disabled=first is None and not me)
    if df.empty:
        st.info((t("queue.nothing_for_you") if flt.get("status") == "needs_me" else t("queue.none"))
                if page_no == 1 else t("queue.no_more"))
    else:
        st.caption(t("queue.hint"))
        head = st.columns(_COLS)
        head[0].markdown(f"**{t('queue.col_item')}**")
        with head[1]:
            st.html(render.queue_head_html(t("queue.col_subject"), t("queue.col_tier"), t("queue.col_models"),
                                           t("queue.col_status"), t("queue.col_question")))
        for r in df.itertuples(index=False):
            _row(r, benchmark)
    total = prog.total if prog is not None and flt.get("status") is None else None
    pages = math.ceil(total / PAGE_SIZE) if total else None
    p1, p2, p3 = st.columns([1, 2, 1])
    p1.button(t("queue.prev_page"), icon=":material/arrow_back:", disabled=page_no <= 1, key="page_prev",
              on_click=_turn, args=(page_no - 1,))
    p2.markdown(t("queue.page_of", n=page_no, m=pages) if pages else t("queue.page", n=page_no))
    p3.button(t("queue.next_page"), icon=":material/arrow_forward:", disabled=not has_more, key="page_next",
              on_click=_turn, args=(page_no + 1,))
    # the items a reviewer most likely opens next: the top rows (Start reviewing opens the first)
    for qid in list(df["question_id"])[:2]:
        common.prefetch(common.cached_item, benchmark, qid, me, str(db), common.review_version(db, (benchmark, qid)))
