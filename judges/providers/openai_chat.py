"""OpenAI-compatible Chat Completions through the `openai` SDK: GPT models, or any server that
speaks the same API (vLLM, llama.cpp, a gateway) at the judge config's base URL.

As for Anthropic, the SDK never retries (max_retries=0): Celery owns retries and counts them,
and the SDK's errors leave this module as ProviderTransientError or ProviderPermanentError.
Imported only when a config speaks this API: the `openai` package is about 14 MiB a worker.
"""

import time

import openai
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

SDK_TRANSIENT_ERRORS, SDK_PERMANENT_ERRORS = sdk_error_classes(openai)

_clients: SharedClients[openai.OpenAI] = SharedClients()


def client(base_url: str = "") -> openai.OpenAI:
    """One SDK client per base URL and key, shared by a worker's threads."""
    url = base_url or settings.OPENAI_BASE_URL or None
    key = (url, settings.OPENAI_API_KEY, settings.JUDGE_TIMEOUT_SECONDS)
    key += (settings.JUDGE_PROVIDER_CONNECTIONS,)
    return _clients.get(
        key,
        lambda: openai.OpenAI(
            api_key=settings.OPENAI_API_KEY or SIMULATOR_KEY,
            base_url=url,
            max_retries=0,
            timeout=settings.JUDGE_TIMEOUT_SECONDS,
            http_client=openai.DefaultHttpxClient(limits=connection_limits()),
        ),
    )


def request_params(prompt: RenderedPrompt, config: JudgeConfig) -> dict:
    """The Chat Completions body: the rubric as the system message, the trace as the user's.

    `max_tokens` rather than `max_completion_tokens`: self-hosted servers take the former."""
    return {
        "model": config.model,
        "max_tokens": config.max_tokens,
        "temperature": config.temperature,
        "messages": [
            {"role": "system", "content": prompt.system},
            {"role": "user", "content": prompt.user},
        ],
    }


def chat_create(params: dict, base_url: str = "") -> ProviderReply:
    """One judge call. Raises ProviderTransientError (worth retrying) or ProviderPermanentError."""
    started = time.monotonic()
    with sdk_errors_translated(SDK_TRANSIENT_ERRORS, SDK_PERMANENT_ERRORS):
        completion = client(base_url).chat.completions.create(**params)
    latency_ms = int((time.monotonic() - started) * 1000)
    text = "".join(choice.message.content or "" for choice in completion.choices[:1])
    usage = completion.usage
    details = getattr(usage, "prompt_tokens_details", None) if usage else None
    cached = (getattr(details, "cached_tokens", None) or 0) if details else 0
    prompt_tokens = (usage.prompt_tokens or 0) if usage else 0
    # Anthropic counts input without the cached part; the same here, so costs add up alike.
    return ProviderReply(
        text=text,
        input_tokens=max(prompt_tokens - cached, 0),
        output_tokens=(usage.completion_tokens or 0) if usage else 0,
        cache_read_tokens=cached,
        cache_write_tokens=0,
        latency_ms=latency_ms,
    )
