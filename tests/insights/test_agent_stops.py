"""The agent dashboard's stop-reason chart: each provider's spelling counted as one kind."""

import pytest

from insights.agent_stops import agent_stop_reason_chart, stop_kind_rows
from tests.insights.test_agent_dashboard import agent_trace

pytestmark = pytest.mark.django_db


def test_stops_are_counted_per_day_by_kind_whatever_the_spelling():
    # given today: two clean stops, three truncated ones in three spellings, one refusal
    for reason in ("end_turn", "stop", "max_tokens", "length", "MAX_TOKENS", "content_filter"):
        agent_trace(stop_reason=reason)
    agent_trace(day=1, stop_reason="")
    # when
    rows = stop_kind_rows()
    # then
    today = {row["stop_kind"]: row["traces"] for row in rows if row["day"] == rows[-1]["day"]}
    assert today == {"completed": 2, "truncated": 3, "refused": 1}
    assert {"day": rows[0]["day"], "stop_kind": "not stated", "traces": 1} in rows
    chart = agent_stop_reason_chart()
    names = [series["name"] for series in chart.figure["data"]]
    assert names == ["Completed", "Truncated (token limit)", "Refused or filtered", "Not stated"]
    assert chart.note.startswith("4 of 7 traces stopped truncated, refused")
