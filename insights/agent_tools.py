"""Tool-call error rate per tool over the dashboard's window, with a 95% interval."""

from __future__ import annotations

from django.db.models import Count, Q, Value
from django.db.models.functions import Coalesce, NullIf
from django.utils import timezone

from core.stats import wilson_interval
from insights.agent_usage import WINDOW
from traces.models import Span, SpanKind, SpanStatus
from traces.selectors import traces_visible

# The busiest tools are shown; a long tail of one-off tools would crowd the chart.
MAX_TOOLS = 30


def tool_error_rows() -> list[dict]:
    """Per tool: calls, failed calls, the failure share and its Wilson interval; worst first."""
    since = timezone.now() - WINDOW
    spans = traces_visible(
        None,
        Span.objects.filter(kind=SpanKind.TOOL, trace__started_at__gte=since),
        via="trace",
    )
    grouped = (
        spans.annotate(tool=Coalesce(NullIf("tool_name", Value("")), "name"))
        .values("tool")
        .annotate(calls=Count("id"), errors=Count("id", filter=Q(status=SpanStatus.ERROR)))
        .order_by("-calls", "tool")[:MAX_TOOLS]
    )
    rows = []
    for row in grouped:
        low, high = wilson_interval(row["errors"], row["calls"])
        rows.append(
            {
                "tool": row["tool"],
                "calls": row["calls"],
                "errors": row["errors"],
                "error_rate": round(row["errors"] / row["calls"], 4),
                "low_95": round(low, 4),
                "high_95": round(high, 4),
            }
        )
    return sorted(rows, key=lambda row: (-row["error_rate"], -row["calls"], row["tool"]))
