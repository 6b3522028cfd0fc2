"""The app's pages.  Every page is registered whether or not someone is
signed in (so a shared link such as ``/item?benchmark=…&question=…`` works);
a page shows the sign-in form until the reviewer has signed in, except the
error report form (``/report``), which readers outside the team open without
an account.  Admin pages (Label Studio) are left out for reviewers and leads."""
from __future__ import annotations

import functools

import streamlit as st

from workbench import routing, session
from workbench.views import admin, dashboards, export, item, judges, label_studio, queue, report, signin
from workbench.views.common import t


def _gated(fn, needs: str = "reviewer"):
    """Show ``fn`` to a signed-in account with role ``needs`` or above; the
    sign-in form to nobody signed in; a short notice to the others."""
    @functools.wraps(fn)
    def run() -> None:
        if not session.reviewer():
            signin.page()
        elif not session.may(needs):
            st.info(t("nav.admin_only"))
        else:
            fn()
    return run


def queue_page() -> st.Page:
    return st.Page(_gated(queue.page), title=t("nav.queue"), url_path="queue", icon=":material/checklist:", default=True)


def item_page() -> st.Page:
    return st.Page(_gated(item.page), title=t("nav.item"), url_path="item", icon=":material/edit_note:")


def dashboards_page() -> st.Page:
    return st.Page(_gated(dashboards.page), title=t("nav.dashboards"), url_path="dashboards", icon=":material/bar_chart:")


def judges_page() -> st.Page:
    return st.Page(_gated(judges.page), title=t("nav.judges"), url_path="judges", icon=":material/gavel:")


def label_studio_page() -> st.Page:
    return st.Page(_gated(label_studio.page, "admin"), title=t("nav.label_studio"), url_path="label-studio", icon=":material/sync:")


def export_page() -> st.Page:
    return st.Page(_gated(export.page), title=t("nav.export"), url_path="export", icon=":material/output:")


def report_page() -> st.Page:
    """The error report form: open to anyone, no account needed."""
    return st.Page(report.page, title=t("nav.report"), url_path="report", icon=":material/flag:")


def admin_page() -> st.Page:
    return st.Page(_gated(admin.page, "admin"), title=t("nav.admin"), url_path="admin",
                   icon=":material/admin_panel_settings:")


FACTORIES = {"queue": queue_page, "item": item_page, "dashboards": dashboards_page, "judges": judges_page,
             "label-studio": label_studio_page, "export": export_page, "admin": admin_page, "report": report_page}
"""URL path → the function that builds the page served there."""


def pages() -> list[st.Page]:
    """The pages the signed-in account may open: the Label Studio settings
    only for administrators (reviewers do not see them in the menu and the
    address leads to the queue).  Registers every page with
    :mod:`workbench.routing`, so a view's callback can ask for another page by
    its URL path."""
    for url_path, factory in FACTORIES.items():
        routing.register(url_path, factory)
    out = [queue_page(), item_page(), dashboards_page(), judges_page()]
    if not session.reviewer() or session.is_admin():
        out += [admin_page(), label_studio_page()]
    return out + [export_page(), report_page()]
