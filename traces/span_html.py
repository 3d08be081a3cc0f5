"""HTML of the span tree, built in Python: a thousand-span window must render in a few tens of
milliseconds, which Django's template engine cannot do node by node. Every untrusted value goes
through html.escape; the rest are literals of this module.

The tree shows each span's head and the first level of its input and output; the whole of a
span (conversation view, raw values, attributes) is a fragment loaded when asked for.
"""

import html

from django.urls import reverse
from django.utils.http import urlencode

from traces.conversation_html import conversation_html
from traces.first_level import FirstLevel, messages_first_level, value_first_level
from traces.masking.marks import masks_marked
from traces.models import Span, SpanKind
from traces.selectors import FoldedText, SpanNode, value_as_text
from traces.span_window import Close, More, Open

# A value longer than this is cut on the page, with a link to download it whole: a 15 MiB
# attribute must not become a 30 MB page.
CUT_CHARS = 20_000
ERROR_HEAD_CHARS = 300


def esc(value) -> str:
    # Same escaping as Django's escape(), without its lazy-string wrapper (hot loop).
    return html.escape(str(value), quote=True)


def esc_text(value) -> str:
    """Escaping for text between tags, where quotes are plain characters: JSON previews
    stay a third shorter than with &quot;. Never for attribute values."""
    return html.escape(str(value), quote=False)


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


# --- the whole of one span (the fragment behind "Full input, output and attributes")


def _raw_url(span: Span, field: str) -> str:
    return f"/traces/{span.trace_id}/spans/{span.pk}/raw/{field}/"


def _pre(text: str, raw_url: str) -> str:
    """The value in a <pre>, cut past CUT_CHARS with a link to the whole of it."""
    if len(text) <= CUT_CHARS:
        return f'<pre class="json">{esc(text)}</pre>'
    more = len(text) - CUT_CHARS
    return (
        f'<pre class="json">{esc(text[:CUT_CHARS])}</pre><p class="muted value-cut">Cut here: '
        f'{more:,} more characters. <a href="{esc(raw_url)}" download>Download the whole '
        "value</a> (JSON).</p>"
    )


def _io_html(label: str, text: FoldedText, raw_url: str) -> str:
    if not text.text:
        return ""
    if text.is_long:
        body = (
            f'<details class="fold"><summary><code>{esc(text.preview)}</code></summary>'
            f"{_pre(text.text, raw_url)}</details>"
        )
    else:
        body = _pre(text.text, raw_url)
    return f'<div class="span-io"><span class="io-label">{label}</span>{body}</div>'


def _content_html(label: str, value, kind: str, raw_url: str) -> str:
    """Messages read as a conversation (the raw value folded below it), else the value."""
    text = FoldedText(value_as_text(value))
    readable = kind != SpanKind.TOOL and len(text.text) <= CUT_CHARS
    turns = conversation_html(label, value) if readable else ""
    if not turns:
        return _io_html(label, text, raw_url)
    return (
        f'{turns}<details class="fold span-raw"><summary>{label} as sent</summary>'
        f"{_pre(text.text, raw_url)}</details>"
    )


def span_full_html(span: Span) -> str:
    """Everything one span holds: error, input and output (as a conversation where they read
    as one), attributes; values past CUT_CHARS are cut with a download link."""
    body = ""
    if span.error_message:
        body += f'<p class="error span-error">{esc(span.error_message[:CUT_CHARS])}</p>'
    body += _content_html("Input", span.input, span.kind, _raw_url(span, "input"))
    body += _content_html("Output", span.output, span.kind, _raw_url(span, "output"))
    if span.attributes:
        # Every attribute the sender set is kept; folded, since most are bookkeeping.
        attributes = _pre(value_as_text(span.attributes), _raw_url(span, "attributes"))
        body += (
            f'<details class="fold span-attributes"><summary>Attributes '
            f"({len(span.attributes)})</summary>{attributes}</details>"
        )
    return (
        masks_marked(body) or '<p class="muted">This span holds no input, output or attributes.</p>'
    )


# --- the tree: heads and first levels


def _first_level_html(label: str, first: FirstLevel) -> str:
    if first.is_empty:
        return ""
    parts = [
        f'<span class="k">{esc_text(key)}</span> {esc_text(text)}'
        if key is not None
        else esc_text(text)
        for key, text in first.entries
    ]
    if first.more and first.more_are_earlier:
        parts.insert(0, f'<span class="muted">{first.more} earlier</span>')
    elif first.more:
        parts.append(f'<span class="muted">{first.more} more</span>')
    return (
        f'<div class="span-io"><span class="io-label">{label}</span> '
        f'<span class="first-level">{" · ".join(parts)}</span></div>'
    )


def span_first_levels(spans: list[Span]) -> dict[int, tuple[FirstLevel, FirstLevel]]:
    """First levels of input and output for the spans a window renders, in one query."""
    values = Span.objects.filter(pk__in=[span.pk for span in spans]).values_list(
        "pk", "kind", "input", "output"
    )
    return {
        pk: (_span_first_level(kind, i), _span_first_level(kind, o)) for pk, kind, i, o in values
    }


def _span_first_level(kind: str, value) -> FirstLevel:
    """A model turn reads as its conversation (role, text, calls), not as message JSON; a
    tool's arguments and result are data and show as such."""
    if kind != SpanKind.TOOL:
        turns = messages_first_level(value)
        if turns is not None:
            return turns
    return value_first_level(value)


def _node_html(node: SpanNode, highlight: set, first: tuple | None) -> str:
    span = node.span
    classes = f"span-node kind-{esc(span.kind)}"
    if node.is_error:
        classes += " is-error"
    if node.span_id in highlight:
        classes += " is-highlighted"
    # The step number and tool name are what judges read and cite (traces.reading).
    parts = [
        f'<span class="muted span-step">step {node.step}</span>',
        f'<span class="badge kind">{esc(span.get_kind_display())}</span>',
    ]
    if span.kind == SpanKind.TOOL and span.tool_name and span.tool_name != span.name:
        parts.append(f'<span class="span-name">{esc(span.tool_name)}</span>')
        parts.append(f'<span class="muted">span {esc(span.name)}</span>')
    else:
        parts.append(f'<span class="span-name">{esc(span.name)}</span>')
        if span.tool_name and span.tool_name != span.name:
            parts.append(f'<span class="muted">tool {esc(span.tool_name)}</span>')
    if span.model and span.model not in span.name:
        parts.append(f'<span class="muted">{esc(span.model)}</span>')
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
        error = span.error_message
        error = error if len(error) <= ERROR_HEAD_CHARS else error[:ERROR_HEAD_CHARS] + "…"
        body += f'<p class="error span-error">{esc(error)}</p>'
    if first is not None:
        body += _first_level_html("Input", first[0]) + _first_level_html("Output", first[1])
    body += (
        f'<details class="fold span-full" hx-get="/traces/{span.trace_id}/spans/{span.pk}/" '
        'hx-trigger="toggle once"><summary>Whole span</summary></details>'
    )
    span_id = esc(node.span_id)
    return (
        f'<li class="{classes}" id="span-{span_id}" role="treeitem">'
        f'<details class="span-fold" open><summary class="span-head">{" ".join(parts)}'
        f'</summary><div class="span-body">{body}</div>'
    )


def _more_html(trace_id: int, step: More, blind: bool) -> str:
    params = {"parent": step.parent_id, "from": step.start, "to": step.end}
    if blind:
        params["blind"] = "1"
    url = f"{reverse('explorer:tree_rows', args=[trace_id])}?{urlencode(params)}"
    return (
        f'<li class="span-more"><button type="button" class="link" hx-get="{esc(url)}" '
        'hx-trigger="click, revealed" hx-target="closest li" hx-swap="outerHTML">'
        f"Show {step.spans:,} more span{'s' if step.spans != 1 else ''}</button></li>"
    )


def span_window_html(trace_id: int, plan, highlight: set, blind: bool = False) -> str:
    """The <li> items of a window plan (traces.span_window.window_plan), balanced."""
    first_levels = span_first_levels([s.node.span for s in plan if isinstance(s, Open)])
    out = []
    for step in plan:
        if isinstance(step, Open):
            node = step.node
            out.append(_node_html(node, highlight, first_levels.get(node.span.pk)))
            out.append(
                '<ul class="span-children" role="group">' if node.children else "</details></li>"
            )
        elif isinstance(step, Close):
            out.append("</ul></details></li>")
        else:
            out.append(_more_html(trace_id, step, blind))
    return masks_marked("\n".join(out))
