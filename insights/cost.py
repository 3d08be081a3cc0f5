"""Chart 5: what judging costs per day, rubric and model, and what caching saved."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

from django.db.models import Count, Q, Sum
from django.utils import timezone

from insights.charts import (
    PALETTE,
    Chart,
    bar_width,
    day_stack_layout,
    empty_figure,
    money_axis,
    plain,
    table_rows,
)
from insights.daily import DailyPart, DailyStore, daily_rows, within_days
from judges.costs import cache_read_saving_per_million
from judges.models import Judgment

PER_MILLION = 1_000_000
WINDOW = dt.timedelta(days=90)


def _cost_day_rows(start, end):
    """Per day, rubric and model: calls, tokens and money of the judgments completed then."""
    return (
        within_days(Judgment.objects.filter(completed_at__isnull=False), "completed_at", start, end)
        .values("day", "rubric_version__rubric__name", "config__model")
        .annotate(
            calls=Count("id"),
            cached_calls=Count("id", filter=Q(served_from_cache=True)),
            sum_input_tokens=Sum("input_tokens"),
            sum_output_tokens=Sum("output_tokens"),
            sum_cache_read_tokens=Sum("cache_read_tokens"),
            sum_cache_write_tokens=Sum("cache_write_tokens"),
            sum_cost_usd=Sum("cost_usd"),
            paid_cost_usd=Sum("cost_usd", filter=Q(served_from_cache=False)),
        )
        .order_by("day", "rubric_version__rubric__name", "config__model")
    )


COST_DAYS = DailyPart("judge_cost", _cost_day_rows, ((Judgment, "completed_at"),))


def judge_cost_rows(store: DailyStore | None = None) -> list[dict]:
    """Per day, rubric and model: calls, tokens, money, and the two kinds of caching saved."""
    since = timezone.localdate() - WINDOW
    rows = daily_rows(COST_DAYS, store, since)
    # A price lookup walks the price tables; each model is looked up once per build.
    discounts = {
        model: cache_read_saving_per_million(model) for model in {r["config__model"] for r in rows}
    }
    out = []
    for row in rows:
        paid_calls = row["calls"] - row["cached_calls"]
        paid_cost = float(row["paid_cost_usd"] or 0)
        # A cache hit would have cost what a paid call of its day, rubric and model cost.
        request_cache_saved = row["cached_calls"] * paid_cost / paid_calls if paid_calls else 0.0
        discount = discounts[row["config__model"]]
        prompt_cache_saved = (row["sum_cache_read_tokens"] or 0) * discount / PER_MILLION
        out.append(
            {
                "day": plain(row["day"]),
                "rubric": row["rubric_version__rubric__name"],
                "model": row["config__model"],
                "calls": row["calls"],
                "cached_calls": row["cached_calls"],
                "input_tokens": row["sum_input_tokens"] or 0,
                "output_tokens": row["sum_output_tokens"] or 0,
                "cache_read_tokens": row["sum_cache_read_tokens"] or 0,
                "cache_write_tokens": row["sum_cache_write_tokens"] or 0,
                "cost_usd": round(float(row["sum_cost_usd"] or 0), 6),
                "request_cache_saved_usd": round(request_cache_saved, 6),
                "prompt_cache_saved_usd": round(prompt_cache_saved, 6),
            }
        )
    return out


COLUMNS = [
    "day",
    "rubric",
    "model",
    "calls",
    "cached_calls",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "cost_usd",
    "request_cache_saved_usd",
    "prompt_cache_saved_usd",
]


def judge_cost_chart(store: DailyStore | None = None) -> Chart:
    rows = judge_cost_rows(store)
    table = table_rows(rows, COLUMNS)
    if not rows:
        figure = empty_figure("No judge call has completed yet.")
    else:
        days = sorted({r["day"] for r in rows})
        series: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        tokens: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        saved: dict[str, float] = defaultdict(float)
        for r in rows:
            name = f"{r['rubric']} · {r['model']}"
            series[name][r["day"]] += r["cost_usd"]
            tokens[name][r["day"]] += r["input_tokens"] + r["output_tokens"]
            saved[r["day"]] += r["request_cache_saved_usd"] + r["prompt_cache_saved_usd"]
        data = [
            {
                "type": "bar",
                "name": name,
                "x": days,
                "y": [round(series[name].get(d, 0.0), 4) for d in days],
                "customdata": [tokens[name].get(d, 0) for d in days],
                "hovertemplate": "$%{y:.2f} · %{customdata:,} tokens"
                "<extra>%{fullData.name}</extra>",
                "marker": {"color": PALETTE[i % len(PALETTE)]},
                "width": bar_width("day"),
            }
            for i, name in enumerate(sorted(series))
        ]
        data.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": "saved by caching",
                "x": days,
                "y": [round(saved[d], 4) for d in days],
                "line": {"color": "#000", "dash": "dot"},
            }
        )
        figure = {
            "data": data,
            "layout": day_stack_layout(days, "USD", money_axis("USD")),
        }
    total = sum(r["cost_usd"] for r in rows)
    saved_total = sum(r["request_cache_saved_usd"] + r["prompt_cache_saved_usd"] for r in rows)
    return Chart(
        key="judge_cost",
        title="Judging cost per day, rubric and model (last 90 days)",
        columns=COLUMNS,
        rows=table,
        figure=figure,
        note=f"${total:,.2f} spent; caching saved ${saved_total:,.2f} (request cache: "
        "repeat requests not paid again; prompt caching: cached input tokens at the read price).",
    )
