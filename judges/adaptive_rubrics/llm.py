"""One plain judge call (no trace fencing of a rubric) for classification and generation."""

from judges.models import JudgeConfig
from judges.parsing import ReplyError, json_object


class JudgeReplyError(ValueError):
    """The judge's reply is not the JSON object that was asked for."""


def judge_ask(system: str, user: str, config: JudgeConfig | None = None, max_tokens=1500) -> dict:
    """Send one prompt through the configured provider; returns the JSON object it answered."""
    from judges.providers import plain_call  # the SDK loads only when a prompt is sent

    text = plain_call(system, user, max_tokens=max_tokens, config=config).text
    try:
        return json_object(text)
    except ReplyError as exc:
        raise JudgeReplyError(f"{exc}: {text.strip()[:200]!r}") from exc
