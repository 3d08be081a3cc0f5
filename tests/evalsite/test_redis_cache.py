"""The Redis cache keeps one client for its connection pool instead of building one a call."""

import threading

import pytest
from django.conf import settings
from django.utils.module_loading import import_string

from evalsite.caches import caches_from_environment


@pytest.fixture
def redis_cache():
    assert settings.REDIS_URL, "these tests need REDIS_URL"
    entry = caches_from_environment(settings.REDIS_URL, settings.VAR_DIR)["shared"]
    backend = import_string(entry["BACKEND"])
    cache = backend(entry["LOCATION"], {"KEY_PREFIX": "redis-cache-test"})
    yield cache
    cache.delete_many(["lease", "counted"])


def test_every_call_uses_the_same_client_and_the_cache_still_works(redis_cache):
    assert redis_cache.add("lease", 41, timeout=30)
    assert not redis_cache.add("lease", 42, timeout=30)
    assert redis_cache.get("lease") == 41
    redis_cache.delete("lease")
    assert redis_cache.get("lease") is None

    first = redis_cache._cache.get_client(write=True)
    assert redis_cache._cache.get_client(write=True) is first
    assert redis_cache._cache.get_client(write=False) is first  # one server: one pool


def test_threads_share_the_client_without_losing_a_count(redis_cache):
    redis_cache.set("counted", 0, timeout=30)

    def count():
        for _ in range(50):
            redis_cache.incr("counted")

    threads = [threading.Thread(target=count) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert redis_cache.get("counted") == 400
