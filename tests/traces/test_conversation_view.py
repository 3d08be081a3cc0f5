"""Every user turn of a multi-turn conversation reaches the trace page, the judge and red flags."""

import re

import pytest

from metrics.redflags import check_hallucinated_parameters
from tests.factories import ProjectFactory
from tests.traces.pages import page_with_spans_opened
from tests.traces.test_real_shapes import openai_support_conversation
from traces.conversation_html import conversation_html
from traces.ingest.services import ingest_payload, ingest_span_tree
from traces.models import Span
from traces.serialize import trace_transcript

pytestmark = pytest.mark.django_db
XSS = "<img src=x onerror=alert(1)>"


def test_trace_page_shows_the_conversation_turn_by_turn_in_order(logged_in):
    # given
    trace = ingest_payload(ProjectFactory(), openai_support_conversation())
    # when
    body = page_with_spans_opened(logged_in, trace)
    # then: user turns as turns, in order, and the tool call as a call, not JSON
    first = body.index('role-user"><span class="turn-role">User</span>')
    # (the tree's first levels above quote the turns too: the order is read in the turns)
    assert body.index("I need to change my booking.", first) < body.index(
        "It is QX7P2L, move it to Friday.", first
    )
    assert "get_booking({&quot;code&quot;: &quot;QX7P2L&quot;})" in body
    assert "as sent</summary>" in body  # the raw value stays one click away


def test_conversation_text_is_escaped():
    html = conversation_html("Input", [{"role": "user", "content": XSS}])
    assert XSS not in html and "&lt;img src=x" in html


def test_langchain_and_openinference_messages_render_as_turns():
    langchain = [{"type": "human", "content": "hi"}, {"type": "ai", "content": "hello"}]
    openinference = [{"message": {"role": "user", "content": "book it"}}]
    assert re.findall(r"turn-role\">(\w+)", conversation_html("Input", langchain)) == [
        "User",
        "Assistant",
    ]
    assert "book it" in conversation_html("Input", openinference)
    assert conversation_html("Output", "plain text") == ""


def test_the_judge_transcript_has_every_user_turn_once_in_order():
    trace = ingest_payload(ProjectFactory(), openai_support_conversation())
    text = trace_transcript(trace)
    users = [line for line in text.splitlines() if line.startswith("USER: ")]
    assert users == ["USER: I need to change my booking.", "USER: It is QX7P2L, move it to Friday."]


def test_full_history_resent_on_each_call_shows_each_user_turn_once():
    # OTel model calls resend the whole history: the transcript must not repeat turns.
    history = [{"role": "user", "content": "Find flights"}]
    later = [
        *history,
        {"role": "assistant", "content": "Where to?"},
        {"role": "user", "content": "Oslo"},
    ]
    tree = {
        "name": "agent",
        "type": "agent",
        "children": [
            {"name": "chat", "type": "llm", "input": history, "output": "Where to?"},
            {"name": "chat", "type": "llm", "input": later, "output": "Booked Oslo."},
        ],
    }
    trace = ingest_span_tree(ProjectFactory(), tree)
    users = [x for x in trace_transcript(trace).splitlines() if x.startswith("USER: ")]
    assert users == ["USER: Find flights", "USER: Oslo"]


def test_a_value_the_user_gave_in_a_later_turn_is_no_hallucination():
    trace = ingest_payload(ProjectFactory(), openai_support_conversation())
    spans = list(Span.objects.filter(trace=trace).order_by("position"))
    assert list(check_hallucinated_parameters(trace, spans)) == []
