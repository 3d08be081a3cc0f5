"""The trace list and the trace page: a trace's spans with what judges and people said of it.

Composed from every stage, so above the pipeline; traces/views.py keeps the pages of a trace's
own data (a span's body and raw values, uploads, projects).
"""

from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.urls import reverse

from accounts.roles import ANNOTATOR, require_role
from core.bounded_paginator import BoundedPaginator
from core.keyset import keyset_page_for_view
from explorer import selectors as explorer_selectors
from judges.online_health import trace_online_decisions
from reviews.access import review_item_ids_openable
from reviews.blind import trace_blind_for
from traces import selectors
from traces.context_attributes import end_user_of
from traces.span_html import CUT_CHARS, span_window_html
from traces.span_window import window_plan
from traces.tags import tags_known
from traces.tool_definitions import tools_offered

PAGE_SIZES = (25, 50, 100, 200)
# A page's position: what a link that filters, sorts or exports the list leaves out.
PAGE_POSITION_PARAMS = ("page", "after", "before")


def trace_list_url(query: str) -> str:
    """The trace list's address with this query string (none when empty)."""
    return reverse("explorer:list") + (f"?{query}" if query else "")


# The tree and timeline of a trace past this many spans would slow every reader of the page;
# the API returns every span.
TRACE_PAGE_MAX_SPANS = 20_000


@require_role(ANNOTATOR)
def trace_list(request):
    """Traces with filters, sort, search and pages linked by cursor (core/keyset.py)."""
    trace_filter = explorer_selectors.trace_list(request.user, request.GET)
    try:
        per_page = int(request.GET.get("per_page", 50))
    except ValueError:
        per_page = 50
    per_page = per_page if per_page in PAGE_SIZES else 50
    # A filter that cannot be read lists nothing (not everything) and says why, with a 400.
    valid = trace_filter.is_valid()
    traces = trace_filter.qs if valid else trace_filter.queryset.none()
    # A cursor this list did not give shows the first page and says why, with a 400.
    page, error = keyset_page_for_view(traces, trace_filter.ordering, request.GET, per_page)
    query = request.GET.copy()
    for name in PAGE_POSITION_PARAMS:
        query.pop(name, None)
    unsorted = query.copy()
    unsorted.pop("sort", None)
    return render(
        request,
        "explorer/trace_list.html",
        {
            "filter": trace_filter,
            "page": page,
            "page_error": error,
            # The figure above the list: a count that stops past COUNT_CAP, as it says.
            "counter": BoundedPaginator(traces, per_page),
            "query": query.urlencode(),
            "unsorted_query": unsorted.urlencode(),
            "sort": request.GET.get("sort", ""),
            "page_sizes": PAGE_SIZES,
            "per_page": per_page,
            "known_tags": tags_known(),
        },
        status=200 if valid and not error else 400,
    )


def _trace_blind(request, trace) -> bool:
    # A blind review item links here with ?blind=1; holding one makes the page blind anyway.
    return request.GET.get("blind") == "1" or trace_blind_for(request.user, trace)


@require_role(ANNOTATOR)
def trace_detail(request, trace_id: int):
    """One trace: task and answer, timeline, span tree, and what judges and people said.

    The tree carries each span's head and the first level of its values; whole spans and the
    spans past the first window load on demand (span_body, trace_tree_rows)."""
    trace = selectors.trace_get(request.user, trace_id)
    spans = selectors.trace_span_outline(trace, limit=TRACE_PAGE_MAX_SPANS)
    nodes = selectors.trace_span_nodes(trace, spans)
    blind = _trace_blind(request, trace)
    judging = (
        explorer_selectors.TRACE_JUDGING_BLIND if blind else explorer_selectors.trace_judging(trace)
    )
    highlight = explorer_selectors.trace_cited_span_ids(
        judging["judgments"], judging["red_flags"], spans
    )
    if request.GET.get("span"):
        highlight.add(request.GET["span"])
    feedback = [] if blind else selectors.trace_feedback(trace)
    attributes_text = selectors.value_as_text(trace.attributes)
    merged_calls, merged_calls_total = selectors.trace_merged_calls(trace, spans)
    offered = (trace.context or {}).get("available_tools")
    return render(
        request,
        "explorer/trace_detail.html",
        {
            "trace": trace,
            "tags": list(trace.tags.all()),
            "end_user": end_user_of(trace.context),
            "nodes": nodes,
            "spans_shown": len(spans),
            "spans_cut": len(spans) == TRACE_PAGE_MAX_SPANS and trace.span_count > len(spans),
            "highlight_span_ids": highlight,
            # Feedback links to its span: render it whatever the window.
            "shown_span_ids": {item.span_id for item in feedback if item.span_id},
            "waterfall": selectors.trace_waterfall_rows(trace, nodes),
            "usage_repeats": selectors.trace_usage_repeats(trace),
            "merged_calls": merged_calls,
            "merged_calls_total": merged_calls_total,
            "trace_attributes_text": attributes_text[:CUT_CHARS],
            "trace_attributes_cut": max(0, len(attributes_text) - CUT_CHARS),
            "tools_offered": tools_offered(offered),
            "tools_offered_text": selectors.value_as_text(offered)[:CUT_CHARS] if offered else "",
            "blind": blind,
            "judge_versions": []
            if blind
            else explorer_selectors.trace_judge_versions(judging["judgments"]),
            "feedback": feedback,
            "online_decisions": [] if blind else trace_online_decisions(trace),
            "judgment_rows": explorer_selectors.trace_judgment_rows(judging["judgments"], spans),
            # An item the reader may not open is listed without a link (it would be a 403).
            "review_item_ids_openable": review_item_ids_openable(
                request.user, judging["review_items"]
            ),
            **judging,
        },
    )


@require_role(ANNOTATOR)
def trace_tree_rows(request, trace_id: int):
    """Spans the page left for later: children[from:to] of one parent, as tree items."""
    trace = selectors.trace_get(request.user, trace_id)
    spans = selectors.trace_span_outline(trace, limit=TRACE_PAGE_MAX_SPANS)
    roots = selectors.trace_span_nodes(trace, spans)
    parent_id = request.GET.get("parent", "")
    try:
        start, end = int(request.GET.get("from", "")), int(request.GET.get("to", ""))
    except ValueError:
        return HttpResponseBadRequest("from and to must be whole numbers.")
    children = _node_children(roots, parent_id) if parent_id else roots
    if children is None:
        raise Http404("No such span in this trace.")
    if not 0 <= start <= end:
        return HttpResponseBadRequest("from and to must satisfy 0 <= from <= to.")
    blind = _trace_blind(request, trace)
    judging = (
        explorer_selectors.TRACE_JUDGING_BLIND if blind else explorer_selectors.trace_judging(trace)
    )
    highlight = explorer_selectors.trace_cited_span_ids(
        judging["judgments"], judging["red_flags"], spans
    )
    plan = window_plan(parent_id, children, start, end, forced=set())
    return HttpResponse(span_window_html(trace.pk, plan, highlight, blind))


def _node_children(roots, span_id: str) -> list | None:
    stack = list(roots)
    while stack:
        node = stack.pop()
        if node.span_id == span_id:
            return node.children
        stack.extend(node.children)
    return None
