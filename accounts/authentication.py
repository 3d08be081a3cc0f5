from django.conf import settings
from django.core.cache import cache
from django.utils import timezone
from rest_framework import authentication, exceptions

from accounts.models import ApiToken, hash_token


def token_from_headers(request) -> str | None:
    """OTLP exporters send `Authorization: Bearer`, some clients `x-api-key`."""
    header = request.META.get("HTTP_AUTHORIZATION", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip() or None
    return request.META.get("HTTP_X_API_KEY") or None


class ApiTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request):
        raw = token_from_headers(request)
        if raw is None:
            return None
        failures_key = f"api-token-failures:{request.META.get('REMOTE_ADDR', '')}"
        if cache.get(failures_key, 0) >= settings.API_TOKEN_FAILURE_LIMIT:
            raise exceptions.Throttled(
                wait=settings.AXES_COOLOFF_TIME.total_seconds(),
                detail="Too many invalid API tokens from this address.",
            )
        token = (
            ApiToken.objects.select_related("user")
            .filter(token_hash=hash_token(raw), revoked_at__isnull=True)
            .first()
        )
        if token is None or not token.user.is_active:
            _failure_count(failures_key)
            raise exceptions.AuthenticationFailed("Invalid or revoked API token.")
        now = timezone.now()
        # Writing on every request would serialize ingestion on one row; once a minute is enough.
        if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return token.user, token

    def authenticate_header(self, request):
        return self.keyword


def _failure_count(key: str) -> None:
    timeout = int(settings.AXES_COOLOFF_TIME.total_seconds())
    if not cache.add(key, 1, timeout=timeout):
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.add(key, 1, timeout=timeout)
