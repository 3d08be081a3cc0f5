"""What a final answer says about the work: whether it admits a problem or asks the user
something, and whether it claims what a given tool call was for."""

from __future__ import annotations

import re
from typing import Any

from evalsite_checks.haystack import Haystack
from evalsite_checks.steps import ToolStep, leaf_values

# Words that show the answer admits a problem instead of claiming success.
HEDGES = re.compile(
    r"\b(sorry|unable|couldn'?t|could not|can'?t|cannot|not able|failed|fail|unfortunately|"
    r"error|try again|no results|not found|wasn'?t able|unavailable|don'?t have|did not|"
    r"didn'?t|no matching|apolog\w*|"
    # An empty lookup reported plainly: "I found no recent order", "there are no orders".
    r"found no|find no|there (?:is|are|was|were) no|no \w+(?: \w+)? (?:was|were) found|"
    r"nothing (?:was )?found|none (?:was|were) found|no records?|came back empty)\b",
    re.IGNORECASE,
)


def answer_admits(answer: str) -> bool:
    """The answer says something went wrong."""
    return bool(HEDGES.search(answer))


def answer_admits_or_asks(answer: str) -> bool:
    """The answer says something went wrong, or hands a question back to the user."""
    return answer_admits(answer) or "?" in answer


def tool_verb(tool: str) -> str:
    """The first word of a tool's name: `cancel` for cancel_order and cancelOrder."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", tool)
    words = [w for w in re.split(r"[^a-zA-Z]+", spaced.lower()) if w]
    return words[0] if words else ""


def _claimable(value: Any) -> bool:
    # Short words and flags ("en", true) say nothing about which call an answer speaks of.
    return not isinstance(value, bool) and len(str(value).strip()) >= 3


def answer_claims(answer: str, step: ToolStep, writes: bool) -> bool:
    """Whether the answer speaks of what `step` was for: it names one of the call's argument
    values, or, for a write, uses the write's verb ("cancelled" for cancel_order)."""
    said = Haystack(answer)
    if any(_claimable(v) and v in said for _k, v in leaf_values(step.inputs)):
        return True
    verb = tool_verb(step.tool)
    stem = verb[:-1] if verb.endswith("e") and len(verb) > 4 else verb
    return writes and len(stem) >= 3 and bool(re.search(rf"\b{stem}", answer, re.IGNORECASE))
