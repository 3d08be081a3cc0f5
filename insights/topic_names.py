"""Topic names from the judge model: a short name per new or changed topic, else its top terms.

A build asks the default judge config's provider (judges.providers.plain_call, the simulated
judge included) once per topic whose terms no topic of the previous build had; a topic with
the same terms keeps that topic's name, so a rebuild of a steady project asks nothing. The
first failed call stops the asking for the build: the rest keep their top-terms names and the
build records why. The reply is untrusted text: it is cut to NAME_MAX_CHARS of printable
characters and escaped wherever it is shown.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass

from django.conf import settings

logger = logging.getLogger(__name__)

NAME_MARKER = "Name this group of agent traces."
NAME_MAX_CHARS = 60
EXAMPLE_CHARS = 300
EXAMPLES_SHOWN = 3
SYSTEM_PROMPT = (
    f"{NAME_MARKER} The traces were grouped by what they are about and how they went. "
    "From the group's top terms and example traces, give it a short name a support lead would "
    "recognise, at most six words, saying what the agent did and, if the group fails, how. "
    'Answer only with JSON: {"name": "..."}'
)
CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


class NameSource:
    TERMS = "terms"
    JUDGE = "judge"


@dataclass
class NamingResult:
    names: dict[int, str]  # topic number -> judge's name (the others keep their terms' name)
    asked: int = 0
    reused: int = 0
    error: str = ""


def name_clean(text: str) -> str:
    """A reply as a name: one line of printable characters, at most NAME_MAX_CHARS."""
    text = CONTROL.sub(" ", str(text or ""))
    text = " ".join(text.split()).strip(" \"'`.")
    if len(text) > NAME_MAX_CHARS:
        text = text[: NAME_MAX_CHARS - 1].rstrip() + "…"
    return text


def naming_prompt(terms: list[str], labels: list[str], examples: list[tuple[str, str]]) -> str:
    lines = [
        "Top terms: " + ", ".join(terms),
        "Read as: " + ", ".join(labels),
        "Examples:",
    ]
    for task, answer in examples[:EXAMPLES_SHOWN]:
        lines.append(f"- task: {task[:EXAMPLE_CHARS]}")
        lines.append(f"  final answer: {answer[:EXAMPLE_CHARS]}")
    return "\n".join(lines)


def name_from_reply(text: str) -> str:
    """The name in the judge's JSON reply (or its first line when it answered in prose)."""
    start, end = text.find("{"), text.rfind("}")
    if start != -1 and end > start:
        try:
            value = json.loads(text[start : end + 1])
        except ValueError:
            value = None
        if isinstance(value, dict) and isinstance(value.get("name"), str):
            return name_clean(value["name"])
    return name_clean(text.strip().splitlines()[0] if text.strip() else "")


def terms_key(terms: list[str]) -> tuple[str, ...]:
    return tuple(sorted(terms))


def topics_name(
    wanted: dict[int, dict], known: dict[tuple[str, ...], str], *, ask: bool | None = None
) -> NamingResult:
    """Names for topics (number -> {"terms", "labels", "examples"}): the known judge name of a
    topic with the same terms, else one call each while calls succeed."""
    from judges.providers.errors import ProviderError

    ask = settings.TOPICS_NAMES_FROM_JUDGE if ask is None else ask
    result = NamingResult(names={})
    if not ask:
        result.error = "naming by the judge is off (TOPICS_NAMES_FROM_JUDGE)"
        return result
    for number, topic in sorted(wanted.items()):
        same = known.get(terms_key(topic["terms"]))
        if same:
            result.names[number] = same
            result.reused += 1
            continue
        if result.error:
            continue
        try:
            name = _judge_name(topic)
        except (ProviderError, OSError) as exc:
            kind = exc.kind if isinstance(exc, ProviderError) else type(exc).__name__
            result.error = f"the judge could not be asked: {kind}"
            logger.warning("topic naming failed: %s", exc)
            continue
        result.asked += 1
        if name:
            result.names[number] = name
    return result


def _judge_name(topic: dict) -> str:
    from judges.providers import plain_call  # the SDK loads only when a name is asked

    user = naming_prompt(topic["terms"], topic["labels"], topic["examples"])
    return name_from_reply(plain_call(SYSTEM_PROMPT, user, max_tokens=60).text)
