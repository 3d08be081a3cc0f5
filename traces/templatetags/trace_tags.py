from django import template

from traces.selectors import span_nodes_rows

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
