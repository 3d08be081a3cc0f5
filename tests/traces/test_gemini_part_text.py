"""A Gemini part written as its str(), results named by their call in order, and a model call's
reply told only by the next call's history (OpenLLMetry's Gemini instrumentation)."""

from dataclasses import dataclass

from metrics.steps import calls_told
from traces.messages import messages_read
from traces.models import SpanKind
from traces.part_text import part_text_read
from traces.untold_replies import replies_untold, reply_missing

CALL_STR = (
    "media_resolution=None code_execution_result=None function_call=FunctionCall(\n"
    "  args={\n    'city': 'Oslo (west)'\n  },\n  name='forecast'\n) function_response=None "
    "text=None thought=None"
)
RESPONSE_STR = (
    "function_call=None function_response=FunctionResponse(\n  name='forecast',\n"
    "  response={\n    'error': 'no station'\n  },\n"
    "  scheduling=<FunctionResponseScheduling.SILENT: 'SILENT'>,\n  parts=[Blob(data=b'')]\n"
    ") text=None"
)


def test_a_part_str_reads_as_its_call_or_response():
    assert part_text_read(CALL_STR) == {
        "function_call": {"args": {"city": "Oslo (west)"}, "name": "forecast"}
    }
    # an enum member reads as its value; a nested object that is no literal is left out
    assert part_text_read(RESPONSE_STR) == {
        "function_response": {
            "name": "forecast",
            "response": {"error": "no station"},
            "scheduling": "SILENT",
        }
    }
    for text in (
        "Call function_call=FunctionCall(name='x') to start",  # prose: no field opens it
        "function_call=FunctionCall(name='x'",  # cut short
        "function_call=FunctionCall(args={'a': 1})",  # names no function
        "text='hi' function_call=None",
    ):
        assert part_text_read(text) is None, text


def test_parts_as_str_read_as_a_call_and_its_failed_result():
    messages = messages_read(
        [
            {"role": "user", "content": [{"type": "text", "text": "Weather in Oslo?"}]},
            {"role": "model", "content": [{"type": "text", "text": CALL_STR}]},
            {"role": "user", "content": [{"type": "text", "text": RESPONSE_STR}]},
        ]
    )
    call, result = messages[1].tool_calls[0], messages[2].tool_results[0]
    assert (call.name, call.arguments) == ("forecast", {"city": "Oslo (west)"})
    assert messages[1].text == ""
    assert (result.name, result.content, result.is_error) == ("forecast", "no station", True)


def test_results_without_id_or_name_are_named_by_their_calls_in_order():
    def call(name):
        return {"type": "tool_call", "id": "", "name": name, "arguments": {}}

    def response(text):
        return {"type": "tool_call_response", "id": "", "response": text}

    messages = messages_read(
        [
            {"role": "assistant", "parts": [call("a"), call("b")]},
            {"role": "user", "parts": [response("1"), response("2")]},
            {"role": "assistant", "parts": [{**call("c"), "id": "call_9"}]},
            {"role": "user", "parts": [response("3")]},  # its call has an id: not paired
        ]
    )
    assert [r.name for m in messages for r in m.tool_results] == ["a", "b", ""]


@dataclass
class FakeSpan:
    span_id: str
    input: object
    output: object
    kind: str = SpanKind.LLM
    parent_span_id: str = ""


ASK = {"role": "user", "content": "Weather in Oslo?"}
DECIDED = {
    "role": "assistant",
    "content": [{"type": "tool_call", "id": "", "name": "forecast", "arguments": {"city": "Oslo"}}],
}
TOLD = {"role": "user", "content": [{"type": "tool_call_response", "id": "", "response": "9C"}]}


def test_a_reply_not_recorded_is_read_from_the_next_history():
    first = FakeSpan("1", [ASK], [{"role": "assistant", "content": "None"}])
    second = FakeSpan("2", [ASK, DECIDED, TOLD], [{"role": "assistant", "content": "9C."}])
    assert reply_missing(first.output) and reply_missing(None) and reply_missing([])
    assert not reply_missing(second.output)
    assert not reply_missing([{"role": "assistant", "content": "None", "tool_calls": [{}]}])
    assert replies_untold([first, second])["1"].tool_calls[0].name == "forecast"
    [(span, call, result)] = calls_told([first, second])
    assert (span.span_id, call.name, result.content) == ("1", "forecast", "9C")
    # a reply recorded is its own; another conversation's history tells nothing
    assert replies_untold([FakeSpan("1", [ASK], [DECIDED]), second]) == {}
    other = FakeSpan("2", [{"role": "system", "content": "x"}, DECIDED, TOLD], None)
    assert replies_untold([first, other]) == {}
