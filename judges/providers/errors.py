"""A provider's failure in the project's own terms: each provider module turns its SDK's
exceptions into these at its boundary, so a caller sorts retryable from final failures without
importing any SDK (a worker judging with Anthropic never loads the `openai` package)."""


class ProviderError(Exception):
    """A failed provider call. `kind` is the SDK's own name for the failure (RateLimitError,
    NotFoundError), kept in what a judgment's error says; `retry_after` is the provider's
    retry-after header in seconds, when it sent one."""

    def __init__(self, kind: str, detail: str, retry_after: float | None = None):
        # All three in args: Celery pickles the exception of a retried task.
        super().__init__(kind, detail, retry_after)
        self.kind = kind
        self.detail = detail
        self.retry_after = retry_after

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}"


class ProviderTransientError(ProviderError):
    """Rate limits, overload and other 5xx, timeouts, dropped connections: worth retrying."""


class ProviderPermanentError(ProviderError):
    """Bad request, auth, not found: the same call would fail again."""
