"""Which user text is a trace's task, when no explicit field names it.

The task is the first user message given to the agent, except a worked demonstration: agent
templates (SWE-agent's, for one) open with "Here is a demonstration of how to correctly
accomplish this task ..." as a user message and give the real task in the next one. A
demonstration is skipped; if every user message is one, the first is the task after all.

An agent states its task outright with the `agent.task` span attribute (or a payload's `task`),
which always wins over anything read here (docs/trace-task.md).
"""

from __future__ import annotations

import re

from traces.messages import messages_read, python_literal_maybe, readable_text

# A demonstration announces itself in its opening lines.
DEMONSTRATION_OPENINGS = re.compile(
    r"\s*(?:here is|here's|below is|the following is) (?:a|an) (?:demonstration|worked example|"
    r"example trajectory)\b|\s*-{2,}\s*demonstration\s*-{2,}",
    re.IGNORECASE,
)


def is_demonstration(text: str) -> bool:
    return DEMONSTRATION_OPENINGS.match(text[:300]) is not None


def first_task_text(texts) -> str:
    """The first non-empty text that is not a demonstration, else the first non-empty one."""
    first = ""
    for text in texts:
        text = (text or "").strip()
        if not text:
            continue
        if not is_demonstration(text):
            return text
        first = first or text
    return first


def task_text(value) -> str:
    """The task a value states: its first user message that is not a demonstration, or the
    value's own text (traces.messages.readable_text)."""
    value = python_literal_maybe(value)
    messages = messages_read(value)
    if messages:
        found = first_task_text(m.text for m in messages if m.role == "user")
        if found:
            return found
    return readable_text(value, role="user")
