"""Session pages: the list of conversations, and one conversation with its traces in order."""

from django.core.paginator import Paginator
from django.shortcuts import render

from accounts.roles import ANNOTATOR, require_role
from core.bounded_paginator import BoundedPaginator
from core.keyset import keyset_page_for_view
from explorer import session_selectors
from traces.session_selectors import (
    SESSION_ORDER,
    session_conversations,
    session_get,
    sessions_as_seen_by,
)

PER_PAGE = 50


@require_role(ANNOTATOR)
def session_list(request):
    """Sessions (conversations) with their trace counts, times and latest verdicts, in pages
    linked by cursor (core/keyset.py)."""
    session_filter = session_selectors.session_list(request.user, request.GET)
    sessions = session_filter.qs
    page, error = keyset_page_for_view(sessions, SESSION_ORDER, request.GET, PER_PAGE)
    page.rows = sessions_as_seen_by(request.user, page.rows)
    return render(
        request,
        "explorer/session_list.html",
        {
            "filter": session_filter,
            "page": page,
            "page_error": error,
            # The figure above the list: a count that stops past COUNT_CAP, as it says.
            "counter": BoundedPaginator(sessions, PER_PAGE),
        },
        status=400 if error else 200,
    )


@require_role(ANNOTATOR)
def session_detail(request, session_id: int):
    """One session: its verdicts, then every trace in order as one readable conversation."""
    session = session_get(request.user, session_id)
    traces = session_selectors.session_traces(request.user, session)
    page = Paginator(traces, PER_PAGE).get_page(request.GET.get("page"))
    rows = list(page)
    conversations = session_conversations(rows)
    verdicts = list(
        session_selectors.session_verdicts_visible(request.user)
        .filter(session=session)
        .select_related("rubric_version__rubric", "config")
        .order_by("-created_at")
    )
    return render(
        request,
        "explorer/session_detail.html",
        {
            "session": session,
            "page": page,
            "exchanges": [(trace, conversations[trace.pk]) for trace in rows],
            "verdicts": verdicts,
            "first_number": page.start_index(),
        },
    )
