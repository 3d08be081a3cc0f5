"""What a judge call cost: genai-prices' list price, unless settings.JUDGE_PRICES names the model.

An unknown model costs 0 rather than a guess; the cost page lists such models so nobody reads a
zero as free.
"""

from decimal import Decimal
from functools import lru_cache

from django.conf import settings
from genai_prices import Usage, calc_price

MILLION = Decimal(1_000_000)
# The Message Batches API bills every token at half the price.
BATCH_DISCOUNT = Decimal("0.5")
CENT_FRACTION = Decimal("0.000001")


@lru_cache(maxsize=256)
def _known_to_genai_prices(model: str) -> bool:
    try:
        calc_price(Usage(input_tokens=1, output_tokens=1), model_ref=model)
    except LookupError:
        return False
    return True


def call_cost_usd(
    model: str,
    *,
    input_tokens: int,
    output_tokens: int,
    cache_read_tokens: int = 0,
    cache_write_tokens: int = 0,
    batch: bool = False,
) -> Decimal:
    """Cost of one call; `input_tokens` excludes the cached ones, as providers report them."""
    own = settings.JUDGE_PRICES.get(model)
    if own:
        total = (
            Decimal(str(own["input"])) * input_tokens
            + Decimal(str(own["output"])) * output_tokens
            + Decimal(str(own.get("cache_read", own["input"]))) * cache_read_tokens
            + Decimal(str(own.get("cache_write", own["input"]))) * cache_write_tokens
        ) / MILLION
    elif _known_to_genai_prices(model):
        usage = Usage(
            input_tokens=input_tokens + cache_read_tokens + cache_write_tokens,
            output_tokens=output_tokens,
            cache_read_tokens=cache_read_tokens,
            cache_write_tokens=cache_write_tokens,
        )
        total = Decimal(str(calc_price(usage, model_ref=model).total_price))
    else:
        return Decimal(0)
    if batch:
        total *= BATCH_DISCOUNT
    return total.quantize(CENT_FRACTION)


def cache_read_saving_per_million(model: str) -> float:
    """USD saved per million input tokens read from the prompt cache instead of sent."""
    # Priced on a small call and scaled: long prompts may fall in a dearer tier.
    full = call_cost_usd(model, input_tokens=10_000, output_tokens=0)
    cached = call_cost_usd(model, input_tokens=0, output_tokens=0, cache_read_tokens=10_000)
    return float(full - cached) * 100
