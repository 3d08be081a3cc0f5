"""What every provider's call returns, and what is the same for all of them."""

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType

import httpx2
from django.conf import settings

from judges.providers.errors import ProviderPermanentError, ProviderTransientError

# The key an SDK sends when the site configures none: the simulator takes any key.
SIMULATOR_KEY = "simulated-judge-key"


@dataclass(frozen=True)
class ProviderReply:
    text: str
    input_tokens: int  # without the tokens read from or written to the prompt cache
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    latency_ms: int


def request_hash(params: dict, *, provider: str, pass_index: int) -> str:
    """Identity of a paid request. The pass index is part of it: the second pass is a second,
    independent call with identical input, never the first one's answer replayed."""
    payload = json.dumps(
        {"provider": provider, "params": params, "pass": pass_index},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(payload.encode()).hexdigest()


def retry_after_seconds(exc: Exception) -> float | None:
    """The provider's retry-after header on an SDK's error, when it sent one."""
    response = getattr(exc, "response", None)
    if response is None:
        return None
    value = response.headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def sdk_error_classes(
    sdk: ModuleType,
) -> tuple[tuple[type[Exception], ...], tuple[type[Exception], ...]]:
    """An SDK's errors as (worth retrying, not): rate limits, overload (529) and other 5xx,
    timeouts and dropped connections are transient; any other API error is permanent. The
    anthropic and openai SDKs name these classes alike."""
    transient = (
        sdk.RateLimitError,
        sdk.InternalServerError,
        sdk.APITimeoutError,
        sdk.APIConnectionError,
    )
    return transient, (sdk.APIError,)


@contextmanager
def sdk_errors_translated(
    transient: tuple[type[Exception], ...], permanent: tuple[type[Exception], ...]
) -> Iterator[None]:
    """A provider call's SDK errors raised as the project's own: `transient` (checked first)
    as ProviderTransientError, the rest of `permanent` as ProviderPermanentError."""
    try:
        yield
    except transient as exc:
        raise ProviderTransientError(
            type(exc).__name__, str(exc), retry_after_seconds(exc)
        ) from exc
    except permanent as exc:
        raise ProviderPermanentError(
            type(exc).__name__, str(exc), retry_after_seconds(exc)
        ) from exc


def connection_limits() -> httpx2.Limits:
    """As many connections as calls a worker keeps in flight, every one kept open between calls:
    the SDK's default keeps 100, so a green-thread pool of 1,000 would open a new connection for
    most calls."""
    size = settings.JUDGE_PROVIDER_CONNECTIONS
    return httpx2.Limits(max_connections=size, max_keepalive_connections=size)
