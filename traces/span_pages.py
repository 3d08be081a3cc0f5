"""A trace's spans over the API a page at a time, so a 100,000-span trace is not one answer.

The detail (`GET /api/traces/{id}/`) holds the first `span_limit` spans (1,000 by default: a
smaller trace's detail is what it always was) and `spans_next`, the URL of the rest at
`GET /api/traces/{id}/spans/`, which pages by an opaque cursor. Spans come in display order
(start time), so a parent precedes its children; each carries its parent_span_id, and a
client rebuilds the tree from the pages in order.
"""

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import Cursor, CursorPagination
from rest_framework.reverse import reverse

SPAN_PAGE_DEFAULT = 1000
SPAN_PAGE_MAX = 5000


class SpanPages(CursorPagination):
    ordering = ("position", "started_at", "pk")  # traces.selectors.trace_spans_ordered's
    page_size = SPAN_PAGE_DEFAULT
    page_size_query_param = "limit"
    max_page_size = SPAN_PAGE_MAX

    def decode_cursor(self, request):
        """DRF's cursor, whose position must be a span position (a whole number): a cursor
        written by hand would otherwise reach the database as text."""
        cursor = super().decode_cursor(request)
        if cursor is not None and cursor.position is not None:
            try:
                int(cursor.position)
            except ValueError:
                raise ValidationError({"cursor": ["Not a cursor this API gave."]}) from None
        return cursor


def span_limit_read(request) -> int:
    raw = request.query_params.get("span_limit")
    if raw in (None, ""):
        return SPAN_PAGE_DEFAULT
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if not 1 <= value <= SPAN_PAGE_MAX:
        message = f"Must be a whole number from 1 to {SPAN_PAGE_MAX}."
        raise ValidationError({"span_limit": [message]})
    return value


def spans_next_url(request, trace_id: int, shown: list, following) -> str:
    """The spans endpoint's URL for the spans after `shown` (the first page), `following`
    being the first span after it: DRF's own next cursor for that page."""
    pages = SpanPages()
    pages.base_url = reverse("api-trace-spans", args=[trace_id], request=request)
    # The last position that differs from the one the next page starts at, and how many
    # spans of that next position this page already showed (CursorPagination.get_next_link).
    offset, position = len(shown), None
    for seen, span in enumerate(reversed(shown)):
        if span.position != following.position:
            offset, position = seen, str(span.position)
            break
    return pages.encode_cursor(Cursor(offset=offset, reverse=False, position=position))
