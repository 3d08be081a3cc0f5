import sys

from django.http import HttpResponse, JsonResponse
from django.shortcuts import render

from core.errors import OUTAGE_MESSAGE, error_body, is_outage, outage_headers
from evalsite.middleware import TOKEN_AUTHENTICATED_PREFIXES


def server_error(request):
    """An error no view handled: JSON for API and OTLP clients, the page with the navigation
    for people. A database or broker outage is a 503 with Retry-After, which clients and
    OpenTelemetry exporters retry; anything else a 500."""
    outage = is_outage(sys.exc_info()[1])  # Django calls this inside its `except` block
    status = 503 if outage else 500
    headers = outage_headers() if outage else {}
    if request.path.startswith(TOKEN_AUTHENTICATED_PREFIXES):
        body = (
            error_body("unavailable", OUTAGE_MESSAGE)
            if outage
            else error_body("server_error", "Server error: it was logged; try again later.")
        )
        return JsonResponse(body, status=status, headers=headers)
    try:
        response = render(request, f"{status}.html", status=status)
        for name, value in headers.items():
            response[name] = value
        return response
    except Exception:  # noqa: BLE001 - the error page must not raise in turn
        text = OUTAGE_MESSAGE if outage else "Server error: try again in a moment."
        return HttpResponse(
            f"Service unavailable. {text}" if outage else text,
            status=status,
            headers=headers,
            content_type="text/plain; charset=utf-8",
        )
