"""The app's pages.  Views switch pages with ``st.switch_page(nav.ITEM)``-style
calls through the helpers below, so page objects are built in one place."""
from __future__ import annotations

import streamlit as st

from workbench.views import dashboards, item, queue, signin


def signin_page() -> st.Page:
    return st.Page(signin.page, title="Sign in", url_path="signin", icon="👤")


def queue_page() -> st.Page:
    return st.Page(queue.page, title="Queue", url_path="queue", icon="📋", default=True)


def item_page() -> st.Page:
    return st.Page(item.page, title="Item", url_path="item", icon="📝")


def dashboards_page() -> st.Page:
    return st.Page(dashboards.page, title="Dashboards", url_path="dashboards", icon="📊")


def pages() -> list[st.Page]:
    return [queue_page(), item_page(), dashboards_page()]
