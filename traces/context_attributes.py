"""The task's context (who the user is, which account) as an agent sends it in attributes.

Span-tree JSON and transcripts have a `context` object. OTLP exporters have only attributes,
so these are read into the same trace context, from the resource or the root span (the
root's win):

- `evalsite.context.<key>` = value: one key of the context, e.g. `evalsite.context.customer_id`;
- `evalsite.context` = a JSON object (or its text): several keys at once;
- `user.id` (OpenInference, Langfuse) and `enduser.id` (OpenTelemetry): the context's `user_id`.

The trajectory checks read values from the context as grounded (a hallucinated parameter is a
value found nowhere in the task, the context or earlier tool outputs), and reference
trajectories' `<from_context>` placeholders resolve against it.
"""

from __future__ import annotations

import json

CONTEXT_PREFIX = "evalsite.context."
CONTEXT_OBJECT = "evalsite.context"
USER_ID_ATTRIBUTES = ("user.id", "enduser.id")
# The context's key for the end user the agent served: the trace list filters on it.
USER_ID_KEY = "user_id"


def end_user_of(context) -> str:
    """The end user a context names, as text the way the trace list filters it ("" for none):
    a string as it is, a number or an object as JSON."""
    value = context.get(USER_ID_KEY) if isinstance(context, dict) else None
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value)


def _object(value) -> dict:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    return value if isinstance(value, dict) else {}


def context_from_attributes(*sources: dict | None) -> dict:
    """The context the attribute dicts carry; an earlier source wins a key a later one names."""
    context: dict = {}
    # Plain loops, no comprehension or generator a source: this runs for every trace stored.
    for attributes in reversed(sources):
        if not isinstance(attributes, dict):
            continue
        found = dict(_object(attributes.get(CONTEXT_OBJECT)))
        for key, value in attributes.items():
            # A slice compared, not startswith: its argument parsing cost more, once a key.
            if key[:_PREFIX_LENGTH] == CONTEXT_PREFIX and len(key) > _PREFIX_LENGTH:
                found[key[_PREFIX_LENGTH:]] = value
        for name in USER_ID_ATTRIBUTES:
            if attributes.get(name):
                found.setdefault(USER_ID_KEY, attributes[name])
                break
        context.update(found)
    return context


_PREFIX_LENGTH = len(CONTEXT_PREFIX)
