"""What a model call cost, at genai-prices' price for the model, when the span does not say.

Stored costs are capped at MAX_COST: a sender's absurd token count must not fail the request.
"""

import functools
from decimal import Decimal

MAX_COST = Decimal("99999.999999")


@functools.lru_cache(maxsize=2048)
def _model_price(model: str, provider: str):
    """genai-prices' price of a model, looked up once per model and provider."""
    # Loaded on the first priced span: its price tables cost start-up time and memory.
    from genai_prices import Usage, calc_price

    for provider_id in (provider or None, None):
        try:
            return calc_price(
                Usage(input_tokens=1, output_tokens=1), model_ref=model, provider_id=provider_id
            ).model_price
        except LookupError:
            continue
    return None


def cost_estimate(model: str, input_tokens: int, output_tokens: int, provider: str = "") -> Decimal:
    """USD for a model call at genai-prices' price; 0 for a model it does not know."""
    if not (input_tokens or output_tokens) or not model:
        return Decimal(0)
    price = _model_price(model, PROVIDER_IDS.get(provider, provider))
    if price is None:
        return Decimal(0)
    total = input_tokens + output_tokens
    rate_in, rate_out = _rate(price.input_mtok, total), _rate(price.output_mtok, total)
    if rate_in is not None and rate_out is not None:
        # A flat rate or a call below every tier: plain arithmetic, 100x cheaper than a full
        # calculation, which is kept for what it alone gets right (long-context tiers).
        return (rate_in * input_tokens + rate_out * output_tokens) / Decimal(1_000_000)
    from genai_prices import Usage

    usage = Usage(input_tokens=input_tokens, output_tokens=output_tokens)
    return Decimal(str(price.calc_price(usage)["total_price"]))


def _rate(price, tokens: int) -> Decimal | None:
    """USD per million tokens when no tier applies; None when a tier might."""
    if price is None:
        return Decimal(0)
    if isinstance(price, Decimal):
        return price
    from genai_prices.types import TieredPrices

    if isinstance(price, TieredPrices) and all(tokens < tier.start for tier in price.tiers):
        return price.base
    return None


# gen_ai.provider.name values whose genai-prices provider id is spelled otherwise.
PROVIDER_IDS = {
    "gcp.gemini": "google",
    "gcp.vertex_ai": "google",
    "gcp.gen_ai": "google",
    "aws.bedrock": "aws",
    "azure.ai.openai": "azure",
    "azure.ai.inference": "azure",
    "x_ai": "x-ai",
    "mistral_ai": "mistral",
}
