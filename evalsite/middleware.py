from http import HTTPStatus

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject, CSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.contrib.auth.middleware import LoginRequiredMiddleware
from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.messages.storage import default_storage
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpResponse, HttpResponseBadRequest, JsonResponse
from django.utils.functional import SimpleLazyObject, empty

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
        # Without a query string there is nothing to check, and no QueryDict worth building.
        if not request.META.get("QUERY_STRING"):
            return get_response(request)
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


class LazyMessageMiddleware(MessageMiddleware):
    """Django's messages, with the storage made when a view or template first uses it: an API
    or OTLP request never does, yet paid for a cookie and a session storage (and a cookie
    signer) each time. Storage left unused has nothing to save."""

    def process_request(self, request):
        request._messages = SimpleLazyObject(lambda: default_storage(request))

    def process_response(self, request, response):
        storage = getattr(request, "_messages", None)
        if isinstance(storage, SimpleLazyObject) and storage._wrapped is empty:
            return response
        return super().process_response(request, response)


# The policy headers built from settings alone, with the URL prefixes they exclude, by
# report_only: the same for every response that neither changes the policy (csp decorators)
# nor uses a nonce.
_SETTINGS_POLICIES: dict[bool, tuple[str, tuple[str, ...]]] = {}
_POLICY_CHANGES = tuple(
    f"_csp_{part}{suffix}" for part in ("config", "update", "replace") for suffix in ("", "_ro")
)
_HEADERS = (
    (False, HEADER, "_csp_exempt", "CONTENT_SECURITY_POLICY"),
    (True, HEADER_REPORT_ONLY, "_csp_exempt_ro", "CONTENT_SECURITY_POLICY_REPORT_ONLY"),
)


@receiver(setting_changed)
def _settings_policies_forget(setting, **kwargs):
    if setting.startswith("CONTENT_SECURITY_POLICY"):
        _SETTINGS_POLICIES.clear()


class SettingsPolicyCSPMiddleware(CSPMiddleware):
    """django-csp's middleware, with the policy built from settings once a process: django-csp
    builds both headers on every response, deep-copying each directive, a sixth of the web
    process's time for an OTLP request without spans. A response that changes the policy (csp
    decorators) or a request that used its nonce is answered by django-csp itself."""

    def process_response(self, request, response):
        if getattr(request, "_csp_nonce", None) is not None or any(
            getattr(response, name, None) is not None for name in _POLICY_CHANGES
        ):
            return super().process_response(request, response)
        if response.status_code in (HTTPStatus.INTERNAL_SERVER_ERROR, HTTPStatus.NOT_FOUND) and (
            settings.DEBUG
        ):
            return response
        for report_only, header, exempt, setting in _HEADERS:
            known = _SETTINGS_POLICIES.get(report_only)
            if known is None:
                excluded = (getattr(settings, setting, None) or {}).get("EXCLUDE_URL_PREFIXES")
                known = _SETTINGS_POLICIES[report_only] = (
                    build_policy(report_only=report_only),
                    tuple(excluded or ()),
                )
            policy, excluded = known
            if not policy or header in response or getattr(response, exempt, False) is not False:
                continue
            if not request.path_info.startswith(excluded):
                response[header] = policy
        # As django-csp does: a nonce asked for after the header is written is an error.
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)
        return response
