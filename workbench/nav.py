"""The app's pages.  Every page is registered whether or not someone is
signed in, and for every role (so a shared link such as
``/item?benchmark=…&question=…``, or ``/queue``, ``/admin``, works and never
meets Streamlit's untranslated "Page not found"): a page shows the sign-in
form until the reviewer has signed in, except the error report form
(``/report``), which readers outside the team open without an account, and
an admin page shows a translated notice to a reviewer or lead (it is left
out of their menu).  The app's
root address opens the queue at ``/queue``; ``/help`` is the reviewer's
guide in the interface language (the ⋮ menu's *Get help* when the
documentation site is not served)."""
from __future__ import annotations

import functools

import streamlit as st

from workbench import routing, session
from workbench.views import admin, dashboards, export, guide, item, judges, label_studio, queue, report, signin
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


def home_page() -> st.Page:
    """The root address: the queue, under its own address ``/queue`` (the
    default page of a Streamlit app answers at the root only)."""
    return st.Page(_home, title=t("nav.queue"), url_path="home", icon=":material/checklist:", default=True,
                   visibility="hidden")


def _home() -> None:
    st.switch_page(queue_page())


def queue_page() -> st.Page:
    return st.Page(_gated(queue.page), title=t("nav.queue"), url_path="queue", icon=":material/checklist:")


def help_page() -> st.Page:
    return st.Page(guide.page, title=t("nav.help"), url_path="help", icon=":material/help:", visibility="hidden")


def item_page() -> st.Page:
    return st.Page(_gated(item.page), title=t("nav.item"), url_path="item", icon=":material/edit_note:")


def dashboards_page() -> st.Page:
    return st.Page(
        _gated(dashboards.page), title=t("nav.dashboards"), url_path="dashboards", icon=":material/bar_chart:"
    )


def judges_page() -> st.Page:
    return st.Page(_gated(judges.page), title=t("nav.judges"), url_path="judges", icon=":material/gavel:")


def _admin_visibility() -> str:
    """Admin pages are in the menu of nobody signed in and of admins; for a
    reviewer or lead their address still answers, with a notice."""
    return "visible" if not session.reviewer() or session.is_admin() else "hidden"


def label_studio_page() -> st.Page:
    return st.Page(_gated(label_studio.page, "admin"), title=t("nav.label_studio"), url_path="label-studio",
                   icon=":material/sync:", visibility=_admin_visibility())


def export_page() -> st.Page:
    return st.Page(_gated(export.page), title=t("nav.export"), url_path="export", icon=":material/output:")


def report_page() -> st.Page:
    """The error report form: open to anyone, no account needed."""
    return st.Page(report.page, title=t("nav.report"), url_path="report", icon=":material/flag:")


def admin_page() -> st.Page:
    return st.Page(_gated(admin.page, "admin"), title=t("nav.admin"), url_path="admin",
                   icon=":material/admin_panel_settings:", visibility=_admin_visibility())


FACTORIES = {"queue": queue_page, "item": item_page, "dashboards": dashboards_page, "judges": judges_page,
             "label-studio": label_studio_page, "export": export_page, "admin": admin_page, "help": help_page,
             "report": report_page}
"""URL path → the function that builds the page served there."""


def pages() -> list[st.Page]:
    """Every page (see the module): the admin pages are hidden from the menu
    of reviewers and leads, whose address shows a notice.  Registers every
    page with :mod:`workbench.routing`, so a view's callback can ask for
    another page by its URL path."""
    for url_path, factory in FACTORIES.items():
        routing.register(url_path, factory)
    return [home_page(), queue_page(), item_page(), dashboards_page(), judges_page(), admin_page(),
            label_studio_page(), export_page(), help_page(), report_page()]
