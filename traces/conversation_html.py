"""A span's messages shown as a conversation: each turn with its role, tool calls as calls and
tool results as results, in order. Everything from the trace goes through html.escape."""

from __future__ import annotations

import html
import json

from traces.messages import Message, messages_read

ROLE_LABELS = {"system": "System", "user": "User", "assistant": "Assistant", "tool": "Tool"}
# A conversation longer than this shows its last turns and folds the earlier ones.
OPEN_TURNS = 12
ARGUMENT_CHARS = 2_000


def _esc(value) -> str:
    return html.escape(str(value), quote=True)


def _compact(value) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= ARGUMENT_CHARS else text[:ARGUMENT_CHARS] + "…"


def _turn_html(message: Message) -> str:
    role = message.role if message.role in ROLE_LABELS else "other"
    body = []
    if message.text:
        body.append(f'<div class="turn-text">{_esc(message.text)}</div>')
    for call in message.tool_calls:
        call_id = f' <span class="muted">{_esc(call.id)}</span>' if call.id else ""
        body.append(
            f'<div class="turn-call">→ <code>{_esc(call.name)}({_esc(_compact(call.arguments))})'
            f"</code>{call_id}</div>"
        )
    for result in message.tool_results:
        label = "error" if result.is_error else "result"
        call_id = f' <span class="muted">{_esc(result.id)}</span>' if result.id else ""
        body.append(
            f'<div class="turn-result is-{label}">← {label}{call_id}: '
            f"<code>{_esc(_compact(result.content))}</code></div>"
        )
    if not body:
        return ""
    return (
        f'<li class="turn role-{role}"><span class="turn-role">'
        f"{ROLE_LABELS.get(message.role, _esc(message.role))}</span>{''.join(body)}</li>"
    )


def conversation_html(label: str, value) -> str:
    """The value's messages as an ordered list of turns; "" when it holds no messages."""
    if not isinstance(value, list | dict | str) or not value:
        return ""
    messages = messages_read(value)
    if not messages:
        return ""
    turns = [html_turn for html_turn in map(_turn_html, messages) if html_turn]
    if not turns:
        return ""
    shown = f'<ol class="conversation">{"".join(turns[-OPEN_TURNS:])}</ol>'
    if len(turns) > OPEN_TURNS:
        earlier = turns[:-OPEN_TURNS]
        shown = (
            f'<details class="fold"><summary>{len(earlier)} earlier messages</summary>'
            f'<ol class="conversation">{"".join(earlier)}</ol></details>' + shown
        )
    return (
        f'<div class="span-io span-conversation"><span class="io-label">{_esc(label)} '
        f"({len(messages)} message{'' if len(messages) == 1 else 's'})</span>{shown}</div>"
    )
