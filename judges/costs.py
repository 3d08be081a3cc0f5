"""What a judge call cost, from the per-model price table in settings (USD per million tokens)."""

from decimal import Decimal

from django.conf import settings

MILLION = Decimal(1_000_000)
# The Message Batches API bills every token at half the price.
BATCH_DISCOUNT = Decimal("0.5")


def call_cost_usd(
    model: str,
    *,
    input_tokens: int,
    output_tokens: int,
    cache_read_tokens: int = 0,
    cache_write_tokens: int = 0,
    batch: bool = False,
) -> Decimal:
    """Cost of one call; an unknown model costs 0 rather than a guess."""
    prices = settings.JUDGE_PRICES.get(model)
    if not prices:
        return Decimal(0)
    total = (
        Decimal(str(prices["input"])) * input_tokens
        + Decimal(str(prices["output"])) * output_tokens
        + Decimal(str(prices["cache_read"])) * cache_read_tokens
        + Decimal(str(prices["cache_write"])) * cache_write_tokens
    ) / MILLION
    if batch:
        total *= BATCH_DISCOUNT
    return total.quantize(Decimal("0.000001"))
