"""A tool loop built from spans, as the reading tests need it: a model call decides a call, its
tool span runs it, and the next model call is handed its result."""

from tests.factories import SpanFactory


def decided_then_handed_back(trace, tool_span: dict, handed_back: dict) -> None:
    """A model call that decides `lookup(id=A-1)` as call c1, the tool span, and a model call
    that is handed `handed_back` (an OpenAI tool message) for c1."""
    decision = {
        "role": "assistant",
        "tool_calls": [{"id": "c1", "function": {"name": "lookup", "arguments": '{"id": "A-1"}'}}],
    }
    task = {"role": "user", "content": "Where is A-1?"}
    SpanFactory(trace=trace, span_id="r", name="agent_run", kind="agent", position=0)
    SpanFactory(
        trace=trace,
        span_id="m1",
        parent_span_id="r",
        name="chat",
        kind="llm",
        input=[task],
        output=[decision],
        position=1,
    )
    SpanFactory(
        trace=trace,
        span_id="t",
        parent_span_id="r",
        kind="tool",
        tool_name="lookup",
        position=2,
        **tool_span,
    )
    SpanFactory(
        trace=trace,
        span_id="m2",
        parent_span_id="r",
        name="chat",
        kind="llm",
        input=[task, decision, {"role": "tool", "tool_call_id": "c1", **handed_back}],
        output=[{"role": "assistant", "content": "A-1 has shipped."}],
        position=3,
    )
