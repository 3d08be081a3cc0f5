"""The trace page names the spans whose usage was not counted and each merged call's raw spans,
each one click away."""

import os

import pytest

from accounts.roles import ANNOTATOR
from tests.e2e.conftest import login_as
from tests.factories import UserFactory
from tests.traces.shape_spans import Recorder, send
from traces.models import Span, Trace

pytestmark = pytest.mark.django_db(transaction=True)

USAGE = {"gen_ai.request.model": "gpt-4o-mini", "gen_ai.usage.input_tokens": 100}


def _trace():
    recorder = Recorder()
    with recorder.span("invoke_agent helper", {"gen_ai.operation.name": "invoke_agent"}):
        with recorder.chain(
            ("call_llm", {**USAGE, "gen_ai.operation.name": "call_llm"}),
            ("openai.chat", {**USAGE, "gen_ai.system": "openai"}),
        ):
            pass
        for event in ("start", "success", "finish"):
            attributes = {"tool.parameters": '{"city": "Lyon"}'}
            if event == "success":
                attributes["output.value"] = '{"temp": 21}'
            with recorder.span(f"tool.get_weather.{event}-1", attributes):
                pass
    send(recorder.spans())
    return Trace.objects.get()


def test_merged_call_and_uncounted_usage_link_to_their_spans(new_page):
    trace = _trace()
    page = new_page()
    page.set_viewport_size({"width": 1400, "height": 900})
    login_as(page, UserFactory(roles=[ANNOTATOR]))
    page.goto(f"/traces/{trace.pk}/")
    usage = page.locator("#usage-counted")
    assert "call_llm" in usage.inner_text() and "openai.chat" in usage.inner_text()
    merged = page.locator("#merged-calls")
    assert merged.locator("a").count() == 4  # the carrier, then its three raw spans
    if os.environ.get("EVALSITE_SCREENSHOTS"):
        page.screenshot(path=os.path.join(os.environ["EVALSITE_SCREENSHOTS"], "merged.png"))
    start = Span.objects.get(name="tool.get_weather.start-1")
    merged.locator("a", has_text="tool.get_weather.start-1").click()
    page.wait_for_url(f"**span={start.span_id}*")
    assert page.locator(f"#span-{start.span_id}").count() == 1
    assert page.console_errors == []
