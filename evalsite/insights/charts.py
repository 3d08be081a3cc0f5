"""The shape every overview chart shares: a table (for CSV) and a plotly figure built from it."""

from __future__ import annotations

import datetime as dt
import io
from dataclasses import dataclass, field
from decimal import Decimal

from evalsite.csv_cells import SafeCsvWriter

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

    def as_dict(self) -> dict:
        return {
            "key": self.key,
            "title": self.title,
            "columns": self.columns,
            "rows": self.rows,
            "figure": self.figure,
            "note": self.note,
            "tables": self.tables,
        }

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


def count_axis(largest, title: str = "", **extra) -> dict:
    """A y-axis of counts: whole-number ticks from zero, 1.2k rather than 1200."""
    axis = {"title": {"text": title}, "rangemode": "tozero", "tickformat": "~s", **extra}
    if (largest or 0) <= 6:
        axis["dtick"] = 1
    return axis


def bar_width(unit: str, share: float = 0.8) -> int:
    """A bar's width on a date axis: plotly cannot infer it from a single date."""
    return int(period_ms(unit) * share)


def readable(slug: str) -> str:
    """A stored slug as a label: max_steps_exceeded -> max steps exceeded."""
    return str(slug).replace("_", " ")
