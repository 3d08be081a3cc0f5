"""The agent's own health per day: volume, latency, errors, tokens and cost, from its traces.

One grouped query per breakdown (agent version, model) over the last WINDOW of traces by
start time; held-out traces are left out like everywhere. Percentiles of latency come from
PostgreSQL's percentile_cont; SQLite (embedded mode, small data) computes them in Python.
"""

from __future__ import annotations

import datetime as dt
import statistics
from collections import defaultdict

from django.db.models import Count, DurationField, ExpressionWrapper, F, Q, Sum
from django.db.models.functions import TruncDay
from django.utils import timezone

from insights.charts import plain
from insights.sql import Percentile, percentiles_in_database
from traces.models import Trace
from traces.selectors import traces_visible

WINDOW = dt.timedelta(days=30)
# More series than this make a chart unreadable; the smallest are summed as OTHER.
MAX_SERIES = 8
OTHER = "other"


def _duration():
    return ExpressionWrapper(F("ended_at") - F("started_at"), output_field=DurationField())


def _ms(value) -> float | None:
    if value is None:
        return None
    if isinstance(value, dt.timedelta):
        return round(value.total_seconds() * 1000, 1)
    return round(float(value) / 1000, 1)  # SQLite answers a duration in microseconds


def agent_traces():
    """Traces of the window that statistics may read (never held-out ones)."""
    since = timezone.now() - WINDOW
    return traces_visible(None, Trace.objects.filter(started_at__gte=since))


def version_label(agent_name: str, agent_version: str) -> str:
    return f"{agent_name or '(no agent name)'} {agent_version or '(no version)'}".strip()


def _latency_by_python(queryset, keys: list[str]) -> dict[tuple, tuple]:
    """(p50, p95) per group, for databases without percentile aggregates."""
    durations: dict[tuple, list[float]] = defaultdict(list)
    rows = queryset.filter(ended_at__isnull=False).values_list(*keys, "duration")
    for *key, duration in rows.iterator(chunk_size=5000):
        durations[tuple(key)].append(_ms(duration))
    out = {}
    for key, values in durations.items():
        if len(values) == 1:
            out[key] = (values[0], values[0])
        else:
            cuts = statistics.quantiles(values, n=100, method="inclusive")
            out[key] = (round(cuts[49], 1), round(cuts[94], 1))
    return out


def usage_by_version_rows() -> list[dict]:
    """Per day, agent and version: traces, traces with an error, latency p50/p95 (ms),
    tokens and the agent's own cost."""
    keys = ["day", "agent_name", "agent_version"]
    base = agent_traces().annotate(day=TruncDay("started_at"), duration=_duration())
    aggregates = {
        "traces": Count("id"),
        "failed": Count("id", filter=Q(error_count__gt=0)),
        "input_tokens": Sum("input_tokens"),
        "output_tokens": Sum("output_tokens"),
        "cost_usd": Sum("cost_usd"),
    }
    postgres = percentiles_in_database()
    if postgres:
        timed = Q(ended_at__isnull=False)
        aggregates["p50"] = Percentile("duration", 0.5, filter=timed)
        aggregates["p95"] = Percentile("duration", 0.95, filter=timed)
    grouped = base.values(*keys).annotate(**aggregates).order_by(*keys)
    latency = {} if postgres else _latency_by_python(base, keys)
    out = []
    for row in grouped:
        p50, p95 = (
            (_ms(row["p50"]), _ms(row["p95"]))
            if postgres
            else latency.get((row["day"], row["agent_name"], row["agent_version"]), (None, None))
        )
        out.append(
            {
                "day": plain(row["day"]),
                "version": version_label(row["agent_name"], row["agent_version"]),
                "traces": row["traces"],
                "failed_traces": row["failed"],
                "error_rate": round(row["failed"] / row["traces"], 4) if row["traces"] else 0,
                "p50_ms": p50,
                "p95_ms": p95,
                "input_tokens": row["input_tokens"] or 0,
                "output_tokens": row["output_tokens"] or 0,
                "cost_usd": plain(row["cost_usd"] or 0),
            }
        )
    return out


def usage_by_model_rows() -> list[dict]:
    """Per day and model (the model a trace called most): traces, tokens and cost."""
    rows = (
        agent_traces()
        .annotate(day=TruncDay("started_at"))
        .values("day", "model")
        .annotate(
            traces=Count("id"),
            input_tokens=Sum("input_tokens"),
            output_tokens=Sum("output_tokens"),
            cost_usd=Sum("cost_usd"),
        )
        .order_by("day", "model")
    )
    return [
        {
            "day": plain(row["day"]),
            "model": row["model"] or "(no model)",
            "traces": row["traces"],
            "input_tokens": row["input_tokens"] or 0,
            "output_tokens": row["output_tokens"] or 0,
            "cost_usd": plain(row["cost_usd"] or 0),
        }
        for row in rows
    ]


def series_names(rows: list[dict], name_key: str, weight_key: str = "traces") -> dict[str, str]:
    """Each row's series name: the MAX_SERIES - 1 heaviest keep theirs, the rest are OTHER."""
    weights: dict[str, float] = defaultdict(float)
    for row in rows:
        weights[row[name_key]] += float(row[weight_key] or 0)
    if len(weights) <= MAX_SERIES:
        return {name: name for name in weights}
    kept = sorted(weights, key=lambda name: (-weights[name], name))[: MAX_SERIES - 1]
    return {name: name if name in kept else OTHER for name in weights}
