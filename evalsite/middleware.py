from django.contrib.auth.middleware import LoginRequiredMiddleware
from django.http import HttpResponse, HttpResponseBadRequest, JsonResponse

from core.errors import error_body

# API and OTLP requests authenticate with tokens inside DRF; pages need a session login.
TOKEN_AUTHENTICATED_PREFIXES = ("/api/", "/v1/")


class PageLoginRequiredMiddleware(LoginRequiredMiddleware):
    def process_view(self, request, view_func, view_args, view_kwargs):
        if request.path.startswith(TOKEN_AUTHENTICATED_PREFIXES):
            return None
        return super().process_view(request, view_func, view_args, view_kwargs)


def query_nul_refusal_middleware(get_response):
    """A NUL in a query parameter is refused before any view sees it: PostgreSQL text cannot
    hold one, so the filter it reaches would fail with a server error."""

    def middleware(request):
        for name, values in request.GET.lists():
            if "\x00" in name or any("\x00" in value for value in values):
                return _nul_refused(request, name.replace("\x00", ""))
        return get_response(request)

    return middleware


def _nul_refused(request, name: str) -> HttpResponse:
    message = "Must not contain NUL (\\x00) characters."
    if request.path.startswith(TOKEN_AUTHENTICATED_PREFIXES):
        return JsonResponse(
            error_body("invalid", f"{name}: {message}", {name: [message]}), status=400
        )
    return HttpResponseBadRequest(f"{name}: {message}", content_type="text/plain; charset=utf-8")
