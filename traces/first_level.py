"""The first level of a span value, as the trace page shows it before the value is opened.

An object shows its first keys with each value cut short, a list its first items (a
conversation its last turns), text its opening; what is left out is counted. The whole value
loads on demand (views.span_body), so a page of thousands of spans stays small however big
their payloads are.
"""

import json
from dataclasses import dataclass

FIRST_LEVEL_ENTRIES = 4
ENTRY_CHARS = 50
TEXT_CHARS = 200


@dataclass(frozen=True)
class FirstLevel:
    """Entries (key or None, short text) and how many entries were left out."""

    entries: tuple[tuple[str | None, str], ...]
    more: int = 0
    cut: bool = False  # some entry was shortened
    more_are_earlier: bool = False  # a conversation leaves out its first turns, not its last

    @property
    def is_empty(self) -> bool:
        return not self.entries


def _flat(text: str, limit: int) -> tuple[str, bool]:
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat, False
    return flat[: limit - 1] + "…", True


def _short(value, limit: int) -> tuple[str, bool]:
    if isinstance(value, str):
        return _flat(value, limit)
    if isinstance(value, dict) and isinstance(value.get("content"), str) and "role" in value:
        # A chat message reads as "role: text".
        return _flat(f"{value['role']}: {value['content']}", limit)
    if isinstance(value, dict) and len(value) > 3:
        return f"{{{len(value)} keys}}", True
    if isinstance(value, list) and len(value) > 3:
        return f"[{len(value)} items]", True
    return _flat(json.dumps(value, ensure_ascii=False, default=str), limit)


def _is_conversation(value: list) -> bool:
    return all(isinstance(item, dict) and "role" in item for item in value[:2])


def value_first_level(value) -> FirstLevel:
    """The first level of a JSON value: up to FIRST_LEVEL_ENTRIES entries, each cut short."""
    if value is None or value == "" or value == {} or value == []:
        return FirstLevel(())
    if isinstance(value, dict):
        items = [(str(key), item) for key, item in list(value.items())[:FIRST_LEVEL_ENTRIES]]
        total = len(value)
    elif isinstance(value, list):
        # A conversation's latest turns say more than its system prompt, sent on every call.
        first = len(value) - FIRST_LEVEL_ENTRIES if _is_conversation(value) else 0
        first = max(first, 0)
        items = [
            (str(first + i), item) for i, item in enumerate(value[first:][:FIRST_LEVEL_ENTRIES])
        ]
        total = len(value)
    else:
        text, cut = _short(value, TEXT_CHARS)
        return FirstLevel(((None, text),), cut=cut)
    entries, any_cut = [], False
    for key, item in items:
        text, cut = _short(item, ENTRY_CHARS)
        entries.append((key, text))
        any_cut = any_cut or cut
    earlier = isinstance(value, list) and bool(items) and items[0][0] != "0"
    return FirstLevel(tuple(entries), total - len(items), any_cut, more_are_earlier=earlier)
