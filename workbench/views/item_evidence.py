"""Item page panel "Why this item is here": each contribution to the item's
key-error score in plain words, from :func:`audit.review.why_this_item`
(no statistics here)."""
from __future__ import annotations

import streamlit as st

from workbench import render
from workbench.views import common
from workbench.views.common import t


def show(bench: str, qid: str, db) -> None:
    """Render the reasons; nothing when the benchmark has no score yet."""
    reasons = common.call(common.cached_why, bench, qid, str(db),
                          common.review_version(db, (bench, qid)), quiet=True, any_error=True)
    if not reasons:
        return
    st.markdown("#### " + t("item.why_here"))
    st.markdown("\n".join(f"- {render.md(s)}" for s in reasons))
