"""Pieces shared by the pages: calling ``audit`` with clear messages, the
benchmark picker, the page CSS, the interface language (``t``), and cached
reads keyed by a data version (:func:`review_version`)."""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import streamlit as st
from streamlit import runtime

import audit
import audit.accounts.language
import audit.accounts.roles
import audit.accounts.sessions
import audit.accounts.table
import audit.export.archive
import audit.export.names
import audit.export.policy
import audit.review.agreement
import audit.review.campaign
import audit.review.dashboard
import audit.review.judges
import audit.review.queue
import audit.review.reasons
from audit import i18n
from audit.i18n import subjects as subjects_i18n
from workbench import render, session

# ---------------------------------------------------------------- language

#: The session-state key of the interface language.
K_LANG = "wb_lang"

def lang() -> str:
    """The interface language of this browser session: the choice made in
    the switch (before or after signing in), else the signed-in reviewer's
    stored setting, else the browser's ``Accept-Language``, else English."""
    cur = st.session_state.get(K_LANG)
    if cur in i18n.LANGUAGES:
        return cur
    me = session.reviewer()
    if me and st.session_state.get("wb_lang_loaded") != me:
        st.session_state["wb_lang_loaded"] = me
        try:
            stored = audit.accounts.language.get_user_language(me, db=session.db_path())
        except audit.AuditError:
            stored = None
        if stored in i18n.LANGUAGES:
            st.session_state[K_LANG] = stored
            return stored
    try:
        header = st.context.headers.get("Accept-Language")
        asked = i18n.from_accept_language(header) if isinstance(header, str) else None
    except Exception:  # noqa: BLE001 - no browser (AppTest)
        asked = None
    return asked or i18n.DEFAULT


def t(key: str, /, **kwargs: object) -> str:
    """The text of ``key`` in the session's language (English fallback)."""
    return i18n.translate(key, lang(), **kwargs)


def label(kind: str, code: str | None) -> str:
    """A stored code (verdict, cause, status, flag, scenario, column) in plain
    words, in the session's language."""
    return i18n.label(kind, code, lang())


def subject_name(code: str | None) -> str:
    """A subject in plain words in the session's language (CMMLU's own
    Chinese names in Chinese and Tibetan; see :mod:`audit.i18n.subjects`)."""
    return subjects_i18n.subject_name(code, lang())


def columns(df):
    """A DataFrame with plain, translated column names (for display only)."""
    return df.rename(columns={c: label("column", c) for c in df.columns})


def _language_changed() -> None:
    choice = st.session_state.get("wb_lang_switch")
    if choice not in i18n.LANGUAGES:
        return
    st.session_state[K_LANG] = choice
    me = session.reviewer()
    if me:
        try:
            audit.accounts.language.set_user_language(me, choice, db=session.db_path())
        except audit.AuditError:
            pass  # the session keeps the choice; the stored setting waits for the next switch


def language_switch(where=None) -> None:
    """The language selector (per user): in the sidebar, or in ``where``
    (the sign-in page, before anyone is signed in)."""
    cur = lang()
    st.session_state["wb_lang_switch"] = cur
    with where if where is not None else st.sidebar:
        st.selectbox(t("lang.label"), list(i18n.LANGUAGES), format_func=i18n.LANGUAGES.get,
                     key="wb_lang_switch", on_change=_language_changed)
        if cur != "en":
            st.caption(t("lang.draft"))


_SESSION_MESSAGES = {  # audit's sign-in refusals → catalogue keys
    "your session has expired; please sign in again": "session.expired",
    "this session has ended; please sign in again": "session.ended",
    "this sign-in link is not valid; please sign in again": "session.invalid",
}


def session_message(message: str, idle_minutes: float) -> str:
    """A refused or ended session in the interface language."""
    if message == "session.idle":
        return t("session.idle", n=int(idle_minutes))
    key = _SESSION_MESSAGES.get(message)
    return t(key) if key else render.md(message)


# Tibetan needs room: stacked letters above and below the line.
_TIBETAN_UI_CSS = """<style>
.stApp, .stApp button, .stApp input, .stApp textarea, .stApp label, .stApp p, .stApp li, .stApp td, .stApp th,
.stApp h1, .stApp h2, .stApp h3, .stApp h4, .stApp h5, .stApp .wb-qrow {
    font-family: "Noto Serif Tibetan", "Jomolhari", "Source Sans Pro", system-ui, sans-serif; }
:where(.stApp) :where(p, li, td, th, label, button, input, textarea, h1, h2, h3, h4, h5, h6, div, span, small) {
    line-height: 1.7 !important; }
:where(.stApp *) { font-size: max(1em, 16px) !important; }
.stApp h1 { font-size: 2.2rem !important; } .stApp h3 { font-size: 1.5rem !important; }
.stApp h4 { font-size: 1.3rem !important; } .stApp h5 { font-size: 1.15rem !important; }
.stApp button p { padding-top: .15rem; padding-bottom: .15rem; }
</style>"""

# The verdict panel stays in view while the item scrolls (1024 × 768 and up).
_STICKY_CSS = """<style>
@media (min-width: 1000px) {
  .st-key-item_side { position: sticky; top: 3.9rem; align-self: flex-start;
                      max-height: calc(100vh - 4.3rem); overflow-y: auto; }
  .st-key-item_side { align-self: flex-start; }
  [data-testid="stLayoutWrapper"]:has(> .st-key-item_side) { flex: 1 1 auto; }
}
.st-key-wb_cookie { display: none; }
</style>"""


def typography() -> None:
    """Page-wide CSS of the interface language (line height ≥ 1.6 and no
    text under 16 px for Tibetan) and the sticky verdict panel."""
    st.html(_STICKY_CSS + (_TIBETAN_UI_CSS if lang() == "bo" else ""))


def glossary() -> None:
    """The short glossary (plain words for the terms reviewers meet)."""
    with st.sidebar.expander(t("common.glossary")):
        st.markdown(i18n.glossary_table(lang(), headers=(t("common.glossary_term"), t("common.glossary_meaning"))))


# ---------------------------------------------------------------- calls

def error_text(exc: Exception) -> str:
    """What a reviewer reads for a failed call: the plain busy message for
    a held database file, else the error's own (escaped) sentence."""
    return t("common.locked") if isinstance(exc, audit.DatabaseLockedError) else render.md(exc)


def call(fn, *args, quiet: bool = False, any_error: bool = False, **kwargs):
    """Run one ``audit`` operation; show an ``AuditError`` as a message and
    return None instead of crashing the page.  ``any_error``: also turn an
    unexpected exception into a message (dashboard panels, so one failing
    panel does not take the others down)."""
    try:
        return fn(*args, **kwargs)
    except audit.DatabaseLockedError:
        if not quiet:
            st.error(t("common.locked"), icon=":material/lock:")
        return None
    except audit.AuditError as exc:
        if not quiet:
            st.error(render.md(exc))
        return None
    except Exception as exc:  # noqa: BLE001
        if not any_error:
            raise
        st.error(f"This panel could not be computed: {type(exc).__name__}: {render.md(exc)}")
        return None


def css() -> None:
    """Per-page setup: the page CSS, the language switch and the glossary."""
    st.html(render.CSS)
    language_switch()
    glossary()


# ---------------------------------------------------------------- cached reads

_WRITES = [0]  # bumped by this process's writes (mtime granularity safety)
_GUARD = threading.Lock()
_LOCAL: dict = {"stat": None, "external": 0, "other": 0}   # see review_version
_ITEM_WRITES: dict[tuple[str, str], int] = {}
_REVIEWER_WRITES: dict[str, int] = {}  # per signed-in account: its own verdicts reach all its tabs at once
K_MY_WRITES = "wb_my_writes"
OTHERS_TTL = 20  # seconds: other reviewers' verdicts reach a cached queue page within this


_file_stat = session.file_stat


def note_write(benchmark: str | None = None, question_id: str | None = None) -> None:
    """Call after a write so cached reads are recomputed.  A verdict names
    its item: it then invalidates that item, and this session's queue and
    progress, but not what other sessions have cached of other items
    (see :func:`review_version`); any other write invalidates everything."""
    path = str(session.db_path())
    with _GUARD:
        _WRITES[0] += 1
        _LOCAL["stat"] = _file_stat(path)   # the file as this process left it
        if question_id is None:
            _LOCAL["other"] += 1
        else:
            key = (str(benchmark), str(question_id))
            _ITEM_WRITES[key] = _ITEM_WRITES.get(key, 0) + 1
    try:
        st.session_state[K_MY_WRITES] = st.session_state.get(K_MY_WRITES, 0) + 1
        me = session.reviewer()
    except Exception:  # noqa: BLE001 — outside a session (background thread)
        me = None
    if me:
        with _GUARD:
            _REVIEWER_WRITES[me.casefold()] = _REVIEWER_WRITES.get(me.casefold(), 0) + 1


def data_version(db=None) -> tuple:
    """Changes whenever the database file changes: the mtimes and sizes of
    the file and its write-ahead log (any program's write, including the
    ``audit`` CLI), plus this process's own write counter."""
    path = str(db or session.db_path())
    return (_WRITES[0], *_file_stat(path))


def review_version(db=None, item: tuple[str, str] | None = None) -> tuple:
    """Cache key of the review reads, finer than :func:`data_version` so
    that with several reviewers at work one reviewer's verdict does not
    throw away everybody's cached queue and items: it changes with every
    write this process did not note as a verdict (another program such as
    an ``audit`` command, an admin page, an export), with this session's own
    verdicts and those of the same account in its other tabs, and — with
    ``item`` — with any verdict on that item.  Other
    sessions' verdicts on other items reach the cached queue and progress
    when the cache entry expires (``OTHERS_TTL``)."""
    path = str(db or session.db_path())
    stat = _file_stat(path)
    with _GUARD:
        if stat != _LOCAL["stat"]:          # changed since this process last wrote: someone else wrote
            if _LOCAL["stat"] is not None:
                _LOCAL["external"] += 1
            _LOCAL["stat"] = stat
        base = (_LOCAL["external"], _LOCAL["other"])
        if item is not None:
            return (*base, _ITEM_WRITES.get((str(item[0]), str(item[1])), 0))
    me = session.reviewer()
    return (*base, st.session_state.get(K_MY_WRITES, 0), _REVIEWER_WRITES.get(me.casefold(), 0) if me else 0)


@st.cache_data(ttl=OTHERS_TTL, show_spinner=False, max_entries=64)
def cached_queue(benchmark: str, db: str, version: tuple, flt_items: tuple, limit: int, offset: int):
    return audit.review.review_queue(benchmark, db=db, limit=limit, offset=offset, **dict(flt_items))


@st.cache_data(ttl=OTHERS_TTL, show_spinner=False, max_entries=64)
def cached_progress(benchmark: str, db: str, version: tuple, flt_items: tuple):
    return audit.review.queue.queue_progress(benchmark, db=db, **dict(flt_items))


@st.cache_data(ttl=300, show_spinner=False, max_entries=256)
def cached_item(benchmark: str, qid: str, reviewer: str | None, db: str, version: tuple):
    return audit.review.item_view(benchmark, qid, reviewer=reviewer, db=db)


@st.cache_data(ttl=OTHERS_TTL, show_spinner=False, max_entries=256)
def cached_why(benchmark: str, qid: str, db: str, version: tuple):
    return audit.review.why_this_item(benchmark, qid, db=db)


_PREFETCH = ThreadPoolExecutor(max_workers=1, thread_name_prefix="wb-prefetch")


def _quietly(fn, *args) -> None:
    try:
        fn(*args)
    except Exception:  # noqa: BLE001 — a prefetch that fails (busy file…) is simply not cached
        pass


def prefetch(fn, *args) -> None:
    """Warm one of the caches above in the background, after the page is
    drawn and while the reviewer reads it (one worker per process, so
    prefetches never pile up).  Only under a real server: Streamlit's test
    harness has no runtime, and its tests check the file in between."""
    if runtime.exists():
        _PREFETCH.submit(_quietly, fn, *args)


def freeze(flt: dict) -> tuple:
    """A filter dict as a hashable, ordered tuple (for the caches)."""
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in flt.items()))


@st.cache_data(ttl=30, show_spinner=False)
def _benchmarks(db: str) -> list[str]:
    return audit.review.dashboard.list_benchmarks(db=db)


@st.cache_data(ttl=60, show_spinner=False)
def subjects(benchmark: str, db: str) -> list[str]:
    """Subjects of a benchmark's current audit (for the filter; data only,
    cached for a minute — never a connection)."""
    df = audit.review.dashboard.tier_by_subject(benchmark, db=db)
    return sorted(s for s in df["subject"].unique() if s is not None)


def benchmark_picker(key: str) -> str | None:
    """A benchmark selector shared by the pages (the choice is kept in
    ``f_benchmark`` so every page shows the same benchmark)."""
    names = call(_benchmarks, str(session.db_path()))
    if not names:
        if names is not None:
            st.info(t("common.no_benchmark"))
        return None
    cur = st.session_state.get("f_benchmark")
    if cur not in names:
        cur = names[0]
        st.session_state["f_benchmark"] = cur
    if len(names) == 1:
        return cur
    choice = st.selectbox(t("common.benchmark"), names, index=names.index(cur), key=key)
    st.session_state["f_benchmark"] = choice
    return choice
