"""What a model call cost, at genai-prices' price for the model, when the span does not say.

Stored costs are capped at MAX_COST: a sender's absurd token count must not fail the request.
"""

import functools
import math
from decimal import Decimal

MAX_COST = Decimal("99999.999999")
_MILLIONTH = Decimal("1E-6")


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
    rates = _flat_rates(model, PROVIDER_IDS.get(provider, provider))
    if rates is None:
        return Decimal(0)
    rate_in, rate_out, tiers_from = rates
    if input_tokens + output_tokens < tiers_from:
        # A flat rate or a call below every tier: plain arithmetic, 100x cheaper than a full
        # calculation, which is kept for what it alone gets right (long-context tiers).
        # Times a millionth, not scaleb(-6): the same value, and no keyword parsing a call.
        return (rate_in * input_tokens + rate_out * output_tokens) * _MILLIONTH
    from genai_prices import Usage

    usage = Usage(input_tokens=input_tokens, output_tokens=output_tokens)
    price = _model_price(model, PROVIDER_IDS.get(provider, provider))
    return Decimal(str(price.calc_price(usage)["total_price"]))


@functools.lru_cache(maxsize=2048)
def _flat_rates(model: str, provider: str) -> tuple[Decimal, Decimal, float] | None:
    """A model's USD per million input and output tokens below its first tier, and the token
    count where tiers start (infinite when flat); None for a model genai-prices does not know."""
    price = _model_price(model, provider)
    if price is None:
        return None
    from genai_prices.types import TieredPrices

    rates, tiers_from = [], math.inf
    for rate in (price.input_mtok, price.output_mtok):
        if isinstance(rate, TieredPrices):
            tiers_from = min([tiers_from, *(tier.start for tier in rate.tiers)])
            rate = rate.base
        rates.append(Decimal(0) if rate is None else rate)
    return rates[0], rates[1], tiers_from


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
