import hashlib
import secrets

from django.conf import settings
from django.db import models
from rest_framework.utils.encoders import JSONEncoder

TOKEN_PREFIX = "evs_"


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


class TokenScope(models.TextChoices):
    """What a token may do: all its person's role allows, or only send (an agent's token,
    which should not read back judgments, people's labels or the golden dataset)."""

    FULL = "full", "Everything its person's role allows"
    SEND = "send", "Send traces, logs and feedback only"


class ApiToken(models.Model):
    """A per-user API token; only its SHA-256 is stored, the raw value is shown once."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=12, help_text="First characters, to tell tokens apart.")
    # Authentication looks tokens up by this hash.
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    scope = models.CharField(max_length=8, choices=TokenScope.choices, default=TokenScope.FULL)

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @classmethod
    def generate(cls, user, name: str, scope: str = TokenScope.FULL) -> tuple["ApiToken", str]:
        raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
        token = cls.objects.create(
            user=user, name=name, prefix=raw[:10], token_hash=hash_token(raw), scope=scope
        )
        return token, raw


class IdempotencyKey(models.Model):
    """A client's Idempotency-Key on a POST that creates work, and the answer it got, so a
    retry of the same request gets the same answer and creates nothing twice."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="idempotency_keys"
    )
    key = models.CharField(max_length=255)
    # Method, path and body hashed: the same key sent with another request is refused.
    request_hash = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField()
    # Encoded as the API encodes answers, so a replay is byte for byte the first answer.
    response_body = models.JSONField(encoder=JSONEncoder)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            # The lookup on every keyed POST, and what makes two racing requests one.
            models.UniqueConstraint(fields=["user", "key"], name="idempotency_key_per_user"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}:{self.key}"
