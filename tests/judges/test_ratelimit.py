"""rate_limit_acquire: requests and tokens per minute, shared through Redis when configured."""

import pytest

from judges import ratelimit
from judges.models import JudgeConfig
from judges.providers import rate_limit_scope


@pytest.fixture
def fresh_local(monkeypatch, settings):
    settings.REDIS_URL = None
    monkeypatch.setattr(ratelimit, "_local", ratelimit.LocalWindow())


def test_requests_over_the_rpm_wait_or_are_refused(fresh_local, settings, monkeypatch):
    monkeypatch.setattr(ratelimit, "_now", lambda: 1_800_000_030.0)
    settings.JUDGE_RATE_LIMIT_RPM = 3
    settings.JUDGE_RATE_LIMIT_TPM = 1_000_000

    for _ in range(3):
        ratelimit.rate_limit_acquire("anthropic", 100, max_wait=0)
    assert ratelimit.window_requests("anthropic") == 3
    assert ratelimit.window_requests("other-provider") == 0

    with pytest.raises(ratelimit.RateLimited) as refused:
        ratelimit.rate_limit_acquire("anthropic", 100, max_wait=0)
    assert refused.value.wait_seconds == 30


def test_tokens_over_the_tpm_are_refused(fresh_local, settings, monkeypatch):
    monkeypatch.setattr(ratelimit, "_now", lambda: 1_800_000_030.0)
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


@pytest.mark.integration
def test_a_worker_reserves_small_blocks_and_never_exceeds_the_shared_limit(monkeypatch, settings):
    import os

    import redis

    url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    settings.REDIS_URL = url
    settings.JUDGE_RATE_LIMIT_RPM = 10
    settings.JUDGE_RATE_LIMIT_TPM = 1_000_000
    monkeypatch.setattr(ratelimit, "_reservations", ratelimit.Reservations())
    # One fixed minute: a window ending mid-test would reset the counts.
    monkeypatch.setattr(ratelimit, "_now", lambda: 1_800_000_030.0)
    provider = f"block-test-{os.getpid()}-{os.urandom(3).hex()}"
    client = redis.Redis.from_url(url)

    def counted() -> int:
        keys = client.keys(f"evalsite:judge-rate:{provider}:*:requests")
        return sum(int(client.get(key)) for key in keys)

    for _ in range(8):
        ratelimit.rate_limit_acquire(provider, 50, max_wait=0)
    after_block = counted()
    ratelimit.rate_limit_acquire(provider, 50, max_wait=0)
    ratelimit.rate_limit_acquire(provider, 50, max_wait=0)

    assert after_block == 8  # one round trip reserved the first eight calls
    assert counted() == 10
    with pytest.raises(ratelimit.RateLimited):
        ratelimit.rate_limit_acquire(provider, 50, max_wait=0)


def test_a_limit_is_the_answering_servers_and_the_accounts(settings):
    settings.ANTHROPIC_API_KEY = "key-a"
    anthropic = JudgeConfig(provider="anthropic")
    local = JudgeConfig(provider="openai", base_url="http://127.0.0.1:8080/v1")
    hosted = JudgeConfig(provider="openai", base_url="https://llm.example/v1")
    scopes = {rate_limit_scope(config) for config in (anthropic, local, hosted)}
    before = rate_limit_scope(anthropic)
    settings.ANTHROPIC_API_KEY = "key-b"

    assert len(scopes) == 3
    assert rate_limit_scope(anthropic) != before
    assert "key-a" not in before
