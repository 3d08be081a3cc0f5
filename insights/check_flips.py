"""How often each eval-time LLM check (parameter equivalence, path, expected behaviour) answered
differently on its two temperature-0 passes, over the latest eval runs: the per-check
companion of the judge versions' flip-rate chart."""

from __future__ import annotations

from collections import Counter

from core.stats import wilson_interval
from golden.models import EvalRun, EvalTrial
from insights.charts import (
    PALETTE,
    Chart,
    empty_figure,
    interval_error_bars,
    layout,
    share_axis,
    table_rows,
)
from insights.flips import EXPECTED_BAND
from judges.check_passes import CHECKS

MAX_RUNS = 200
COLUMNS = ["check", "asked", "flipped", "flip_rate", "low_95", "high_95"]


def check_flip_rows() -> list[dict]:
    """Per check: questions asked twice, how many flipped, the rate and its 95% interval."""
    runs = EvalRun.objects.order_by("-created_at").values_list("pk", flat=True)[:MAX_RUNS]
    asked: Counter = Counter()
    flipped: Counter = Counter()
    passes = EvalTrial.objects.filter(eval_run__in=list(runs), trace__held_out=False)
    for entries in passes.values_list("metrics__llm_check_passes", flat=True):
        for entry in entries or []:
            if isinstance(entry, dict) and None not in (entry.get("scores") or [None]):
                asked[entry.get("check")] += 1
                flipped[entry.get("check")] += bool(entry.get("flipped"))
    rows = []
    for check in [c for c in CHECKS if asked[c]] + sorted(set(asked) - set(CHECKS)):
        low, high = wilson_interval(flipped[check], asked[check])
        rows.append(
            {
                "check": check,
                "asked": asked[check],
                "flipped": flipped[check],
                "flip_rate": round(flipped[check] / asked[check], 4),
                "low_95": round(low, 4),
                "high_95": round(high, 4),
            }
        )
    return rows


def check_flip_chart() -> Chart:
    rows = check_flip_rows()
    figure = empty_figure("No eval run has asked an LLM check yet.")
    if rows:
        names = [row["check"].replace("_", " ") for row in rows]
        figure = {
            "data": [
                {
                    "type": "bar",
                    "x": names,
                    "y": [row["flip_rate"] for row in rows],
                    "error_y": interval_error_bars(rows, "flip_rate", "low_95", "high_95"),
                    "customdata": [[row["flipped"], row["asked"]] for row in rows],
                    # The counts on each bar: a check that never flipped has no bar to see.
                    "text": [f"{row['flipped']:,} of {row['asked']:,}" for row in rows],
                    "textposition": "outside",
                    "cliponaxis": False,
                    "hovertemplate": "%{y:.1%} (%{customdata[0]:,} of %{customdata[1]:,})"
                    "<extra></extra>",
                    "marker": {"color": PALETTE[0]},
                }
            ],
            "layout": layout(
                "LLM check",
                "flipped between the two passes",
                yaxis=share_axis("flipped between the two passes"),
                shapes=[
                    {
                        "type": "rect",
                        "xref": "paper",
                        "x0": 0,
                        "x1": 1,
                        "y0": EXPECTED_BAND[0],
                        "y1": EXPECTED_BAND[1],
                        "fillcolor": "#adb5bd",
                        "opacity": 0.2,
                        "line": {"width": 0},
                    }
                ],
            ),
        }
    total = sum(row["flipped"] for row in rows)
    return Chart(
        key="check_flip_rate",
        title="Eval-time LLM checks: how often the two passes disagreed, per check",
        columns=COLUMNS,
        rows=table_rows(rows, COLUMNS),
        figure=figure,
        note=(
            f"{total:,} of {sum(row['asked'] for row in rows):,} questions flipped over the "
            f"latest {MAX_RUNS} eval runs; each flip sent its trial to review. The grey band is "
            "the flip rate judge studies report."
            if rows
            else "Parameter, path and expected-behaviour checks pass twice when an eval run asks."
        ),
    )
