"""The first level of a span value, as the trace page shows it before the value is opened.

An object shows its first keys with each value cut short, a list its first items (a
conversation its last turns), text its opening; what is left out is counted. The whole value
loads on demand (views.span_body), so a page of thousands of spans stays small however big
their payloads are.
"""

import json
from dataclasses import dataclass

from traces.messages import Message, messages_read

FIRST_LEVEL_ENTRIES = 4
ENTRY_CHARS = 50
TEXT_CHARS = 200
# A turn of a conversation says more in a line than a key's value: role, text, calls.
TURN_CHARS = 160


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


def _argument_text(arguments) -> str:
    if (
        isinstance(arguments, list)
        and arguments
        and all(isinstance(block, dict) and block.get("type") == "text" for block in arguments)
    ):
        return " ".join(str(block.get("text", "")) for block in arguments)  # text blocks
    if isinstance(arguments, dict):
        return ", ".join(
            f"{key}: {value if isinstance(value, str) else json.dumps(value, default=str)}"
            for key, value in arguments.items()
        )
    if arguments is None:
        return ""
    return arguments if isinstance(arguments, str) else json.dumps(arguments, default=str)


def _turn_text(message: Message) -> str:
    parts = [message.text] if message.text else []
    parts += [f"→ {call.name}({_argument_text(call.arguments)})" for call in message.tool_calls]
    for result in message.tool_results:
        label = "error" if result.is_error else "result"
        parts.append(f"← {label}: {_argument_text(result.content)}")
    return " ".join(parts)


def messages_first_level(value) -> FirstLevel | None:
    """A model call's messages as its last turns, each "role: text → tool(arguments)";
    None when the value holds no messages (then value_first_level shows it)."""
    messages = messages_read(value)
    if not messages:
        return None
    turns = [(m.role, _turn_text(m)) for m in messages]
    turns = [(role, text) for role, text in turns if text]
    if not turns:
        return None
    shown = turns[-FIRST_LEVEL_ENTRIES:]
    entries, any_cut = [], False
    for role, text in shown:
        short, cut = _flat(text, TURN_CHARS)
        entries.append((role, short))
        any_cut = any_cut or cut
    more = len(turns) - len(shown)
    return FirstLevel(tuple(entries), more, any_cut, more_are_earlier=bool(more))
