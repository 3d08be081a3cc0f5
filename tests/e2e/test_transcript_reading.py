"""A transcript trace reads as the conversation it was: tools as a list, turns as turns."""

import copy

import pytest

from tests.e2e.conftest import login_as
from tests.factories import ProjectFactory
from tests.traces.test_ingest_transcripts import OPENAI
from traces.ingest.services import ingest_payload

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SEARCH_HOTELS = {
    "type": "function",
    "function": {
        "name": "search_hotels",
        "description": "Search hotels in a city for given dates.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name"},
                "check_in": {"type": "string", "format": "date"},
                "nights": {"type": "integer"},
            },
            "required": ["city", "check_in"],
        },
    },
}


def test_tools_and_model_turns_read_as_lists_and_turns_with_raw_json_a_click_away(
    new_page, annotator
):
    # given an OpenAI transcript that offered one tool
    trace = ingest_payload(ProjectFactory(), {**copy.deepcopy(OPENAI), "tools": [SEARCH_HOTELS]})
    page = new_page()
    login_as(page, annotator)
    # when
    page.goto(f"/traces/{trace.pk}/")
    # then the tool is listed by name with its parameters, not as a Python repr
    tools = page.locator("#trace-tools")
    assert tools.locator(".tool-name").all_inner_texts() == ["search_hotels"]
    params = tools.locator(".tool-params li").all_inner_texts()
    assert params[0].startswith("city string") and "required" in params[0]
    assert params[1].startswith("check_in string (date)")
    assert "'type'" not in page.locator(".trace-summary").inner_text()
    # and the JSON as sent is one click away
    raw = page.locator("#trace-tools-raw")
    assert not raw.locator("pre").is_visible()
    raw.locator("summary").click()
    assert '"parameters"' in raw.locator("pre").inner_text()
    # the model turns read as the conversation: role, text, the call by name with arguments
    turn = page.locator(".span-node.kind-llm").first
    head = turn.locator(".span-body > .span-io").all_inner_texts()
    assert head[0] == "INPUT system You book travel. · user Find me a hotel in Porto for 3 " + (
        "nights from 2 June."
    )
    assert (
        head[1] == "OUTPUT assistant → search_hotels(city: Porto, check_in: 2026-06-02, nights: 3)"
    )
    assert "[{" not in " ".join(head) and "tool_calls" not in " ".join(head)
    # and the message JSON as sent is one click away in the whole span
    turn.locator(".span-full > summary").first.click()
    sent = turn.locator(".span-raw").last
    sent.wait_for()
    sent.locator("summary").click()
    assert '"tool_calls"' in sent.locator("pre").inner_text()
    assert page.console_errors == []
