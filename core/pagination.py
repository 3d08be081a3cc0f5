"""The one pagination of every API list: limit/offset, bounded, and strict about its input.

DRF's LimitOffsetPagination reads a bad limit as "the default" and passes any offset to the
database, where 99999999999999999999 overflows bigint (a 500). Here both are integers in a
range or the request is refused naming the parameter."""

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination

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
