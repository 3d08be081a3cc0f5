"""One plain judge call (no trace fencing of a rubric) for classification and generation."""

import json
import re

from judges.models import JudgeConfig


class JudgeReplyError(ValueError):
    """The judge's reply is not the JSON object that was asked for."""


def judge_ask(system: str, user: str, config: JudgeConfig | None = None, max_tokens=1500) -> dict:
    """Send one prompt through the configured provider; returns the JSON object it answered."""
    from judges.providers import plain_call  # the SDK loads only when a prompt is sent

    text = plain_call(system, user, max_tokens=max_tokens, config=config).text.strip()
    text = re.sub(r"^```\w*\s*|\s*```$", "", text)
    start, end = text.find("{"), text.rfind("}")
    if start == -1 or end < start:
        raise JudgeReplyError(f"no JSON object in the reply: {text[:200]!r}")
    try:
        value = json.loads(text[start : end + 1])
    except ValueError as exc:
        raise JudgeReplyError(f"invalid JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise JudgeReplyError("the reply JSON is not an object")
    return value
