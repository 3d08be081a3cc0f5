"""The one pagination of every API list: pages linked by cursor, a bounded count, strict input.

An offset page reads and throws away every row before it, so the cost of a page grew with how
deep it was. Here a list pages as the site's lists do (core/keyset.py): `next` and `previous`
are URLs whose `after`/`before` cursor holds the sort values of the row the page ended (began)
at, so every page costs what the first does, and rows arriving meanwhile are neither repeated
nor skipped. A view names its order in `page_ordering` (its last term the id). `offset` is
refused naming it, so a client of the earlier pages is told rather than sent page one again.

The count stops at COUNT_CAP matches (`count_is_lower_bound` then says there are more): a full
count reads every matching row. A bad `limit` is refused naming the parameter, as DRF's own
pagination would read it as "the default".
"""

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import BasePagination
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param

from core.bounded_paginator import COUNT_CAP
from core.keyset import keyset_page

OFFSET_REFUSED = (
    "Lists page by cursor: follow the answer's `next` (or `previous`) URL; there is no offset."
)


class ApiPagination(BasePagination):
    default_limit = 50
    max_limit = 500
    limit_query_param = "limit"
    cursor_query_params = ("after", "before")

    def paginate_queryset(self, queryset, request, view=None):
        self.request = request
        params = request.query_params
        if "offset" in params:
            raise ValidationError({"offset": [OFFSET_REFUSED]})
        after, before = params.get("after", ""), params.get("before", "")
        if after and before:
            raise ValidationError({"before": ["Give after or before, not both."]})
        self.limit = self._bounded(request, self.limit_query_param, 1, self.max_limit)
        ordering = getattr(view, "page_ordering", None)
        if not ordering:
            raise TypeError(f"{type(view).__name__} needs a page_ordering to page its list")
        self.page = keyset_page(
            queryset, tuple(ordering), {"after": after, "before": before}, self.limit
        )
        count_limit = max(COUNT_CAP, self.limit) + 1
        # Unordered, so the database stops after count_limit rows in whatever order is cheap.
        self.count = queryset.order_by()[:count_limit].count()
        self.count_is_lower_bound = self.count >= count_limit
        self.count_shown = count_limit - 1 if self.count_is_lower_bound else self.count
        return self.page.rows

    def _bounded(self, request, name: str, low: int, high: int) -> int:
        raw = request.query_params.get(name)
        if raw is None or raw == "":
            return self.default_limit
        try:
            value = int(raw)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise ValidationError({name: [f"Must be a whole number from {low} to {high}."]})
        return value

    def _link(self, name: str, cursor: str) -> str | None:
        if not cursor:
            return None
        url = self.request.build_absolute_uri()
        for other in self.cursor_query_params:
            url = remove_query_param(url, other)
        return replace_query_param(url, name, cursor)

    def get_next_link(self) -> str | None:
        return self._link("after", self.page.older_cursor)

    def get_previous_link(self) -> str | None:
        return self._link("before", self.page.newer_cursor)

    def get_paginated_response(self, data):
        return Response(
            {
                "count": self.count_shown,
                "count_is_lower_bound": self.count_is_lower_bound,
                "next": self.get_next_link(),
                "previous": self.get_previous_link(),
                "results": data,
            }
        )

    def get_schema_operation_parameters(self, view):
        cursor = "A cursor from a `{}` URL this list gave; not made by hand."
        return [
            {
                "name": self.limit_query_param,
                "required": False,
                "in": "query",
                "description": f"Rows a page, {self.default_limit} unless given.",
                "schema": {"type": "integer", "minimum": 1, "maximum": self.max_limit},
            },
            {
                "name": "after",
                "required": False,
                "in": "query",
                "description": "The page after this position. " + cursor.format("next"),
                "schema": {"type": "string"},
            },
            {
                "name": "before",
                "required": False,
                "in": "query",
                "description": "The page before this position. " + cursor.format("previous"),
                "schema": {"type": "string"},
            },
        ]

    def get_paginated_response_schema(self, schema):
        return {
            "type": "object",
            "required": ["count", "count_is_lower_bound", "results"],
            "properties": {
                "count": {
                    "type": "integer",
                    "example": 123,
                    "description": f"Matching rows, counted up to {COUNT_CAP:,} (or the page's "
                    "limit); exact unless count_is_lower_bound.",
                },
                "count_is_lower_bound": {
                    "type": "boolean",
                    "description": "True when more rows match than `count`: counting stopped "
                    "there.",
                },
                "next": {
                    "type": "string",
                    "nullable": True,
                    "format": "uri",
                    "description": "The next page's URL (its `after` cursor); null on the last.",
                },
                "previous": {
                    "type": "string",
                    "nullable": True,
                    "format": "uri",
                    "description": "The previous page's URL (its `before` cursor); null on the "
                    "first.",
                },
                "results": schema,
            },
        }
