"""The two search languages of the trace list, parsed the same way on every database.

Content search (`search`): words that must all appear, "quoted phrases", `OR` between two
terms, and `-word` or `-"phrase"` to exclude, as in a web search box.

Attribute filters (`attr`): clauses `key op value`, where op is = != > >= < <=, the value a
number, a bare word or a "quoted string"; clauses are separated by `;`, `and` or spaces:
`gen_ai.usage.input_tokens > 1000; gen_ai.request.model = "gpt-4o"`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

MAX_SEARCH_CHARS = 500
MAX_CLAUSES = 10
# Longer attribute values are not stored for `key = value` (full-text search finds them).
MAX_VALUE_CHARS = 200

NUMERIC_OPERATORS = (">", ">=", "<", "<=")

_CLAUSE = re.compile(
    r"""\s*(?P<key>[A-Za-z_][\w.\-:/\[\]]*)
        \s*(?P<op>>=|<=|!=|=|>|<)
        \s*(?P<value>"(?:[^"\\]|\\.)*"|[^\s;"]+)
        \s*(?:;|\band\b)?""",
    re.VERBOSE | re.IGNORECASE,
)
_SEARCH_TOKEN = re.compile(r'(-?)"([^"]*)"?|(\S+)')


class SearchSyntaxError(ValueError):
    """Input the search languages cannot read; the message says what to write instead."""


@dataclass(frozen=True)
class AttributeClause:
    key: str
    op: str
    text: str
    number: float | None

    def __str__(self) -> str:
        return f"{self.key} {self.op} {self.text}"


@dataclass
class ContentQuery:
    """Terms that must match (each a list of alternatives joined by OR) and excluded phrases."""

    required: list[list[str]] = field(default_factory=list)
    excluded: list[str] = field(default_factory=list)

    @property
    def is_empty(self) -> bool:
        return not self.required and not self.excluded


def number_or_none(text: str) -> float | None:
    """The finite number a text reads as, else None (`nan` and `inf` are words here)."""
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def attribute_clauses_parse(text: str) -> list[AttributeClause]:
    """Parse `key op value` clauses, or raise SearchSyntaxError naming the first bad spot."""
    clauses: list[AttributeClause] = []
    position = 0
    text = text.strip()
    while position < len(text):
        match = _CLAUSE.match(text, position)
        if match is None or match.end() == position:
            rest = text[position:].strip()
            raise SearchSyntaxError(
                f"Cannot read “{rest[:40]}”: write key = value or key > number, "
                "e.g. gen_ai.usage.input_tokens > 1000; separate clauses with ;"
            )
        position = match.end()
        raw = match.group("value")
        value = raw[1:-1].replace('\\"', '"').replace("\\\\", "\\") if raw[0] == '"' else raw
        op = match.group("op")
        number = number_or_none(value)
        if op in NUMERIC_OPERATORS and number is None:
            raise SearchSyntaxError(f"{match.group('key')} {op} needs a number, not “{value}”.")
        if len(value) > MAX_VALUE_CHARS:
            raise SearchSyntaxError(f"A value is at most {MAX_VALUE_CHARS} characters.")
        clauses.append(AttributeClause(match.group("key"), op, value, number))
        while position < len(text) and text[position] in " ;":
            position += 1
    if len(clauses) > MAX_CLAUSES:
        raise SearchSyntaxError(f"At most {MAX_CLAUSES} attribute clauses.")
    return clauses


def content_query_parse(text: str) -> ContentQuery:
    """Split a search box's text into required terms (with OR alternatives) and exclusions."""
    if len(text) > MAX_SEARCH_CHARS:
        raise SearchSyntaxError(f"Search for at most {MAX_SEARCH_CHARS} characters.")
    query = ContentQuery()
    join_next = False
    for match in _SEARCH_TOKEN.finditer(text):
        negated, phrase, word = match.group(1), match.group(2), match.group(3)
        if word is not None and word.upper() == "OR" and query.required:
            join_next = True
            continue
        if word is not None and word.startswith("-") and len(word) > 1:
            negated, phrase = "-", word[1:]
        term = " ".join((phrase if phrase is not None else word or "").split())
        if not term:
            continue
        if negated:
            query.excluded.append(term)
        elif join_next:
            query.required[-1].append(term)
        else:
            query.required.append([term])
        join_next = False
    return query
