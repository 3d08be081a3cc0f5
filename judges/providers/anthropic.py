"""The Anthropic Messages API through the `anthropic` SDK (or the simulator at the same URL).

The SDK never retries (max_retries=0): retries belong to Celery, with backoff and a cap, so a
worker thread is never parked in a sleep and every attempt is counted on the judgment. The SDK's
errors leave this module as judges.providers.errors' ProviderTransientError or
ProviderPermanentError.
"""

import time

import anthropic
from django.conf import settings

from core.shared_clients import SharedClients
from judges.models import JudgeConfig
from judges.prompts import RenderedPrompt
from judges.providers.common import (
    SIMULATOR_KEY,
    ProviderReply,
    connection_limits,
    sdk_error_classes,
    sdk_errors_translated,
)

SDK_TRANSIENT_ERRORS, SDK_PERMANENT_ERRORS = sdk_error_classes(anthropic)

_clients: SharedClients[anthropic.Anthropic] = SharedClients()


def client() -> anthropic.Anthropic:
    """One SDK client per base URL and key, shared by a worker's threads (httpx pools)."""
    key = (
        settings.ANTHROPIC_BASE_URL,
        settings.ANTHROPIC_API_KEY,
        settings.JUDGE_TIMEOUT_SECONDS,
        settings.JUDGE_PROVIDER_CONNECTIONS,
    )
    return _clients.get(
        key,
        lambda: anthropic.Anthropic(
            api_key=settings.ANTHROPIC_API_KEY or SIMULATOR_KEY,
            base_url=settings.ANTHROPIC_BASE_URL or None,
            max_retries=0,
            timeout=settings.JUDGE_TIMEOUT_SECONDS,
            http_client=anthropic.DefaultHttpxClient(limits=connection_limits()),
        ),
    )


def request_params(prompt: RenderedPrompt, config: JudgeConfig) -> dict:
    """The Messages API body: the rubric as a cached system block, the trace in the user turn."""
    return {
        "model": config.model,
        "max_tokens": config.max_tokens,
        "temperature": config.temperature,
        "system": [{"type": "text", "text": prompt.system, "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": prompt.user}],
    }


def messages_create(params: dict) -> ProviderReply:
    """One judge call. Raises ProviderTransientError (worth retrying) or ProviderPermanentError."""
    body = dict(params)
    # This SDK version has no temperature keyword; the API still takes it in the body.
    temperature = body.pop("temperature", None)
    started = time.monotonic()
    with sdk_errors_translated(SDK_TRANSIENT_ERRORS, SDK_PERMANENT_ERRORS):
        # The raw response: the reply needs four numbers and the text, and building the SDK's
        # typed Message from the body took a judge pass more CPU than its claim.
        response = client().messages.with_raw_response.create(
            **body, extra_body={"temperature": temperature} if temperature is not None else None
        )
        answer = response.json()
    latency_ms = int((time.monotonic() - started) * 1000)
    return _reply_from_body(answer, latency_ms)


def _reply_from_body(body: dict, latency_ms: int = 0) -> ProviderReply:
    """The reply text and usage from a Messages API body (a batch result's message dumped)."""
    blocks = body.get("content") or []
    text = "".join(block.get("text", "") for block in blocks if block.get("type") == "text")
    usage = body.get("usage") or {}
    return ProviderReply(
        text=text,
        input_tokens=usage.get("input_tokens") or 0,
        output_tokens=usage.get("output_tokens") or 0,
        cache_read_tokens=usage.get("cache_read_input_tokens") or 0,
        cache_write_tokens=usage.get("cache_creation_input_tokens") or 0,
        latency_ms=latency_ms,
    )


def batch_create(requests: list[dict]) -> str:
    """Submit a Message Batch of `{"custom_id", "params"}`; returns the batch id."""
    with sdk_errors_translated(SDK_TRANSIENT_ERRORS, SDK_PERMANENT_ERRORS):
        batch = client().messages.batches.create(requests=requests)
    return batch.id


def batch_results(batch_id: str) -> list[tuple[str, ProviderReply | None, str]] | None:
    """`[(custom_id, reply or None, error)]` once the batch has ended, else None."""
    with sdk_errors_translated(SDK_TRANSIENT_ERRORS, SDK_PERMANENT_ERRORS):
        batch = client().messages.batches.retrieve(batch_id)
        if batch.processing_status != "ended":
            return None
        entries = list(client().messages.batches.results(batch_id))
    results = []
    for entry in entries:
        if entry.result.type == "succeeded":
            results.append(
                (entry.custom_id, _reply_from_body(entry.result.message.model_dump()), "")
            )
        else:
            results.append((entry.custom_id, None, f"batch request {entry.result.type}"))
    return results
