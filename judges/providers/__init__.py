"""Judge providers: the calls that leave the building, chosen per judge config.

`anthropic` speaks the Messages API (and its Batches API); `openai` speaks Chat Completions to
OpenAI or any compatible server at the config's base URL. Both return a ProviderReply and
raise their SDK's errors as ProviderTransientError (retryable) or ProviderPermanentError (final).
Each SDK is imported by the first call that speaks its API, not before: the web process and
every management command import this package (`default_judge_config`), and `anthropic` alone
costs about 70 MiB and 2 s to import.
"""

import hashlib

from django.conf import settings

from judges.models import JudgeConfig
from judges.prompts import RenderedPrompt
from judges.providers.common import ProviderReply, request_hash
from judges.providers.errors import ProviderError, ProviderPermanentError, ProviderTransientError

PROVIDERS = ("anthropic", "openai")
BATCH_PROVIDERS = ("anthropic",)


def provider_identity(config: JudgeConfig) -> str:
    """Who answers: part of a request's hash, so one server's reply is never reused for another."""
    if config.provider == "openai":
        return f"openai@{config.base_url}" if config.base_url else "openai"
    return config.provider


def rate_limit_scope(config: JudgeConfig) -> str:
    """Whose per-minute limit a call counts against: the server that answers and the account
    (API key) it is asked with, as a provider limits each account. The key is only hashed."""
    key = settings.OPENAI_API_KEY if config.provider == "openai" else settings.ANTHROPIC_API_KEY
    account = hashlib.sha256((key or "").encode()).hexdigest()[:12]
    return f"{provider_identity(config)}#{account}"


def request_params(prompt: RenderedPrompt, config: JudgeConfig) -> dict:
    """The request body in the config's provider's own shape."""
    if config.provider == "openai":
        from judges.providers import openai_chat  # loads the SDK

        return openai_chat.request_params(prompt, config)
    from judges.providers import anthropic  # loads the SDK

    return anthropic.request_params(prompt, config)


def provider_call(config: JudgeConfig, params: dict) -> ProviderReply:
    """One judge call to the config's provider."""
    if config.provider == "openai":
        from judges.providers import openai_chat  # loads the SDK

        return openai_chat.chat_create(params, config.base_url)
    from judges.providers import anthropic  # loads the SDK

    return anthropic.messages_create(params)


def default_judge_config() -> JudgeConfig:
    """The config named "default" (seeded); settings' model on Anthropic before it exists."""
    config = JudgeConfig.objects.filter(name="default").first()
    return config or JudgeConfig(name="default", model=settings.JUDGE_MODEL)


def plain_call(
    system: str, user: str, *, max_tokens: int, config: JudgeConfig | None = None
) -> ProviderReply:
    """One call outside the double-pass path (classification, criteria, the trajectory LLM
    tier) at temperature 0, to the given config's provider, else the default config's."""
    config = config or default_judge_config()
    prompt = RenderedPrompt(system=system, user=user, truncated=False)
    params = {**request_params(prompt, config), "max_tokens": max_tokens, "temperature": 0.0}
    return provider_call(config, params)


__all__ = [
    "BATCH_PROVIDERS",
    "PROVIDERS",
    "ProviderError",
    "ProviderPermanentError",
    "ProviderReply",
    "ProviderTransientError",
    "default_judge_config",
    "plain_call",
    "provider_call",
    "provider_identity",
    "rate_limit_scope",
    "request_hash",
    "request_params",
]
