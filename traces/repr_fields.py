"""The top-level `key=value` parts of an object's repr, brackets and quotes kept whole: how
a framework's objects written as their repr (or a pydantic model's str()) are taken apart
without running any code."""

from __future__ import annotations

import re

_BRACKETS = {"(": ")", "[": "]", "{": "}", "<": ">"}
_KEY = re.compile(r"\w+=")


def repr_fields(body: str, spaced: bool = False) -> list[str]:
    """The top-level `key=value` parts of a repr's argument list, up to its closing bracket
    (or the end of a repr cut short); `spaced`: of a pydantic model's str(), `a='x' b=[...]`."""
    parts, start, closing, quote, index = [], 0, [], "", 0
    while index < len(body):
        char = body[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in _BRACKETS:
            closing.append(_BRACKETS[char])
        elif closing and char == closing[-1]:
            closing.pop()
        elif closing:
            pass
        elif spaced and char == " " and _KEY.match(body, index + 1):
            parts.append(body[start:index])
            start = index + 1
        elif not spaced and char in "),":
            parts.append(body[start:index].strip())
            if char == ")":
                return parts
            start = index + 1
        index += 1
    return parts + [body[start:]] if spaced else parts  # a repr cut short: last part unfinished
