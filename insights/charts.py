"""The shape every overview chart shares: a table (for CSV) and a plotly figure built from it."""

from __future__ import annotations

import datetime as dt
import io
import math
from dataclasses import dataclass, field, fields
from decimal import Decimal

from core.csv_cells import SafeCsvWriter

# Colours that stay apart for colour-blind readers (Okabe-Ito).
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000"]


@dataclass
class Chart:
    """One chart of the overview: its rows are what the CSV download holds."""

    key: str
    title: str
    columns: list[str]
    rows: list[list]
    figure: dict
    note: str = ""
    tables: list[dict] = field(default_factory=list)

    def __post_init__(self):
        legend_room(self.figure)

    def as_dict(self) -> dict:
        # Every field, as from_dict reads them back (not asdict: it would copy the figure).
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict) -> Chart:
        return cls(**data)

    def csv_text(self) -> str:
        out = io.StringIO()
        writer = SafeCsvWriter(out)
        writer.writerow(self.columns)
        writer.writerows(self.rows)
        return out.getvalue()


def plain(value):
    """A JSON-ready value: dates as ISO text, decimals as floats, floats rounded."""
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time(0) else value.isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return round(float(value), 6)
    if isinstance(value, float):
        return round(value, 6)
    return value


DAY_MS = 86_400_000


def table_rows(rows: list[dict], columns: list[str], cell=None) -> list[list]:
    """A chart's table (and CSV): each row's values in column order, through `cell` if given."""
    if cell is None:
        return [[row[column] for column in columns] for row in rows]
    return [[cell(row[column]) for column in columns] for row in rows]


def layout(title_x: str = "", title_y: str = "", **extra) -> dict:
    """A plotly layout in the site's style; the legend sits above the plot, clear of the x title."""
    base = {
        "margin": {"l": 60, "r": 20, "t": 40, "b": 50},
        "height": 340,
        "legend": {"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"},
        "xaxis": {"title": {"text": title_x}},
        "yaxis": {"title": {"text": title_y}},
        "font": {"size": 12},
    }
    base.update(extra)
    return base


LEGEND_ROW_PX = 19
# Names longer than this take a legend row each in a half-width card.
LEGEND_NAME_CHARS_PER_ROW = 30


def legend_room(figure: dict) -> dict:
    """Make the plot taller by what a legend above it needs, so many entries never cover it.

    Marked in the layout's meta, so a figure rebuilt from the cache is not grown twice."""
    layout_ = figure.get("layout") or {}
    meta = layout_.setdefault("meta", {}) if isinstance(layout_.get("meta", {}), dict) else {}
    legend = layout_.get("legend") or {}
    if meta.get("legend_room") or legend.get("y", 0) < 1:
        return figure
    names = [
        str(t.get("name", ""))
        for t in figure.get("data", [])
        if t.get("showlegend", True) and t.get("name")
    ]
    if len(set(names)) < 2:
        return figure
    long_names = any(len(name) > LEGEND_NAME_CHARS_PER_ROW for name in names)
    rows = len(set(names)) if long_names else math.ceil(len(set(names)) / 3)
    extra = LEGEND_ROW_PX * rows
    margin = layout_.setdefault("margin", {})
    margin["t"] = max(margin.get("t", 40), 20 + extra)
    layout_["height"] = layout_.get("height", 340) + max(0, extra - 20)
    meta["legend_room"] = True
    layout_["meta"] = meta
    return figure


def panel_title(text: str, domain: list[float]) -> dict:
    """A title above one of several side-by-side panels, centred on the panel's domain."""
    return {
        "text": text,
        "showarrow": False,
        "xref": "paper",
        "yref": "paper",
        "x": sum(domain) / 2,
        "y": 1.02,
        "yanchor": "bottom",
        "font": {"size": 11},
    }


def empty_figure(message: str) -> dict:
    """A figure that says there is nothing to draw yet, instead of a blank box."""
    return {
        "data": [],
        "layout": {
            **layout(),
            "xaxis": {"visible": False},
            "yaxis": {"visible": False},
            "annotations": [
                {
                    "text": message,
                    "showarrow": False,
                    "xref": "paper",
                    "yref": "paper",
                    "x": 0.5,
                    "y": 0.5,
                }
            ],
        },
    }


def period_ms(unit: str) -> int:
    """The length of one bucket of a day or week axis, in the milliseconds plotly dates use."""
    return DAY_MS * (7 if unit == "week" else 1)


def date_axis(xs, unit: str, **extra) -> dict:
    """A day or week x-axis. With one or two buckets plotly would zoom to milliseconds and
    draw bars 0 px wide; the range is padded by a bucket on each side instead."""
    axis = {"type": "date", "title": {"text": unit}, **extra}
    values = sorted({str(x)[:10] for x in xs if x})
    if 0 < len(values) < 3:
        pad = dt.timedelta(milliseconds=period_ms(unit))
        first, last = dt.date.fromisoformat(values[0]), dt.date.fromisoformat(values[-1])
        axis["range"] = [(first - pad).isoformat(), (last + pad).isoformat()]
    return axis


def count_step(largest) -> int:
    """A whole, round tick step (1, 2, 5, 10, 20, ...) giving about five ticks up to largest."""
    target = max(float(largest or 0) / 5, 1.0)
    magnitude = 10 ** math.floor(math.log10(target))
    for factor in (1, 2, 5, 10):
        if factor * magnitude >= target:
            return int(factor * magnitude)
    return int(10 * magnitude)


def count_axis(largest, title: str = "", **extra) -> dict:
    """A y-axis of counts: whole-number ticks from zero, 1.2k rather than 1200.

    The step is set, not left to plotly: an axis overlaying another would otherwise take
    the other's grid and label counts like 8.25608."""
    return {
        "title": {"text": title},
        "rangemode": "tozero",
        "tickformat": "~s",
        "tickmode": "linear",
        "tick0": 0,
        "dtick": count_step(largest),
        **extra,
    }


def money_axis(title: str) -> dict:
    """A y axis of US dollars, from zero."""
    return {"title": {"text": title}, "tickprefix": "$", "rangemode": "tozero"}


def share_axis(title: str) -> dict:
    """An axis of shares (0.25 reads 25%), from zero."""
    return {"title": {"text": title}, "tickformat": ".0%", "rangemode": "tozero"}


def interval_error_bars(rows: list[dict], rate: str, low: str, high: str) -> dict:
    """Error bars from each row's rate down to its interval's low end and up to its high end."""
    return {
        "type": "data",
        "symmetric": False,
        "array": [round(row[high] - row[rate], 4) for row in rows],
        "arrayminus": [round(row[rate] - row[low], 4) for row in rows],
    }


def day_stack_layout(days, title_y: str, yaxis: dict) -> dict:
    """The layout of bars stacked per day (by agent version, stop kind or cost part)."""
    return layout("day", title_y, barmode="stack", xaxis=date_axis(days, "day"), yaxis=yaxis)


def bar_width(unit: str, share: float = 0.8) -> int:
    """A bar's width on a date axis: plotly cannot infer it from a single date."""
    return int(period_ms(unit) * share)


def readable(slug: str) -> str:
    """A stored slug as a label: max_steps_exceeded -> max steps exceeded."""
    return str(slug).replace("_", " ")
