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
# A value longer than this is cut on the page, with a link to download it whole: a 15 MiB
# attribute must not become a 30 MB page.
CUT_CHARS = 20_000


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


def _raw_url(span, field: str) -> str:
    return f"/traces/{span.trace_id}/spans/{span.pk}/raw/{field}/"


def _pre(text: str, raw_url: str) -> str:
    """The value in a <pre>, cut past CUT_CHARS with a link to the whole of it."""
    if len(text) <= CUT_CHARS:
        return f'<pre class="json">{_esc(text)}</pre>'
    more = len(text) - CUT_CHARS
    return (
        f'<pre class="json">{_esc(text[:CUT_CHARS])}</pre><p class="muted value-cut">Cut here: '
        f'{more:,} more characters. <a href="{_esc(raw_url)}" download>Download the whole '
        "value</a> (JSON).</p>"
    )


def _io_html(label: str, text: FoldedText, raw_url: str) -> str:
    if not text.text:
        return ""
    if text.is_long:
        body = (
            f'<details class="fold"><summary><code>{_esc(text.preview)}</code></summary>'
            f"{_pre(text.text, raw_url)}</details>"
        )
    else:
        body = _pre(text.text, raw_url)
    return f'<div class="span-io"><span class="io-label">{label}</span>{body}</div>'


def _content_html(label: str, value, text: FoldedText, kind: str, raw_url: str) -> str:
    """Messages read as a conversation (the raw value folded below it), else the value."""
    readable = kind != SpanKind.TOOL and len(text.text) <= CUT_CHARS
    turns = conversation_html(label, value) if readable else ""
    if not turns:
        return _io_html(label, text, raw_url)
    return (
        f'{turns}<details class="fold span-raw"><summary>{label} as sent</summary>'
        f"{_pre(text.text, raw_url)}</details>"
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
    body += _content_html("Input", span.input, node.input, span.kind, _raw_url(span, "input"))
    body += _content_html("Output", span.output, node.output, span.kind, _raw_url(span, "output"))
    if span.attributes:
        # Every attribute the sender set is kept; folded, since most are bookkeeping.
        attributes = _pre(value_as_text(span.attributes), _raw_url(span, "attributes"))
        body += (
            f'<details class="fold span-attributes"><summary>Attributes '
            f"({len(span.attributes)})</summary>{attributes}</details>"
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
