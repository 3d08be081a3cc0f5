import copy
import threading
import time
from dataclasses import dataclass

from django.utils import timezone
from rest_framework import authentication, exceptions

from accounts.client_address import client_address
from accounts.models import ApiToken, hash_token
from accounts.roles import user_roles
from accounts.token_failures import lockout_seconds, token_failure_add, token_failures_over_limit

# Tokens remembered per process, at most this many (agents in a loop reuse a handful), each
# for this long: a revoke made elsewhere counts within it.
TOKENS_KEPT = 1024
TOKEN_REMEMBERED_SECONDS = 5.0


def token_from_headers(request) -> str | None:
    """OTLP exporters send `Authorization: Bearer`, some clients `x-api-key`."""
    header = request.META.get("HTTP_AUTHORIZATION", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip() or None
    return request.META.get("HTTP_X_API_KEY") or None


@dataclass
class _Resolved:
    token: ApiToken
    user: object  # with its roles resolved
    until: float  # time.monotonic() after which the token is looked up again


class TokenCache:
    """Valid tokens with their user and roles, for TOKEN_REMEMBERED_SECONDS: an agent that
    checks every tool call, or an exporter that sends every second, pays the token and role
    queries once per interval instead of per request. Revoking a token, or changing its
    user or their groups, empties this process's cache at once (accounts.receivers); other
    processes look again within the interval."""

    def __init__(self):
        self.lock = threading.Lock()
        self.entries: dict[str, _Resolved] = {}

    def get(self, token_hash: str) -> _Resolved | None:
        entry = self.entries.get(token_hash)
        if entry is None or entry.until < time.monotonic():
            return None
        return entry

    def put(self, token_hash: str, token: ApiToken, seconds: float) -> None:
        if seconds <= 0:
            return
        user_roles(token.user)  # resolved now, kept on the user
        with self.lock:
            if len(self.entries) >= TOKENS_KEPT:
                self.entries.clear()
            self.entries[token_hash] = _Resolved(token, token.user, time.monotonic() + seconds)

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()

    def forget(self, *, user_ids=(), token_id: int | None = None) -> None:
        """Drop the tokens of these users, or this token."""
        users = set(user_ids)
        with self.lock:
            for key, entry in list(self.entries.items()):
                if entry.token.user_id in users or entry.token.pk == token_id:
                    del self.entries[key]


token_cache = TokenCache()


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
        # Each request gets its own copy: a view may set attributes on its user.
        return copy.copy(token.user), token

    def authenticate_header(self, request):
        return self.keyword


def _refuse(request, raw: str):
    """401 for a token that does not verify; 429 once this address sent it too often."""
    if token_failures_over_limit(token_failure_add(client_address(request), raw)):
        raise exceptions.Throttled(
            wait=lockout_seconds(),
            detail="Too many invalid API tokens like this one from this address.",
        )
    raise exceptions.AuthenticationFailed("Invalid or revoked API token.")
