"""Chart 8: eval runs per agent version, against the noise of no-op runs."""

from __future__ import annotations

from statistics import fmean, stdev

from golden.evals.metrics import TASK_METRICS
from golden.models import EvalRun
from insights.charts import PALETTE, Chart, empty_figure, plain, table_rows

# The band is the no-op runs' mean plus or minus this many standard deviations.
NOISE_SIGMAS = 2.0
MAX_RUNS = 500


def eval_run_rows() -> list[dict]:
    """The latest runs, oldest first, with their overall metrics."""
    runs = EvalRun.objects.order_by("-created_at").values(
        "id", "name", "agent_version", "is_noop", "created_at", "metrics"
    )[:MAX_RUNS]
    out = []
    for run in reversed(list(runs)):
        overall = (run["metrics"] or {}).get("overall", run["metrics"] or {})
        out.append(
            {
                "run": run["id"],
                "name": run["name"],
                "agent_version": run["agent_version"],
                "is_noop": run["is_noop"],
                "created_at": plain(run["created_at"]),
                **{m: overall.get(m) for m in TASK_METRICS},
            }
        )
    return out


def noise_band(rows: list[dict], metric: str) -> tuple[float, float] | None:
    values = [r[metric] for r in rows if r["is_noop"] and r[metric] is not None]
    if len(values) < 2:
        return None
    mean, spread = fmean(values), stdev(values)
    return (mean - NOISE_SIGMAS * spread, mean + NOISE_SIGMAS * spread)


def eval_run_chart() -> Chart:
    rows = eval_run_rows()
    columns = ["run", "name", "agent_version", "is_noop", "created_at", *TASK_METRICS]
    table = table_rows(rows, columns, plain)
    if not rows:
        return Chart(
            key="eval_runs",
            title="Eval runs per agent version",
            columns=columns,
            rows=table,
            figure=empty_figure("No eval run yet."),
        )
    data, shapes = [], []
    versions = list(dict.fromkeys(r["agent_version"] for r in rows))
    lay = {"margin": {"l": 60, "r": 20, "t": 30, "b": 50}, "height": 560, "showlegend": True}
    gap, height = 0.05, 1 / len(TASK_METRICS)
    for index, metric in enumerate(TASK_METRICS):
        suffix = "" if index == 0 else str(index + 1)
        top = 1 - index * height
        lay[f"yaxis{suffix}"] = {
            "domain": [top - height + gap, top],
            "title": {"text": metric.replace("_", " "), "font": {"size": 10}},
            "range": [0, 1.05],
        }
        # Agent versions in the order they were first run: the axis reads as the agent's history.
        lay[f"xaxis{suffix}"] = {
            "anchor": f"y{suffix}",
            "showticklabels": index == 3,
            "type": "category",
            "categoryorder": "array",
            "categoryarray": versions,
            "title": {"text": "agent version" if index == 3 else ""},
        }
        if index:
            lay[f"xaxis{suffix}"]["matches"] = "x"
        band = noise_band(rows, metric)
        if band:
            shapes.append(
                {
                    "type": "rect",
                    "xref": "paper",
                    "x0": 0,
                    "x1": 1,
                    "yref": f"y{suffix}",
                    "y0": max(0.0, band[0]),
                    "y1": min(1.05, band[1]),
                    "fillcolor": "#999",
                    "opacity": 0.2,
                    "line": {"width": 0},
                }
            )
        data.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": metric.replace("_", " "),
                "x": [r["agent_version"] for r in rows],
                "y": [r[metric] for r in rows],
                "text": [f"{r['name']}{' (no-op)' if r['is_noop'] else ''}" for r in rows],
                "hovertemplate": "%{text}: %{y:.3f}<extra>%{fullData.name}</extra>",
                "xaxis": f"x{suffix}",
                "yaxis": f"y{suffix}",
                "marker": {
                    "color": PALETTE[index],
                    "symbol": ["circle-open" if r["is_noop"] else "circle" for r in rows],
                },
                "line": {"color": PALETTE[index]},
            }
        )
    lay["shapes"] = shapes
    return Chart(
        key="eval_runs",
        title="Eval runs per agent version",
        columns=columns,
        rows=table,
        figure={"data": data, "layout": lay},
        note=f"Grey bands: no-op runs' mean ± {NOISE_SIGMAS:g} standard deviations; "
        "open markers are no-op runs.",
    )
