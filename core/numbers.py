"""Numbers as people read them: $0.046, 1.2k, 0.143, 2. Pages and chart labels share these."""

from decimal import Decimal


def _float(value) -> float | None:
    if value is None or value == "":
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def usd_label(value) -> str:
    """Dollars: two significant digits under a dime, cents above, no cents past $1,000."""
    amount = _float(value)
    if amount is None:
        return "—"
    sign, amount = ("-" if amount < 0 else ""), abs(amount)
    if amount == 0:
        return "$0"
    if amount >= 1000:
        return f"{sign}${amount:,.0f}"
    if amount >= 0.1:
        return f"{sign}${amount:,.2f}"
    return f"{sign}${_significant(amount, 2)}"


def count_label(value) -> str:
    """Counts: 950, 1.2k, 34k, 1.2M."""
    number = _float(value)
    if number is None:
        return "—"
    sign, number = ("-" if number < 0 else ""), abs(number)
    for limit, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if number >= limit:
            scaled = number / limit
            text = f"{scaled:.1f}".rstrip("0").rstrip(".") if scaled < 10 else f"{scaled:.0f}"
            return f"{sign}{text}{suffix}"
    return f"{sign}{number:.0f}"


def number_label(value, digits: int = 3) -> str:
    """A plain measure: at most `digits` decimals, no trailing zeros (0.143, 2, -0.05)."""
    number = _float(value)
    if number is None:
        return "—"
    text = f"{number:.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _significant(amount: float, digits: int) -> str:
    text = f"{Decimal(str(amount)):.{digits}g}"
    if "e" in text.lower():
        text = f"{float(text):.{digits + 6}f}".rstrip("0")
    return text
