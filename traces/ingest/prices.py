"""What a model call cost, at genai-prices' price for the model, when the span does not say.

Stored costs are capped at MAX_COST: a sender's absurd token count must not fail the request.
"""

import functools
import math
from decimal import Decimal

MAX_COST = Decimal("99999.999999")
# What is stored: whole micro-dollars (the cost column's six places), rounded half to even.
STORED_COST = Decimal("0.000000")
_MAX_MICRO = 99_999_999_999
_MICRO_DOLLAR = Decimal("0.000001")


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
        return (rate_in * input_tokens + rate_out * output_tokens).scaleb(-6)
    from genai_prices import Usage

    usage = Usage(input_tokens=input_tokens, output_tokens=output_tokens)
    price = _model_price(model, PROVIDER_IDS.get(provider, provider))
    return Decimal(str(price.calc_price(usage)["total_price"]))


def cost_estimate_stored(
    model: str, input_tokens: int, output_tokens: int, provider: str = ""
) -> Decimal:
    """cost_estimate as the cost column keeps it: within 0 and MAX_COST, quantized to
    STORED_COST. Below the tiers in integers, exactly what the Decimal arithmetic, its
    comparisons and quantize give, at a quarter of their instructions."""
    if (input_tokens or output_tokens) and model:
        rates = _micro_rates(model, PROVIDER_IDS.get(provider, provider))
        if rates is not None and input_tokens + output_tokens < rates[3]:
            rate_in, rate_out, unit, _ = rates
            # Millionths of a dollar times `unit`, exact; then half to even, as quantize. No
            # min or max: each parses its arguments at a cost of some 700 instructions.
            micro, rest = divmod(rate_in * input_tokens + rate_out * output_tokens, unit)
            if 2 * rest > unit or (2 * rest == unit and micro % 2):
                micro += 1
            if micro < 0:
                micro = 0
            elif micro > _MAX_MICRO:
                micro = _MAX_MICRO
            return _MICRO_DOLLAR * micro  # exact: exponent -6, as quantize gives
    estimate = cost_estimate(model, input_tokens, output_tokens, provider)
    return min(max(estimate, STORED_COST), MAX_COST).quantize(STORED_COST)


@functools.lru_cache(maxsize=2048)
def _micro_rates(model: str, provider: str) -> tuple[int, int, int, float] | None:
    """_flat_rates as integers over one `unit` (a power of ten; per million tokens, so each
    token's cost in millionths of a dollar), and where tiers start; None without a price. A
    rate with so many digits that Decimal's 28 could round the sum starts its tiers at 0:
    _flat_rates' arithmetic then."""
    rates = _flat_rates(model, provider)
    if rates is None:
        return None
    rate_in, rate_out, tiers_from = rates
    if not (rate_in.is_finite() and rate_out.is_finite()):
        return 0, 0, 0, 0  # never the integer path
    scale = max(0, -rate_in.as_tuple().exponent, -rate_out.as_tuple().exponent)
    rate_in, rate_out = (int(rate.scaleb(scale)) for rate in (rate_in, rate_out))
    if max(abs(rate_in), abs(rate_out)) >= 10**15:
        return rate_in, rate_out, 10**scale, 0  # never the integer path
    return rate_in, rate_out, 10**scale, tiers_from


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
