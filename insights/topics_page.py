"""What the topics page reads: a project's newest topics, their figures and their history."""

from __future__ import annotations

import html
import json
import textwrap
from collections import defaultdict

from django.db.models import Count
from django.db.models.functions import TruncDate

from insights.charts import PALETTE, count_axis, empty_figure, layout
from insights.models import Topic, TopicBuild, TraceTopic
from traces.models import Project, Trace
from traces.selectors import traces_visible

# The over-time chart draws this many topics (the largest, one palette colour each); the rest
# are summed as "other".
CHART_TOPICS = len(PALETTE)


def plot_text(text: str) -> str:
    """Trace text as a plotly label: plotly reads a few HTML tags in labels, so none may pass."""
    return html.escape(text, quote=False)


# A treemap label's line, in characters: plotly shrinks a one-line name to its box's width,
# and a long name in a narrow box became unreadably small.
LABEL_LINE_CHARS = 26


def legend_name(text: str, chars: int = 40) -> str:
    """A legend's name, cut at a word and marked: a name cut mid-word read as another term."""
    short = textwrap.shorten(text, chars, placeholder=" …")
    return short if short != "…" else text[: chars - 1] + "…"


def plot_label_lines(text: str) -> str:
    """Trace text as a plotly label in short lines (`<br>` between escaped lines)."""
    lines = textwrap.wrap(text, LABEL_LINE_CHARS, break_long_words=False) or [text]
    return "<br>".join(plot_text(line) for line in lines)


def topics_projects() -> list[Project]:
    return list(Project.objects.filter(topic_builds__isnull=False).distinct().order_by("name"))


def topics_newest_build(project: Project | None) -> TopicBuild | None:
    if project is None:
        return None
    return TopicBuild.objects.newest_first(project.pk).first()


def topics_of_build(user, build: TopicBuild) -> list[dict]:
    """The build's topics, largest first, each with the examples the user may see."""
    topics = list(build.topics.order_by("-size", "number"))
    example_ids = {pk for topic in topics for pk in topic.example_trace_ids}
    visible = {
        trace.pk: trace
        for trace in traces_visible(user, Trace.objects.filter(pk__in=example_ids)).only(
            "pk", "task", "external_id"
        )
    }
    return [
        {
            "topic": topic,
            "examples": [visible[pk] for pk in topic.example_trace_ids if pk in visible],
            # The golden example's red_flags entry, ready to paste.
            "rule_json": json.dumps(topic.rule_draft["rule"]) if topic.rule_draft else "",
        }
        for topic in topics
    ]


def topics_builds_health() -> list[TopicBuild]:
    """Each project's newest build, for the judging health page: how it grouped and named its
    topics, and what failed (embeddings, arrivals' embeddings, the judge's names)."""
    newest = []
    for project in topics_projects():
        build = topics_newest_build(project)
        if build is not None:
            newest.append(build)
    return newest


def topics_figures(build: TopicBuild, topics: list[Topic]) -> dict:
    """The treemap (size, coloured by failure share) and the daily bars of the largest topics."""
    if not topics:
        empty = empty_figure("No topics yet.")
        return {"topics_map": empty, "topics_over_time": empty}
    total = sum(t.size for t in topics)
    # An explicit root, so the frame around the topics is the project's, not plotly's grey.
    treemap = {
        "data": [
            {
                "type": "treemap",
                "ids": ["all", *[str(t.pk) for t in topics]],
                "labels": ["All topics", *[plot_label_lines(t.name) for t in topics]],
                "parents": ["", *["all" for _ in topics]],
                "values": [total, *[t.size for t in topics]],
                "branchvalues": "total",
                "marker": {
                    "colors": [
                        round(build.failure_share, 3),
                        *[round(t.failure_share, 3) for t in topics],
                    ],
                    "colorscale": [[0, "#E8F1FA"], [0.5, "#E69F00"], [1, "#D55E00"]],
                    "cmin": 0,
                    "cmax": 1,
                    "showscale": True,
                    "colorbar": {"title": {"text": "failed"}, "tickformat": ".0%"},
                },
                "hovertemplate": "%{label}<br>%{value} traces, failed: %{color:.0%}<extra></extra>",
                "textinfo": "label+value",
                "textfont": {"size": 13},
                "pathbar": {"visible": False},
            }
        ],
        "layout": {**layout(), "margin": {"l": 10, "r": 10, "t": 10, "b": 10}, "height": 380},
    }
    days = (
        TraceTopic.objects.filter(topic__build=build)
        .annotate(day=TruncDate("trace__started_at"))
        .values("topic_id", "day")
        .annotate(n=Count("pk"))
        .order_by("day")
    )
    shown = [t.pk for t in topics[:CHART_TOPICS]]
    names = {t.pk: t.name for t in topics}
    series: dict[str, dict] = defaultdict(dict)
    all_days = set()
    for row in days:
        key = row["topic_id"] if row["topic_id"] in shown else "other"
        series[key][row["day"]] = series[key].get(row["day"], 0) + row["n"]
        all_days.add(row["day"])
    ordered_days = sorted(all_days)
    bars = []
    for index, key in enumerate([*shown, "other"]):
        if key not in series:
            continue
        bars.append(
            {
                "type": "bar",
                "name": plot_text(legend_name(names.get(key, "other topics"))),
                "x": [day.isoformat() for day in ordered_days],
                "y": [series[key].get(day, 0) for day in ordered_days],
                # The rest are grey: a palette colour would repeat the first topic's.
                "marker": {"color": "#999999" if key == "other" else PALETTE[index]},
            }
        )
    largest = max(
        (sum(series[key].get(day, 0) for key in series) for day in ordered_days), default=0
    )
    over_time = {
        "data": bars,
        "layout": {
            **layout("day", "traces"),
            "barmode": "stack",
            "height": 380,
            "yaxis": count_axis(largest, "traces"),
        },
    }
    return {"topics_map": treemap, "topics_over_time": over_time}
