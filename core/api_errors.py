"""The REST framework's exception handler (settings' EXCEPTION_HANDLER): every error an API
view raises or lets through, answered in core.errors' one JSON shape."""

from django.core.exceptions import PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from core.errors import OUTAGE_MESSAGE, ApplicationError, error_body, is_outage, outage_headers


def exception_handler(exc, context):
    if is_outage(exc):
        return Response(
            error_body("unavailable", OUTAGE_MESSAGE), status=503, headers=outage_headers()
        )
    if isinstance(exc, ApplicationError):
        fields = {exc.field: [exc.message]} if exc.field else {}
        body = error_body(exc.code, exc.answer_message(), fields)
        return Response(body, status=exc.status_code)
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(
            exc.message_dict if hasattr(exc, "error_dict") else exc.messages
        )
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        fields = _flatten(exc.detail)
        first = next(iter(fields.items()), ("", ["invalid input"]))
        message = f"{first[0]}: {first[1][0]}" if first[0] != "non_field_errors" else first[1][0]
        response.data = error_body("invalid", message, fields)
    else:
        detail = exc.detail if isinstance(exc, exceptions.APIException) else str(exc)
        code = getattr(exc, "default_code", "error")
        response.data = error_body(code, str(detail))
    return response


def _flatten(detail, prefix: str = "") -> dict[str, list[str]]:
    if isinstance(detail, dict):
        out: dict[str, list[str]] = {}
        for key, value in detail.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            out.update(_flatten(value, name))
        return out
    if isinstance(detail, list):
        if all(not isinstance(item, (dict, list)) for item in detail):
            return {prefix or "non_field_errors": [str(item) for item in detail]}
        out = {}
        for index, item in enumerate(detail):
            out.update(_flatten(item, f"{prefix}[{index}]" if prefix else f"[{index}]"))
        return out
    return {prefix or "non_field_errors": [str(detail)]}
