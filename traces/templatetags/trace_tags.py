"""Template helpers for trace pages; the span tree's HTML is built in traces.span_html."""

from django import template
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString

from traces import span_html
from traces.masking.marks import masks_marked
from traces.selectors import SpanNode, span_nodes_rows
from traces.span_window import forced_path, window_plan
from traces.stop_reasons import UNCLEAN_KINDS, StopKind, stop_reason_normalize

register = template.Library()
CUT_CHARS = span_html.CUT_CHARS


@register.filter
def with_masks_marked(value):
    """The value escaped, with masking marks shown as such (traces.masking.marks)."""
    return SafeString(masks_marked(str(conditional_escape(value))))


@register.filter
def span_rows(nodes):
    """Pre-order rows of a nested span tree (see traces.selectors.span_nodes_rows)."""
    return span_nodes_rows(nodes or [])


@register.filter
def stop_kind(stop_reason) -> str:
    """The stop reason's kind (`truncated`, `refused`, ...), whoever spelled it."""
    return stop_reason_normalize(stop_reason)


@register.filter
def stop_is_unclean(stop_reason) -> bool:
    """Whether the run was truncated, refused, stopped on its step limit or on an error."""
    return stop_reason_normalize(stop_reason) in UNCLEAN_KINDS


@register.filter
def stop_kind_label(stop_reason) -> str:
    kind = stop_reason_normalize(stop_reason)
    return StopKind(kind).label if kind else ""


@register.filter
def duration_label(ms) -> str:
    """A duration in ms as people read it: 850 ms, 2.4 s, 3 min 5 s."""
    return span_html.duration_label(ms)


def _parents(nodes: list[SpanNode]) -> dict[str, str]:
    parents = {node.span_id: "" for node in nodes}
    stack = list(nodes)
    while stack:
        node = stack.pop()
        for child in node.children:
            parents[child.span_id] = node.span_id
            stack.append(child)
    return parents


@register.simple_tag
def span_tree(nodes, highlight_span_ids=None, shown_span_ids=(), blind=False) -> SafeString:
    """The collapsible span tree as nested <ul>/<details>, a window of it for big traces.

    Highlighted spans and `shown_span_ids` are always rendered, with their ancestors, so links
    to them find them; the other spans past the window load on demand. Escaped throughout.
    """
    nodes = nodes or []
    highlight = set(highlight_span_ids or ())
    if not nodes:
        return SafeString('<ul class="span-tree" role="tree"><li class="muted">No spans.</li></ul>')
    forced = forced_path(_parents(nodes), highlight | set(shown_span_ids or ()))
    plan = window_plan("", nodes, 0, len(nodes), forced)
    items = span_html.span_window_html(nodes[0].span.trace_id, plan, highlight, blind)
    # Every trace value in `items` went through span_html.esc.
    # Opening a span appends its whole body after its summary (hx-swap inherited).
    return SafeString(f'<ul class="span-tree" role="tree" hx-swap="beforeend">\n{items}\n</ul>')
