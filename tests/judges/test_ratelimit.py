"""rate_limit_acquire: requests and tokens per minute, shared through Redis when configured."""

import pytest

from judges import ratelimit


@pytest.fixture
def fresh_local(monkeypatch, settings):
    settings.REDIS_URL = None
    monkeypatch.setattr(ratelimit, "_local", ratelimit.LocalWindow())


def test_requests_over_the_rpm_wait_or_are_refused(fresh_local, settings):
    settings.JUDGE_RATE_LIMIT_RPM = 3
    settings.JUDGE_RATE_LIMIT_TPM = 1_000_000

    for _ in range(3):
        ratelimit.rate_limit_acquire("anthropic", 100, max_wait=0)

    with pytest.raises(ratelimit.RateLimited) as refused:
        ratelimit.rate_limit_acquire("anthropic", 100, max_wait=0)
    assert 0 < refused.value.wait_seconds <= 60


def test_tokens_over_the_tpm_are_refused(fresh_local, settings):
    settings.JUDGE_RATE_LIMIT_RPM = 1000
    settings.JUDGE_RATE_LIMIT_TPM = 1000

    ratelimit.rate_limit_acquire("anthropic", 800, max_wait=0)

    with pytest.raises(ratelimit.RateLimited):
        ratelimit.rate_limit_acquire("anthropic", 300, max_wait=0)
    ratelimit.rate_limit_acquire("other-provider", 300, max_wait=0)


@pytest.mark.integration
def test_workers_share_one_window_through_redis(settings):
    import os

    url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    settings.REDIS_URL = url
    settings.JUDGE_RATE_LIMIT_RPM = 2
    settings.JUDGE_RATE_LIMIT_TPM = 1_000_000
    provider = f"test-{os.getpid()}"
    first, second = ratelimit.RedisWindow(url), ratelimit.RedisWindow(url)
    window = 12345

    taken = [
        first.take(provider, window, 10, 2, 1_000_000),
        second.take(provider, window, 10, 2, 1_000_000),
        first.take(provider, window, 10, 2, 1_000_000),
    ]

    assert taken == [True, True, False]
