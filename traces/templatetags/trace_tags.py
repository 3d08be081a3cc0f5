"""Template helpers for trace pages. The span tree is built in Python: a 2,000-span trace must
render in well under half a second, which Django's template engine cannot do node by node.
Every untrusted value goes through html.escape."""

import html

from django import template
from django.utils.safestring import SafeString

from traces.conversation_html import conversation_html
from traces.models import SpanKind
from traces.selectors import FoldedText, SpanNode, span_nodes_rows, value_as_text

register = template.Library()


@register.filter
def span_rows(nodes):
    """Pre-order rows of a nested span tree (see traces.selectors.span_nodes_rows)."""
    return span_nodes_rows(nodes or [])


@register.filter
def duration_label(ms) -> str:
    """A duration in ms as people read it: 850 ms, 2.4 s, 3 min 5 s."""
    if ms is None:
        return ""
    if ms < 1000:
        return f"{ms} ms"
    if ms < 60_000:
        return f"{ms / 1000:.1f} s"
    minutes, seconds = divmod(int(ms / 1000), 60)
    return f"{minutes} min {seconds} s"


def _esc(value) -> str:
    # Same escaping as Django's escape(), without its lazy-string wrapper (hot loop).
    return html.escape(str(value), quote=True)


def _io_html(label: str, text: FoldedText) -> str:
    if not text.text:
        return ""
    if text.is_long:
        body = (
            f'<details class="fold"><summary><code>{_esc(text.preview)}</code></summary>'
            f'<pre class="json">{_esc(text.text)}</pre></details>'
        )
    else:
        body = f'<pre class="json">{_esc(text.text)}</pre>'
    return f'<div class="span-io"><span class="io-label">{label}</span>{body}</div>'


def _content_html(label: str, value, text: FoldedText, kind: str) -> str:
    """Messages read as a conversation (the raw value folded below it), else the value."""
    turns = "" if kind == SpanKind.TOOL else conversation_html(label, value)
    if not turns:
        return _io_html(label, text)
    return (
        f'{turns}<details class="fold span-raw"><summary>{label} as sent</summary>'
        f'<pre class="json">{_esc(text.text)}</pre></details>'
    )


def _node_html(node: SpanNode, highlight: set) -> str:
    span = node.span
    classes = f"span-node kind-{_esc(span.kind)}"
    if node.is_error:
        classes += " is-error"
    if node.span_id in highlight:
        classes += " is-highlighted"
    parts = [
        f'<span class="badge kind">{_esc(span.get_kind_display())}</span>',
        f'<span class="span-name">{_esc(span.name)}</span>',
    ]
    if span.tool_name and span.tool_name != span.name:
        parts.append(f'<span class="muted">tool {_esc(span.tool_name)}</span>')
    if span.model:
        parts.append(f'<span class="muted">{_esc(span.model)}</span>')
    if span.duration_ms is not None:
        parts.append(f'<span class="span-duration">{duration_label(span.duration_ms)}</span>')
    if node.tokens:
        parts.append(
            '<span class="span-tokens" title="input / output tokens">'
            f"{int(span.input_tokens)}↑ {int(span.output_tokens)}↓ tok</span>"
        )
    if node.is_error:
        parts.append('<span class="badge bad">error</span>')
    body = ""
    if node.is_error and span.error_message:
        body += f'<p class="error span-error">{_esc(span.error_message)}</p>'
    body += _content_html("Input", span.input, node.input, span.kind)
    body += _content_html("Output", span.output, node.output, span.kind)
    if span.attributes:
        # Every attribute the sender set is kept; folded, since most are bookkeeping.
        body += (
            f'<details class="fold span-attributes"><summary>Attributes '
            f"({len(span.attributes)})</summary>"
            f'<pre class="json">{_esc(value_as_text(span.attributes))}</pre></details>'
        )
    span_id = _esc(node.span_id)
    head = " ".join(parts)
    return (
        f'<li class="{classes}" id="span-{span_id}" data-span-id="{span_id}" role="treeitem">'
        f'<details class="span-fold" open><summary class="span-head">{head}'
        f'</summary><div class="span-body">{body}</div>'
    )


@register.simple_tag
def span_tree(nodes, highlight_span_ids=None) -> SafeString:
    """The collapsible span tree as nested <ul>/<details>; escaped throughout."""
    highlight = set(highlight_span_ids or ())
    out = ['<ul class="span-tree" role="tree">']
    rows = span_nodes_rows(nodes or [])
    for row in rows:
        out.append(_node_html(row.node, highlight))
        out.append(
            '<ul class="span-children" role="group">' if row.has_children else "</details></li>"
        )
        out.extend("</ul></details></li>" for _ in row.closes)
    if not rows:
        out.append('<li class="muted">No spans.</li>')
    out.append("</ul>")
    # Every trace value above went through _esc; the rest are literals of this module.
    return SafeString("\n".join(out))
