"""Writes for judge configs: the model and how many passes judge, and how far they may differ."""

from django.db import transaction

from core.errors import ApplicationError
from judges.models import JudgeConfig

MAX_PASSES = 5


def judge_config_create(
    *,
    name: str,
    model: str,
    passes: int = 2,
    tolerance: float = 0.0,
    max_tokens: int = 1024,
    use_batch_api: bool = False,
    provider: str = "anthropic",
    base_url: str = "",
) -> JudgeConfig:
    """A judge config at temperature 0: passes are only comparable when sampling is greedy."""
    # Not at module level: the provider SDKs would load in every web worker at start.
    from judges.providers import BATCH_PROVIDERS, PROVIDERS

    name, model = name.strip(), model.strip()
    if not name:
        raise ApplicationError("Give the config a name.", field="name")
    if not model:
        raise ApplicationError(
            "Name the judge model, e.g. claude-sonnet-4-5 or gpt-4.1.", field="model"
        )
    if provider not in PROVIDERS:
        raise ApplicationError(f"Provider is one of {', '.join(PROVIDERS)}.", field="provider")
    base_url = base_url.strip()
    if base_url and provider != "openai":
        raise ApplicationError(
            "A base URL is for an OpenAI-compatible server; Anthropic's comes from settings.",
            field="base_url",
        )
    if use_batch_api and provider not in BATCH_PROVIDERS:
        raise ApplicationError(
            "The Batches API is used only with Anthropic; this provider is called directly.",
            field="use_batch_api",
        )
    if not 1 <= passes <= MAX_PASSES:
        raise ApplicationError(f"Passes are between 1 and {MAX_PASSES}.", field="passes")
    if tolerance < 0:
        raise ApplicationError("Tolerance is a score gap: 0 or more.", field="tolerance")
    with transaction.atomic():
        if JudgeConfig.objects.filter(name__iexact=name).exists():
            raise ApplicationError(f"A config named {name!r} exists already.", field="name")
        return JudgeConfig.objects.create(
            name=name,
            provider=provider,
            base_url=base_url,
            model=model,
            temperature=0.0,
            passes=passes,
            tolerance=tolerance,
            max_tokens=max_tokens,
            use_batch_api=use_batch_api,
        )
