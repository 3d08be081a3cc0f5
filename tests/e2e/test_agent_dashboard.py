"""The agent dashboard in real Chromium: every chart is drawn by plotly, names stay text."""

from datetime import timedelta

import pytest
from django.utils import timezone

from insights.agent_dashboard import AGENT_DASHBOARD
from tests.e2e.conftest import login_as
from tests.factories import SpanFactory, TraceFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
XSS = "<img src=x onerror=alert(1)>"


def test_every_chart_is_drawn_and_agent_names_never_run(
    new_page, annotator, process_local_insights_cache
):
    # given three days of an agent's traces, one version named with markup
    now = timezone.now()
    for n in range(12):
        start = now - timedelta(days=n % 3, minutes=n)
        trace = TraceFactory(
            agent_version=XSS if n % 4 == 0 else "2.1.0",
            model="claude-haiku-4-5" if n % 2 else "gpt-4o",
            started_at=start,
            ended_at=start + timedelta(seconds=3 + n),
            input_tokens=1000 + n,
            output_tokens=80,
            cost_usd=0.01 * n,
            error_count=n % 5 == 0,
        )
        SpanFactory(trace=trace, tool_name="issue_refund", status="error" if n % 3 else "ok")
    page = new_page()
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    login_as(page, annotator)
    # when
    page.goto("/insights/agent/")
    page.wait_for_selector("[data-chart][data-rendered=true]")
    page.wait_for_function(
        "document.querySelectorAll('[data-chart][data-rendered=true]').length"
        f" === {len(AGENT_DASHBOARD.builders)}"
    )
    # then every chart has drawn marks, the markup shows as a legend text, and nothing ran
    for key in AGENT_DASHBOARD.builders:
        assert page.locator(f"#chart-{key} .main-svg").count() >= 1, key
        drawn = page.locator(f"#chart-{key}").locator(".trace, .bars, .scatterlayer path")
        assert drawn.count() >= 1, key
    assert page.locator("img[src=x]").count() == 0
    assert dialogs == []
    assert page.console_errors == []
