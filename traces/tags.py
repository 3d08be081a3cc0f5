"""Trace tags: what an agent labels its runs with (`production`, `experiment-b`, `checkout`).

Read from OpenInference's `tag.tags` and Langfuse's `langfuse.trace.tags` (a list of strings,
on any span) and a span tree's or transcript's `tags`; a trace's tags are the union over all
its spans, as Langfuse aggregates them, in whatever requests they came. A tag is kept as sent,
trimmed; a value that is not a tag (empty, longer than a tag may be, not text) stays in its
span's attributes and is not listed.
"""

from __future__ import annotations

import json

from core.distinct_sql import values_distinct
from traces.models import TraceTag

MAX_TAG_CHARS = TraceTag._meta.get_field("name").max_length
# Tags one trace lists; more stay in the spans' attributes.
MAX_TAGS = 50
# Tags the trace list's tag field offers as you type.
KNOWN_TAGS_OFFERED = 200


def tags_read(value) -> list[str]:
    """The tags in an attribute or payload value: a list, its JSON text, or one tag."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except ValueError:
                value = [text]
        else:
            value = [text]
    if not isinstance(value, list | tuple):
        return []
    tags = []
    for item in value:
        if isinstance(item, str) and 0 < len(item.strip()) <= MAX_TAG_CHARS:
            tags.append(item.strip())
    return tags


def tags_union(*groups: list[str]) -> list[str]:
    """The tags of several sources, each once, in order, up to MAX_TAGS."""
    return list(dict.fromkeys(tag for group in groups for tag in group))[:MAX_TAGS]


def trace_tags_add(pairs: list[tuple[int, str]]) -> None:
    """Tag these traces ((trace id, tag) pairs); tags a trace has already are left alone."""
    if pairs:
        TraceTag.objects.bulk_create(
            [TraceTag(trace_id=trace_id, name=name) for trace_id, name in pairs],
            ignore_conflicts=True,
        )


def tags_known() -> list[str]:
    """The tags traces carry, in order, for the tag filter to offer (trace_tag_name leads with
    the name, so this reads one index entry a tag)."""
    return values_distinct(TraceTag, "name", KNOWN_TAGS_OFFERED)
