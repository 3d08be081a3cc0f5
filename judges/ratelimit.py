"""Per-provider requests- and tokens-per-minute limit, shared by all workers through Redis. A
provider is a scope (judges.providers.rate_limit_scope): the server and the account asked.

Fixed one-minute windows: every worker adds its request and estimated tokens to the current
window's counters and waits for the next window when the provider's limit would be crossed.
Without Redis (embedded mode) the counters live in this process.
"""

import threading
import time
from collections import defaultdict

from django.conf import settings

WINDOW_SECONDS = 60


class RateLimited(Exception):
    """The limit stays full for longer than the caller is willing to wait."""

    def __init__(self, wait_seconds: float):
        super().__init__(f"provider rate limit full for {wait_seconds:.1f}s")
        self.wait_seconds = wait_seconds


class LocalWindow:
    def __init__(self):
        self.lock = threading.Lock()
        self.counts: dict[tuple, list[int]] = defaultdict(lambda: [0, 0])

    def take(
        self, provider: str, window: int, tokens: int, rpm: int, tpm: int, requests: int = 1
    ) -> bool:
        with self.lock:
            for stale in [key for key in self.counts if key[1] < window]:
                del self.counts[stale]
            counts = self.counts[(provider, window)]
            if counts[0] + requests > rpm or (counts[1] and counts[1] + tokens > tpm):
                return False
            counts[0] += requests
            counts[1] += tokens
            return True

    def requests(self, provider: str, window: int) -> int:
        with self.lock:
            return self.counts.get((provider, window), (0, 0))[0]


# Adds the request and tokens only if both stay within the limits; one round trip, atomic.
REDIS_TAKE = """
local requests = tonumber(redis.call('GET', KEYS[1]) or '0')
local tokens = tonumber(redis.call('GET', KEYS[2]) or '0')
if requests + tonumber(ARGV[4]) > tonumber(ARGV[2]) then return 0 end
if tokens > 0 and tokens + tonumber(ARGV[1]) > tonumber(ARGV[3]) then return 0 end
redis.call('INCRBY', KEYS[1], ARGV[4])
redis.call('INCRBY', KEYS[2], ARGV[1])
redis.call('EXPIRE', KEYS[1], 120)
redis.call('EXPIRE', KEYS[2], 120)
return 1
"""


class RedisWindow:
    def __init__(self, url: str):
        import redis

        self.redis = redis.Redis.from_url(url)
        self.script = self.redis.register_script(REDIS_TAKE)

    def take(
        self, provider: str, window: int, tokens: int, rpm: int, tpm: int, requests: int = 1
    ) -> bool:
        keys = [self._key(provider, window, "requests"), self._key(provider, window, "tokens")]
        return bool(self.script(keys=keys, args=[tokens, rpm, tpm, requests]))

    def requests(self, provider: str, window: int) -> int:
        return int(self.redis.get(self._key(provider, window, "requests")) or 0)

    @staticmethod
    def _key(provider: str, window: int, counter: str) -> str:
        return f"evalsite:judge-rate:{provider}:{window}:{counter}"


class Reservations:
    """Requests and tokens this process took from the shared window ahead of use.

    Taking a small block at a time saves a Redis round trip per call; what is left when the
    window ends is simply not used, so the shared limit is never exceeded.
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.left: dict[tuple, list[int]] = {}

    def use(self, provider: str, window: int, tokens: int) -> bool:
        with self.lock:
            left = self.left.get((provider, window))
            if left and left[0] >= 1 and left[1] >= tokens:
                left[0] -= 1
                left[1] -= tokens
                return True
            return False

    def add(self, provider: str, window: int, requests: int, tokens: int) -> None:
        with self.lock:
            for stale in [key for key in self.left if key[1] < window]:
                del self.left[stale]
            left = self.left.setdefault((provider, window), [0, 0])
            left[0] += requests
            left[1] += tokens


_local = LocalWindow()
_reservations = Reservations()
# Calls reserved per Redis round trip; small, so one process never starves the others.
RESERVE_BLOCK = 8
_redis_windows: dict[str, RedisWindow] = {}
_redis_lock = threading.Lock()


def _window_store():
    url = settings.REDIS_URL
    if not url:
        return _local
    with _redis_lock:
        if url not in _redis_windows:
            _redis_windows[url] = RedisWindow(url)
        return _redis_windows[url]


def _now() -> float:
    return time.time()


def window_requests(provider: str) -> int:
    """Requests the current window has counted for `provider`, from every worker sharing it
    (reserved blocks count whole)."""
    return _window_store().requests(provider, int(_now() // WINDOW_SECONDS))


def rate_limit_acquire(provider: str, tokens: int, max_wait: float = 5.0) -> None:
    """Count one call of about `tokens` tokens, waiting up to max_wait for room.

    Raises RateLimited with the time to the next window when there is no room in time; the
    caller re-enqueues instead of holding a worker thread for up to a minute.
    """
    rpm, tpm = settings.JUDGE_RATE_LIMIT_RPM, settings.JUDGE_RATE_LIMIT_TPM
    store = _window_store()
    block = RESERVE_BLOCK if store is not _local else 1
    deadline = time.monotonic() + max_wait
    while True:
        now = _now()
        window = int(now // WINDOW_SECONDS)
        if block > 1:
            if _reservations.use(provider, window, tokens):
                return
            # Reserve a block when the window has room for it, else just this call.
            for requests in (block, 1):
                if store.take(provider, window, tokens * requests, rpm, tpm, requests):
                    _reservations.add(provider, window, requests - 1, tokens * (requests - 1))
                    return
        elif store.take(provider, window, tokens, rpm, tpm):
            return
        to_next_window = (window + 1) * WINDOW_SECONDS - now
        if time.monotonic() + to_next_window > deadline:
            raise RateLimited(to_next_window)
        time.sleep(to_next_window)
