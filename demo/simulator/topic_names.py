"""The simulated judge names a group of traces: from the top terms it is given, a plausible
short name (what the agent did, and how it failed if a failure signal is among the terms)."""

import json
import re

# The prompt's first words (insights.topic_names); a copy, as the simulator stands alone.
NAME_MARKER = "Name this group of agent traces."
TERMS_LINE = re.compile(r"^Top terms:\s*(.+)$", re.MULTILINE)
# Failure signals in the order a name prefers them, and how it says them.
FAILURE_WORDS = {
    "flag": "red flag: {value}",
    "error": "{value} errors",
    "stop": "stopped at {value}",
    "verdict": "judged {value}",
    "repeat": "repeated {value}",
    "feedback": "thumbs {value}",
}


def _words(value: str) -> str:
    return value.replace("_", " ").replace(">", " then ").strip()


def topic_name_guess(user_text: str) -> str:
    """A JSON reply {"name": ...}: the first step or tool as the action, the first failure
    signal as its outcome, else the task type."""
    match = TERMS_LINE.search(user_text)
    terms = [term.strip() for term in match.group(1).split(",")] if match else []
    action = kind_of_task = ""
    failures: dict[str, str] = {}
    for term in terms:
        kind, _, value = term.partition(":")
        if not value:
            continue
        if kind in ("step", "tool", "first") and not action:
            action = _words(value)
        elif kind in FAILURE_WORDS and value not in ("pass", "up"):
            failures.setdefault(kind, FAILURE_WORDS[kind].format(value=_words(value)))
        elif kind == "type" and not kind_of_task:
            kind_of_task = _words(value)
    outcome = next((failures[kind] for kind in FAILURE_WORDS if kind in failures), "")
    words = [term for term in terms if ":" not in term]
    name = action or kind_of_task or (" ".join(words[:3]) if words else "mixed traces")
    name = name[:1].upper() + name[1:]
    if outcome:
        name = f"{name}, {outcome}"
    elif kind_of_task and action:
        name = f"{name} ({kind_of_task})"
    return json.dumps({"name": name})
