"""Values an agent derives from what it was told, rather than makes up: numbers written in
words, a date moved by a shift someone stated ("the next day", "two weeks later"), a sum,
difference or product of two numbers it saw, and a unit change by a common factor."""

from __future__ import annotations

import re
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation

UNITS = [
    *[
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
    ],
    *["thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"],
]
TENS = {
    word: 10 * (i + 2)
    for i, word in enumerate(
        ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    )
}
ORDINALS = {
    word: i + 1
    for i, word in enumerate(
        [
            *[
                "first",
                "second",
                "third",
                "fourth",
                "fifth",
                "sixth",
                "seventh",
                "eighth",
                "ninth",
                "tenth",
            ],
            *["eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth"],
            *["seventeenth", "eighteenth", "nineteenth"],
        ]
    )
}
TENS_ORDINALS = {"twentieth": 20, "thirtieth": 30}
_SMALL = "|".join(sorted([*UNITS, *ORDINALS], key=len, reverse=True))
NUMBER_WORDS = re.compile(
    rf"\b(?:(?P<tens>{'|'.join(TENS)})(?:[\s-]+(?P<unit>{_SMALL}))?|(?P<small>{_SMALL})"
    rf"|(?P<tens_ordinal>{'|'.join(TENS_ORDINALS)}))\b",
    re.IGNORECASE,
)
HUNDREDS = re.compile(r"\b(\d+) hundred(?:\s+and)?(?:\s+(\d{1,2})\b)?", re.IGNORECASE)
# Shifts of a date a person states: "the next day", "a week later", "3 days", "two weeks".
SHIFT_ONE_DAY = re.compile(
    r"\b(?:next|following|previous|prior)\s+day\b|\btomorrow\b|\byesterday\b"
    r"|\bday\s+(?:after|before)\b|\ba\s+day\b",
    re.IGNORECASE,
)
SHIFT_WEEK = re.compile(
    r"\b(?:a|next|following|another|previous|one)\s+week\b|\bfortnight\b", re.IGNORECASE
)
SHIFT_COUNT = re.compile(r"\b(\d{1,3})\s+(day|week)s?\b", re.IGNORECASE)
# Common unit changes: tens, hundreds (cents, percent), thousands (metres, grams), time.
UNIT_FACTORS = (Decimal(10), Decimal(100), Decimal(1000), Decimal(60), Decimal(3600), Decimal(24))
NUMBER_WITH_UNIT = re.compile(
    r"^\s*(?:[$€£]\s*)?(?P<n>[-+]?\d[\d,]*(?:\.\d+)?)\s*(?:[a-z%€£$]{1,12})?\s*$", re.IGNORECASE
)


def _word_number(match: re.Match) -> str:
    word = (match["small"] or "").lower()
    if match["tens_ordinal"]:
        return f"{TENS_ORDINALS[match['tens_ordinal'].lower()]}th"
    if match["tens"]:
        value = TENS[match["tens"].lower()]
        unit = (match["unit"] or "").lower()
        if unit in ORDINALS:
            return f"{value + ORDINALS[unit]}th"
        return str(value + (UNITS.index(unit) if unit else 0))
    if word in ORDINALS:
        return f"{ORDINALS[word]}th"
    return str(UNITS.index(word))


def words_to_digits(text: str) -> str:
    """The text with numbers written in words as digits ("twenty-four" -> 24, "fifth" ->
    5th, "two hundred and ten" -> 210); unchanged when there are none."""
    converted = NUMBER_WORDS.sub(_word_number, text)
    return HUNDREDS.sub(lambda m: str(int(m[1]) * 100 + int(m[2] or 0)), converted)


def stated_day_shifts(text: str) -> set[int]:
    """The numbers of days by which what was said moves a date."""
    text = words_to_digits(text)
    shifts = set()
    if SHIFT_ONE_DAY.search(text):
        shifts.add(1)
    if SHIFT_WEEK.search(text):
        shifts.add(7)
    if "fortnight" in text.lower():
        shifts.add(14)
    for count, unit in SHIFT_COUNT.findall(text):
        shifts.add(int(count) * (7 if unit.lower() == "week" else 1))
    shifts.discard(0)
    return shifts


def shifted_days(day: date, shifts: set[int]) -> list[str]:
    """The ISO days `day` may have been moved from by one of the stated shifts."""
    return [(day + timedelta(days=sign * s)).isoformat() for s in shifts for sign in (1, -1)]


def number_of(value: str) -> Decimal | None:
    """The number a value states, with a currency or unit beside it ("2500m", "£19.75")."""
    match = NUMBER_WITH_UNIT.match(value)
    if not match:
        return None
    try:
        return Decimal(match["n"].replace(",", "")).normalize()
    except InvalidOperation:
        return None


def derived_from(number: Decimal, seen: set[Decimal]) -> bool:
    """Whether `number` is a sum, difference or product of two seen numbers, or a seen number
    in another unit."""
    for a in seen:
        if a == 0:
            continue
        if number - a in seen or a - number in seen or number + a in seen:
            return True
        if (number / a).normalize() in seen:
            return True
        for factor in UNIT_FACTORS:
            if number == (a * factor).normalize() or number == (a / factor).normalize():
                return True
    return False
