import base64
import binascii
import copy

from django.utils import timezone
from rest_framework import authentication, exceptions

from accounts.client_address import client_address
from accounts.models import ApiToken, TokenScope, hash_token
from accounts.token_cache import token_cache
from accounts.token_failures import lockout_seconds, token_failure_add, token_failures_over_limit

# How long a process remembers a valid token: a revoke made elsewhere counts within it.
TOKEN_REMEMBERED_SECONDS = 5.0
SEND_ONLY_REFUSAL = (
    "This token may only send traces, logs and feedback (it was made send-only); "
    "use a token made for everything your role allows."
)


def token_from_headers(request) -> str | None:
    """OTLP exporters send `Authorization: Bearer`, some clients `x-api-key`, and the Langfuse
    SDK `Basic` with its public and secret key: the secret is the token."""
    header = request.META.get("HTTP_AUTHORIZATION", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip() or None
    if header.lower().startswith("basic "):
        _public, secret = _basic_pair(header[6:].strip())
        if not secret:
            raise exceptions.AuthenticationFailed(
                "Authorization: Basic must be base64 of `public key:secret key`, the secret key "
                "an evalsite API token."
            )
        return secret
    return request.META.get("HTTP_X_API_KEY") or None


def basic_public_key(request) -> str:
    """The public key (username) of the request's `Authorization: Basic`, "" when it sends
    none: the Langfuse SDK's LANGFUSE_PUBLIC_KEY, which traces.projects reads as a project."""
    header = request.META.get("HTTP_AUTHORIZATION", "")
    if not header.lower().startswith("basic "):
        return ""
    return _basic_pair(header[6:].strip())[0]


def _basic_pair(encoded: str) -> tuple[str, str]:
    """(public key, secret key) of a Basic credential; the secret is "" when it has none or
    the credential is no base64 of `public:secret`."""
    try:
        public, colon, secret = base64.b64decode(encoded, validate=True).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return "", ""
    return (public, secret) if colon else ("", "")


class ApiTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request):
        raw = token_from_headers(request)
        if raw is None:
            return None
        token_hash = hash_token(raw)
        resolved = token_cache.get(token_hash)
        if resolved is not None:
            token = resolved.token
        else:
            token = (
                ApiToken.objects.select_related("user")
                .filter(token_hash=token_hash, revoked_at__isnull=True)
                .first()
            )
            if token is None or not token.user.is_active:
                _refuse(request, raw)
            token_cache.put(token_hash, token, TOKEN_REMEMBERED_SECONDS)
        now = timezone.now()
        # Writing on every request would serialize ingestion on one row; once a minute is enough.
        if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
            token.last_used_at = now
        if token.scope == TokenScope.SEND and not _sending(request):
            raise exceptions.PermissionDenied(SEND_ONLY_REFUSAL)
        # Each request gets its own copy: a view may set attributes on its user.
        return copy.copy(token.user), token

    def authenticate_header(self, request):
        return self.keyword


def _sending(request) -> bool:
    """Whether a send-only token may make this request: its view names the method in
    `send_only_methods`. A view that says nothing is closed to such tokens."""
    view = (getattr(request, "parser_context", None) or {}).get("view")
    return request.method in getattr(view, "send_only_methods", ())


def _refuse(request, raw: str):
    """401 for a token that does not verify; 429 once this address sent it too often."""
    if token_failures_over_limit(token_failure_add(client_address(request), raw)):
        raise exceptions.Throttled(
            wait=lockout_seconds(),
            detail="Too many invalid API tokens like this one from this address.",
        )
    raise exceptions.AuthenticationFailed("Invalid or revoked API token.")
