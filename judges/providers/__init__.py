"""Judge providers: the calls that leave the building. Only Anthropic is built in."""

from judges.providers.anthropic import (
    TRANSIENT_ERRORS,
    ProviderReply,
    messages_create,
    request_hash,
    request_params,
    retry_after_seconds,
)

__all__ = [
    "TRANSIENT_ERRORS",
    "ProviderReply",
    "messages_create",
    "request_hash",
    "request_params",
    "retry_after_seconds",
]
