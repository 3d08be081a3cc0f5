"""Where an argument's value may have come from: everything the agent was told or shown so
far, searched blind to case, separators, how a date is written and how a number is written."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

from evalsite_checks.derived import (
    derived_from,
    number_of,
    shifted_days,
    stated_day_shifts,
    words_to_digits,
)

MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
DAY_FORMS = (
    re.compile(r"^(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})"),
    re.compile(r"^(?P<y>\d{4})/(?P<m>\d{1,2})/(?P<d>\d{1,2})$"),
    re.compile(r"^(?P<d>\d{1,2})[/.](?P<m>\d{1,2})[/.](?P<y>\d{4})$"),
    re.compile(r"^(?P<m>\d{1,2})/(?P<d>\d{1,2})/(?P<y>\d{4})$"),
)
NUMBER = re.compile(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?")


def _days(value: str) -> set[tuple[int, int, int]]:
    """The calendar days a date-like value can mean (1/2/2026 is read both ways)."""
    found = set()
    for form in DAY_FORMS:
        match = form.match(value.strip())
        if match:
            year, month, day = int(match["y"]), int(match["m"]), int(match["d"])
            if 1 <= month <= 12 and 1 <= day <= 31:
                found.add((year, month, day))
    return found


def _date_spellings(value: str) -> list[re.Pattern]:
    """How a person or a system writes the value's day: "3rd of December", "Dec 3", "3 Dec",
    2026-12-03, 03/12/2026, 12/3/2026."""
    patterns = []
    for year, month, day in _days(value):
        name = MONTHS[month - 1]
        day_text = rf"0?{day}(st|nd|rd|th)?"
        patterns += [
            re.compile(rf"\b{day_text}\s+(of\s+)?{name}[a-z]*\b"),
            re.compile(rf"\b{name}[a-z]*\.?\s+{day_text}\b"),
            re.compile(rf"\b{year}-0?{month}-0?{day}\b"),
            re.compile(rf"\b0?{day}[/.]0?{month}[/.]{year}\b"),
            re.compile(rf"\b0?{month}/0?{day}/{year}\b"),
        ]
    return patterns


def _number(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", "")).normalize()
    except InvalidOperation:
        return None


NOT_ALNUM = re.compile(r"[^0-9a-z]+")


def _squash(text: str) -> str:
    return NOT_ALNUM.sub("", text.lower())


class Haystack:
    """Everything the agent was told or shown so far, searched blind to case, separators,
    how a date is written and how a number is written."""

    def __init__(self, *texts: str):
        self.text = ""
        self.squashed = ""
        # Model calls resend the whole conversation: each text is added once.
        self.added: set[str] = set()
        self.numbers: set[Decimal] = set()
        self.unparsed: list[str] = []
        for text in texts:
            self.add(text)

    def add(self, text: str) -> None:
        if not text or text in self.added:
            return
        self.added.add(text)
        # Numbers said in words are searched as digits too ("twenty-four" finds 24).
        digits = words_to_digits(text)
        if digits != text:
            text = f"{text}\n{digits}"
        self.text += "\n" + text.lower()
        self.squashed += "|" + _squash(text)
        self.unparsed.append(text)

    def derives(self, value: Any) -> bool:
        """Whether `value` is a simple function of what was seen: a seen date moved by a shift
        someone stated, or a seen number combined with another or changed in unit. Ids are
        copied, not computed: the caller asks this only of values that are not ids."""
        needle = str(value).strip()
        days = set()
        for year, month, day in _days(needle):
            try:
                days.add(date(year, month, day))
            except ValueError:
                continue
        if days:
            shifts = stated_day_shifts(self.text)
            return any(moved in self for d in days for moved in shifted_days(d, shifts))
        number = number_of(needle)
        if number is None:
            return False
        self.has_number("0")
        return number in self.numbers or derived_from(number, self.numbers)

    def has_number(self, needle: str) -> bool:
        # Numbers are read only when an argument is a number, which few are.
        for text in self.unparsed:
            self.numbers.update(n for n in map(_number, NUMBER.findall(text)) if n is not None)
        self.unparsed = []
        return _number(needle) in self.numbers

    def __contains__(self, value: Any) -> bool:
        needle = str(value).strip().lower()
        if needle in self.text:
            return True
        if NUMBER.fullmatch(needle.replace(",", "")) and self.has_number(needle):
            return True
        # A date the user wrote in words is not made up when the agent passes it as ISO.
        if any(pattern.search(self.text) for pattern in _date_spellings(needle)):
            return True
        squashed = _squash(needle)
        return bool(squashed) and squashed in self.squashed
