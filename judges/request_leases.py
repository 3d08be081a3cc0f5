"""One provider call for identical requests asked at the same moment.

Before a pass asks the provider, it takes a lease on its request hash (model, parameters,
prompt and pass index) in the cache every worker shares: an atomic add, so of two passes of
one rubric version, one trace content and one pass index that arrive together exactly one
asks. The other waits a moment and comes back; by then the answer is stored and it is reused
without a call (judges.execution.cached_reply). A lease lasts JUDGE_CLAIM_LEASE_SECONDS, the
pass claim's own lease, so a holder whose worker died is taken over when its pass would be.

When the shared cache itself is down, a pass asks without a lease: a duplicate call costs
less than judging stopping.
"""

import logging

from django.conf import settings
from django.core.cache import BaseCache, caches

from core.publish import publish_errors

logger = logging.getLogger(__name__)

# How long a pass waiting for an identical request's answer waits before it looks again.
REQUEST_SHARE_WAIT_SECONDS = 2.0


def _key(digest: str) -> str:
    return f"judge-request-lease:{digest}"


_process_caches: dict[tuple[str, int], BaseCache] = {}


def lease_cache() -> BaseCache:
    """The shared cache, one client for the whole process. `caches[alias]` is one per thread,
    and under gevent one per green thread: each pass would open a Redis connection of its own
    and leave it open, about 1,800 at once on a run of two green-thread workers. The Redis,
    file and local-memory backends are safe to share between threads."""
    alias = settings.SHARED_CACHE
    # Keyed by the settings entry too, so a changed CACHES setting gets a client of its own.
    key = (alias, id(settings.CACHES[alias]))
    cache = _process_caches.get(key)
    if cache is None:
        cache = _process_caches.setdefault(key, caches.create_connection(alias))
    return cache


def request_lease_take(digest: str, judgment_id: int) -> bool:
    """Whether this pass may ask the provider now (it holds the lease, or nobody can)."""
    timeout = max(1, round(settings.JUDGE_CLAIM_LEASE_SECONDS))
    cache = lease_cache()
    try:
        return cache.add(_key(digest), judgment_id, timeout=timeout) or (
            cache.get(_key(digest)) == judgment_id  # a redelivery of the holder itself
        )
    except publish_errors() as exc:
        logger.warning(
            "shared cache unavailable, pass %s asks without a lease: %s", judgment_id, exc
        )
        return True


def request_lease_release(digest: str, judgment_id: int) -> None:
    """Free the lease if this pass holds it (read, then delete: a lease that ran out and was
    taken by another pass in between is freed early, which costs at most one more call)."""
    cache = lease_cache()
    try:
        if cache.get(_key(digest)) == judgment_id:
            cache.delete(_key(digest))
    except publish_errors() as exc:
        logger.warning(
            "shared cache unavailable, lease of pass %s left to expire: %s", judgment_id, exc
        )
