"""Queue page: the flagged items to review, filtered and in priority order,
with the review progress of the current filter.  Filtering, ordering and
counting happen in ``audit.review`` (one SQL query each); this page shows one
page of rows at a time."""
from __future__ import annotations

import math

import streamlit as st

import audit
from workbench import render, session
from workbench.views import common

PAGE_SIZE = 25
_COLS = [2.2, 7.8]  # open button | the row (subject, tier, models, status, question)
ALL_TIERS = [0, 1, 2, 3, 4, 5]
TIER_HELP = ("Tier 1: many models from several families agree on one answer that is not the key "
             "(most likely a wrong key). Higher tiers: weaker evidence. Tier 0: the models agree with the key.")
STATUS_FILTERS = {  # label → audit.review queue status
    "All": None,
    "Unreviewed": "unreviewed",
    "Reviewed by me": "reviewed_by_me",
    "Needs a second review": "needs_second_review",
    "Disputed": "disputed",
    "Done": "done",
}
K_QUEUE_IDS = "wb_queue_ids"  # the page of ids last shown, for previous / next without a query

# Filter values live under f_* (plain session keys, kept while other pages
# are open); the widgets use w_* keys seeded from them.
_FILTERS = {"f_tiers": [1, 2], "f_subjects": [], "f_status": "All", "f_suspect": False, "f_mismatch": False}


def _bind(fkey: str) -> str:
    wkey = "w" + fkey[1:]
    st.session_state.setdefault(fkey, _FILTERS[fkey])
    if wkey not in st.session_state:
        st.session_state[wkey] = st.session_state[fkey]
    return wkey


def _store(fkey: str) -> None:
    st.session_state[fkey] = st.session_state["w" + fkey[1:]]
    st.session_state[session.K_PAGE_NO] = 1


def queue_filter(benchmark: str, reviewer: str | None) -> dict:
    """The current filter as keyword arguments of ``audit.review.review_queue``
    (also used by the item page for previous / next)."""
    for k, v in _FILTERS.items():
        st.session_state.setdefault(k, v)
    tiers = st.session_state["f_tiers"]
    return {
        "tiers": list(tiers) if tiers else None,
        "subjects": list(st.session_state["f_subjects"]) or None,
        "status": STATUS_FILTERS.get(st.session_state["f_status"]),
        "reviewer": reviewer,
        "structure_suspect": True if st.session_state["f_suspect"] else None,
        "parallel_mismatch": True if st.session_state["f_mismatch"] else None,
    }


def _subjects(benchmark: str, db) -> list[str]:
    return common.call(common.subjects, benchmark, str(db), quiet=True) or []


def _filters_ui(benchmark: str, db) -> None:
    c1, c2, c3 = st.columns([2, 3, 2])
    with c1:
        st.multiselect("Tier", ALL_TIERS, key=_bind("f_tiers"), on_change=_store, args=("f_tiers",),
                       format_func=lambda t: f"Tier {t}", help=TIER_HELP,
                       placeholder="All tiers")
    with c2:
        st.multiselect("Subject", _subjects(benchmark, db), key=_bind("f_subjects"), on_change=_store,
                       args=("f_subjects",), placeholder="All subjects")
    with c3:
        st.selectbox("Review status", list(STATUS_FILTERS), key=_bind("f_status"), on_change=_store,
                     args=("f_status",))
    c4, c5, _ = st.columns([2, 3, 2])
    with c4:
        st.checkbox("Only structure-suspect items", key=_bind("f_suspect"), on_change=_store, args=("f_suspect",),
                    help="Items whose options could not be parsed with confidence on import.")
    with c5:
        st.checkbox("Only parallel-key mismatches", key=_bind("f_mismatch"), on_change=_store,
                    args=("f_mismatch",), help="The linked source item (e.g. CMMLU) has a different key.")


def _row(r, benchmark: str) -> None:
    left, right = st.columns(_COLS, vertical_alignment="center")
    with left:
        if st.button(render.md(r.question_id), key=f"open::{r.question_id}", width="stretch",
                     help="Open this item"):
            session.open_item(benchmark, r.question_id)
            from workbench import nav
            st.switch_page(nav.item_page())
    with right:
        st.html(render.queue_row_html(
            subject=r.subject, tier=r.tier, agreement_count=r.agreement_count, n_models=r.n_models,
            top_answer=r.top_answer, answer_key=r.answer_key, status=r.status,
            structure_suspect=bool(r.structure_suspect), key_mismatch=r.parallel_key_match is False,
            reviewed_by_me=bool(r.reviewed_by_me), stem=r.stem_preview, script=r.script, language=r.language))


def page() -> None:
    common.css()
    session.show_flash()
    db = session.db_path()
    me = session.reviewer()
    st.title("Review queue")
    benchmark = common.benchmark_picker("queue_benchmark")
    if benchmark is None:
        return
    _filters_ui(benchmark, db)
    flt = queue_filter(benchmark, me)
    prog_flt = {k: v for k, v in flt.items() if k != "status"}
    prog = common.call(audit.review.queue_progress, benchmark, db=db, **prog_flt)
    if prog is not None:
        st.progress(prog.fraction, text=f"**{prog.label}** — {prog.done} done, {prog.needs_second_review} "
                                        f"waiting for a second review, {prog.disputed} disputed; "
                                        f"you reviewed {prog.reviewed_by_me}")
    st.session_state.setdefault(session.K_PAGE_NO, 1)
    page_no = max(1, int(st.session_state[session.K_PAGE_NO]))
    df = common.call(audit.review.review_queue, benchmark, db=db, limit=PAGE_SIZE + 1,
                     offset=(page_no - 1) * PAGE_SIZE, **flt)
    if df is None:
        return
    has_more = len(df) > PAGE_SIZE
    df = df.head(PAGE_SIZE)
    st.session_state[K_QUEUE_IDS] = {"benchmark": benchmark, "filter": repr(flt), "ids": list(df["question_id"]),
                                     "first_page": page_no == 1, "has_more": has_more}
    if df.empty:
        st.info("No item matches these filters." if page_no == 1 else "No more items.")
    else:
        st.caption("Click an item's id to open it. Items are ordered by how likely their key is wrong, "
                   "given the models, judges and expert verdicts so far; then by tier.")
        head = st.columns(_COLS)
        head[0].markdown("**Item**")
        with head[1]:
            st.html(render.QUEUE_HEAD_HTML)
        for r in df.itertuples(index=False):
            _row(r, benchmark)
        if st.button("Start reviewing from the top", type="primary", key="start_first",
                     icon=":material/play_arrow:"):
            session.open_item(benchmark, df.iloc[0]["question_id"])
            from workbench import nav
            st.switch_page(nav.item_page())
    total = prog.total if prog is not None and flt.get("status") is None else None
    pages = math.ceil(total / PAGE_SIZE) if total else None
    p1, p2, p3 = st.columns([1, 2, 1])
    if p1.button("Previous page", icon=":material/arrow_back:", disabled=page_no <= 1, key="page_prev"):
        st.session_state[session.K_PAGE_NO] = page_no - 1
        st.rerun()
    p2.markdown(f"Page {page_no}" + (f" of {pages}" if pages else ""))
    if p3.button("Next page", icon=":material/arrow_forward:", disabled=not has_more, key="page_next"):
        st.session_state[session.K_PAGE_NO] = page_no + 1
        st.rerun()
