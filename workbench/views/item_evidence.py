"""Item page panel "Why this item is here": each contribution to the item's
key-error score in plain words, in the reviewer's interface language, from
:func:`audit.review.reasons.evidence_reasons` (sentence keys and parameters; the
sentences are the ``evidence.*`` keys of the catalogues; no statistics here)."""
from __future__ import annotations

from typing import Callable

import streamlit as st

import audit.review
import audit.review.reasons
from audit import i18n
from workbench import render
from workbench.views import common
from workbench.views.common import t


@st.cache_data(ttl=common.OTHERS_TTL, show_spinner=False, max_entries=256)
def cached_reasons(benchmark: str, qid: str, db: str, version: tuple):
    return audit.review.reasons.evidence_reasons(benchmark, qid, db=db)


OPTION_PARAMS = ("key", "answer", "other")   # parameters of the reasons that are option labels


def show(bench: str, qid: str, db, option: Callable[[str], str | None] | None = None) -> None:
    """Render the reasons; nothing when the benchmark has no score yet.
    ``option`` shows an option label in the script of the interface (ག for
    C on a Tibetan item in the Tibetan interface), as the rest of the page."""
    reasons = common.call(cached_reasons, bench, qid, str(db),
                          common.review_version(db, (bench, qid)), quiet=True, any_error=True)
    if not reasons:
        return
    words = i18n.messages(common.lang())
    st.markdown("#### " + t("item.why_here"))
    if option is not None:
        reasons = [(k, {n: (option(v) or v) if n in OPTION_PARAMS and isinstance(v, str) else v
                        for n, v in p.items()}) for k, p in reasons]
    st.markdown("\n".join(f"- {render.md(audit.review.reasons.render_reason(k, p, words))}" for k, p in reasons))
