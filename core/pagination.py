"""The one pagination of every API list: limit/offset, bounded, and strict about its input.

DRF's LimitOffsetPagination reads a bad limit as "the default" and passes any offset to the
database, where 99999999999999999999 overflows bigint (a 500). Here both are integers in a
range or the request is refused naming the parameter."""

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.response import Response

from core.bounded_paginator import COUNT_CAP

MAX_OFFSET = 2**31 - 1


class ApiPagination(LimitOffsetPagination):
    default_limit = 50
    max_limit = 500

    def get_limit(self, request) -> int:
        return self._bounded(request, self.limit_query_param, 1, self.max_limit, self.default_limit)

    def get_offset(self, request) -> int:
        return self._bounded(request, self.offset_query_param, 0, MAX_OFFSET, 0)

    @staticmethod
    def _bounded(request, name: str, low: int, high: int, default: int) -> int:
        raw = request.query_params.get(name)
        if raw is None or raw == "":
            return default
        try:
            value = int(raw)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise ValidationError({name: [f"Must be a whole number from {low} to {high}."]})
        return value

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        bounds = {
            self.limit_query_param: (1, self.max_limit),
            self.offset_query_param: (0, MAX_OFFSET),
        }
        for parameter in parameters:
            low, high = bounds[parameter["name"]]
            parameter["schema"] = {**parameter["schema"], "minimum": low, "maximum": high}
        return parameters


class BoundedCountPagination(ApiPagination):
    """ApiPagination whose count stops at COUNT_CAP matches, or one past the page asked for.

    A full COUNT reads every matching row (every trace a broad search matches); here `count`
    is exact while `count_is_lower_bound` is false, else the list holds more than `count`.
    `next` is given whenever another row follows the page."""

    def paginate_queryset(self, queryset, request, view=None):
        self.request = request
        self.limit = self.get_limit(request)
        self.offset = self.get_offset(request)
        count_limit = max(COUNT_CAP, self.offset + self.limit) + 1
        # Unordered, so the database stops after count_limit rows in whatever order is cheap.
        self.count = queryset.order_by()[:count_limit].count()
        self.count_is_lower_bound = self.count >= count_limit
        self.count_shown = count_limit - 1 if self.count_is_lower_bound else self.count
        if self.count == 0 or self.offset > self.count:
            return []
        return list(queryset[self.offset : self.offset + self.limit])

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

    def get_paginated_response_schema(self, schema):
        described = super().get_paginated_response_schema(schema)
        properties = described["properties"]
        properties["count"] = {
            "type": "integer",
            "example": 123,
            "description": f"Matching rows, counted up to {COUNT_CAP:,} (or one past the page "
            "asked for); exact unless count_is_lower_bound.",
        }
        properties["count_is_lower_bound"] = {
            "type": "boolean",
            "description": "True when more rows match than `count`: counting stopped there.",
        }
        described["required"] = [*described.get("required", []), "count_is_lower_bound"]
        return described
