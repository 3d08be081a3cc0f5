"""Invalid API tokens, counted per (client address, presented token prefix) for
AXES_COOLOFF_TIME in the cache every web process shares (settings.SHARED_CACHE).

Counting by the presented prefix too means one agent sending a revoked token is slowed down
without touching anyone else behind the same address (a proxy, a Collector); a token that
verifies is never counted or refused. Guessing a token is hopeless (256 random bits), so the
limit protects the database from a client retrying forever, not the tokens themselves.
"""

import hashlib

from django.conf import settings
from django.core.cache import caches

from accounts.models import TOKEN_PREFIX

# Characters of a presented token that name it: evalsite's prefix and six of the random part,
# as ApiToken.prefix keeps (a longer prefix would count each guess apart).
PRESENTED_PREFIX_CHARS = len(TOKEN_PREFIX) + 6


def _key(address: str, presented: str) -> str:
    name = f"{address}\0{presented[:PRESENTED_PREFIX_CHARS]}"
    return "api-token-failures:" + hashlib.sha256(name.encode()).hexdigest()[:32]


def lockout_seconds() -> int:
    return int(settings.AXES_COOLOFF_TIME.total_seconds())


def token_failure_add(address: str, presented: str) -> int:
    """Count one failure of this token at this address; returns the count so far."""
    cache, key = caches[settings.SHARED_CACHE], _key(address, presented)
    if cache.add(key, 1, timeout=lockout_seconds()):
        return 1
    try:
        return cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.add(key, 1, timeout=lockout_seconds())
        return 1


def token_failures_over_limit(count: int) -> bool:
    return count > settings.API_TOKEN_FAILURE_LIMIT
