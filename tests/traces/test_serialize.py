"""traces.serialize: what the judge reads."""

import json

import pytest

from tests.factories import ProjectFactory, SpanFactory, TraceFactory
from tests.traces.test_ingest_span_tree import refund_tree
from tests.traces.tool_loop import decided_then_handed_back
from traces.ingest.services import ingest_span_tree
from traces.serialize import trace_span_tree, trace_transcript, tree_json

pytestmark = pytest.mark.django_db


def test_span_tree_reads_the_mapped_fields_with_task_and_answer_on_top():
    trace = ingest_span_tree(ProjectFactory(), refund_tree())
    tree = trace_span_tree(trace)
    assert tree["task"] == "Refund order A1042, it arrived broken."
    assert tree["final_answer"].startswith("I've refunded order A1042")
    assert tree["stop_reason"] == "end_turn (completed)"
    assert tree["name"] == "invoke_agent support" and tree["step"] == 1
    chat, lookup, refund = tree["children"]
    assert (chat["name"], chat["step"], chat["model"]) == (
        "chat claude-sonnet-4-5",
        2,
        "claude-sonnet-4-5",
    )
    assert chat["output"] == "I'll look the order up."
    assert lookup == {
        "step": 3,
        "name": "lookup_order",
        "type": "tool",
        "call_id": "toolu_01",
        "arguments": {"order_id": "A1042"},
        "result": {"status": "delivered", "total": 59.0},
    }
    assert refund["error"] == "PaymentGatewayTimeout after 30s"
    assert refund["arguments"] == {"order_id": "A1042", "amount": 59.0}
    assert tree["available_tools"] == [{"name": "lookup_order"}, {"name": "issue_refund"}]
    transcript = trace_transcript(trace)
    assert "[step 4] TOOL ERROR issue_refund: PaymentGatewayTimeout after 30s" in transcript
    assert '[step 3] TOOL CALL lookup_order (call_id toolu_01): {"order_id": "A1042"}' in transcript
    assert transcript.endswith("STOP REASON: end_turn (completed)")


def test_a_tool_called_twice_is_labelled_by_call_and_spans_keep_their_name_aside():
    trace = TraceFactory(task="Check A-1")
    SpanFactory(trace=trace, span_id="r", name="agent_run", kind="agent", position=0)
    for index in (1, 2):
        SpanFactory(
            trace=trace,
            span_id=f"t{index}",
            parent_span_id="r",
            name="tool_call",
            kind="tool",
            tool_name="get_order_status",
            input={"order_id": "A-1"},
            position=index,
        )
    tree = trace_span_tree(trace)
    assert [(c["name"], c["span_name"]) for c in tree["children"]] == [
        ("get_order_status#1", "tool_call"),
        ("get_order_status#2", "tool_call"),
    ]


def test_a_model_call_shows_only_what_is_new_in_its_input():
    trace = TraceFactory(task="Move my booking")
    history = [{"role": "user", "content": "Move my booking"}]
    SpanFactory(
        trace=trace, span_id="a", kind="llm", input=history, output="Which day?", position=0
    )
    history = [*history, {"role": "assistant", "content": "Which day?"}]
    history.append({"role": "user", "content": "Friday"})
    SpanFactory(trace=trace, span_id="b", kind="llm", input=history, output="Moved.", position=1)
    tree = trace_span_tree(trace)
    first, second = tree["children"]
    assert "new_input" not in first
    assert second["new_input"] == [{"role": "user", "text": "Friday"}]
    assert second["output"] == "Moved."


def test_cyclic_parents_still_serialize():
    trace = TraceFactory()
    SpanFactory(trace=trace, span_id="a", parent_span_id="b", position=0)
    SpanFactory(trace=trace, span_id="b", parent_span_id="a", position=1)
    tree = trace_span_tree(trace)
    assert json.dumps(tree).count('"name"') == 2


def test_the_judges_json_is_one_line_a_step_and_reads_back_whole():
    trace = ingest_span_tree(ProjectFactory(), refund_tree())
    tree = trace_span_tree(trace)
    text = tree_json(tree)
    assert json.loads(text) == tree
    lines = text.splitlines()
    assert lines[1].startswith(' "task": "Refund order A1042')
    assert any(line.startswith('  {"step": 3, "name": "lookup_order"') for line in lines)
    assert len(lines) < json.dumps(tree, indent=1).count("\n") / 3


def _model_call_running_tools_inside_it() -> dict:
    """A model call that ran its tools inside it (the Google Gen AI SDK's automatic function
    calling): its span wraps the loop, and its reply is the last one, given after the tools."""
    return {
        "name": "support run",
        "type": "agent",
        "input": "Refund order A1042, it arrived broken.",
        "children": [
            {
                "name": "generate_content gemini-2.0-flash",
                "type": "llm",
                "input": [{"role": "user", "content": "Refund order A1042, it arrived broken."}],
                "output": "Refunded 59.00 EUR for order A1042.",
                "attributes": {"gen_ai.response.finish_reasons": ["stop"]},
                "children": [
                    {
                        "name": "lookup_order",
                        "type": "tool",
                        "input": {"order_id": "A1042"},
                        "output": {"total": 59.0},
                    },
                    {
                        "name": "issue_refund",
                        "type": "tool",
                        "status": "error",
                        "input": {"order_id": "A1042"},
                        "error": "PaymentGatewayTimeout",
                    },
                ],
            }
        ],
    }


def test_a_step_ends_after_the_steps_inside_it_in_the_judges_json_and_transcript():
    trace = ingest_span_tree(ProjectFactory(), _model_call_running_tools_inside_it())
    tree = trace_span_tree(trace)
    text = tree_json(tree)
    assert json.loads(text) == tree
    # the model's reply, and why it stopped, follow the tool steps it ran
    call_line = next(line for line in text.splitlines() if '"step": 2' in line)
    assert '"output"' not in call_line and '"finish_reason"' not in call_line
    closing = text.index('], "output": "Refunded 59.00 EUR')
    assert text.index('"name": "issue_refund"') < closing
    assert text.index('"finish_reason": "completed"') > closing
    transcript = trace_transcript(trace).splitlines()
    assert [line.split(":")[0] for line in transcript[1:-2]] == [
        "[step 3] TOOL CALL lookup_order",
        "[step 3] TOOL RESULT lookup_order",
        "[step 4] TOOL CALL issue_refund",
        "[step 4] TOOL ERROR issue_refund",
        "[step 2] generate_content gemini-2.0-flash OUTPUT",
        "[step 2] generate_content gemini-2.0-flash STOPPED",
    ]


def test_a_steps_output_that_only_repeats_a_step_inside_it_is_read_once():
    trace = TraceFactory(task="Check A-1", final_answer="A-1 is on its way.")
    decided = [
        {
            "role": "assistant",
            "tool_calls": [{"id": "c1", "name": "get_order_status", "arguments": {"id": "A-1"}}],
        }
    ]
    said = [{"role": "assistant", "content": "Checking A-1 and A-2 next."}]
    SpanFactory(trace=trace, span_id="r", name="agent_run", kind="agent", position=0)
    for index, (name, output) in enumerate((("cycle#1", decided), ("cycle#2", said)), start=1):
        SpanFactory(
            trace=trace,
            span_id=f"c{index}",
            parent_span_id="r",
            name=name,
            kind="custom",
            output=output if index == 1 else [*said, {"role": "assistant", "content": "Done."}],
            position=2 * index - 1,
        )
        SpanFactory(
            trace=trace,
            span_id=f"m{index}",
            parent_span_id=f"c{index}",
            name="chat",
            kind="llm",
            output=output,
            position=2 * index,
        )
    first, second = trace_span_tree(trace)["children"]
    # the cycle that only repeats its model call's reply shows no output of its own
    assert "output" not in first
    assert first["children"][0]["output"][0]["tool_calls"][0]["tool"] == "get_order_status"
    # one that says more than the calls inside it keeps what it said
    assert [m.get("text") for m in second["output"]] == ["Checking A-1 and A-2 next.", "Done."]


def test_a_steps_output_that_repeats_a_call_its_model_call_gave_without_id_is_read_once():
    # OpenInference JS: the model call's flattened reply names no call id, the node's does
    trace = TraceFactory(task="Check A-1", final_answer="A-1 is on its way.")
    call = {"name": "get_order_status", "arguments": {"id": "A-1"}}
    SpanFactory(trace=trace, span_id="r", name="agent_run", kind="agent", position=0)
    SpanFactory(
        trace=trace,
        span_id="c",
        parent_span_id="r",
        name="agent",
        kind="custom",
        output=[{"role": "assistant", "tool_calls": [{"id": "c1", **call}]}],
        position=1,
    )
    SpanFactory(
        trace=trace,
        span_id="m",
        parent_span_id="c",
        name="chat",
        kind="llm",
        output=[{"role": "assistant", "tool_calls": [call]}],
        position=2,
    )
    (node,) = trace_span_tree(trace)["children"]
    assert "output" not in node
    assert node["children"][0]["output"][0]["tool_calls"][0]["tool"] == "get_order_status"


def test_a_tool_message_read_as_text_that_its_tool_step_showed_is_not_shown_again():
    trace = TraceFactory(task="Check A-1", final_answer="Sorry.")
    told = "Error: no such order\n Please fix your mistakes."
    SpanFactory(trace=trace, span_id="r", name="agent_run", kind="agent", position=0)
    SpanFactory(
        trace=trace,
        span_id="t",
        parent_span_id="r",
        name="lookup",
        kind="tool",
        tool_name="lookup",
        output=told,
        position=1,
    )
    history = [
        {"role": "user", "content": "Check A-1"},
        {"role": "tool", "content": told},
        {"role": "tool", "content": "a note no tool step gave"},
    ]
    SpanFactory(
        trace=trace,
        span_id="m",
        parent_span_id="r",
        name="chat",
        kind="llm",
        input=history,
        output=[{"role": "assistant", "content": "Sorry."}],
        position=2,
    )
    _, call = trace_span_tree(trace)["children"]
    assert call["new_input"] == [{"role": "tool", "text": "a note no tool step gave"}]


def test_steps_that_log_the_fields_a_dspy_reply_parsed_to_do_not_repeat_it():
    trace = TraceFactory(task="Refund R-1", final_answer="Refunded R-1.")
    reply = (
        "[[ ## next_thought ## ]]\nLook it up.\n\n[[ ## next_tool_name ## ]]\nlookup_order\n\n"
        '[[ ## next_tool_args ## ]]\n{"order_id": "R-1"}\n\n[[ ## completed ## ]]'
    )
    parsed = {
        "next_thought": "Look it up.",
        "next_tool_name": "lookup_order",
        "next_tool_args": {"order_id": "R-1"},
    }
    SpanFactory(trace=trace, span_id="r", name="ReAct.forward", kind="custom", position=0)
    layers = [("p", "r", "Predict(StringSignature).forward", parsed)]
    layers += [("a", "p", "ChatAdapter.__call__", [parsed])]
    for position, (span_id, parent, name, output) in enumerate(layers, start=1):
        SpanFactory(
            trace=trace,
            span_id=span_id,
            parent_span_id=parent,
            name=name,
            kind="custom",
            output=output,
            position=position,
        )
    SpanFactory(
        trace=trace,
        span_id="m",
        parent_span_id="a",
        name="LM.__call__",
        kind="llm",
        output=[{"role": "assistant", "content": reply}],
        position=3,
    )
    (predict,) = trace_span_tree(trace)["children"]
    (adapter,) = predict["children"]
    assert "output" not in predict and "output" not in adapter
    assert adapter["children"][0]["output"] == [{"role": "assistant", "text": reply}]
    # fields that differ from the reply's are what the step made of it: kept
    other = TraceFactory(task="Refund R-1", final_answer="Refunded R-1.")
    SpanFactory(
        trace=other,
        span_id="a",
        name="ChatAdapter.__call__",
        kind="custom",
        position=0,
        output=[{**parsed, "next_tool_name": "refund"}],
    )
    SpanFactory(
        trace=other,
        span_id="m",
        parent_span_id="a",
        name="LM.__call__",
        kind="llm",
        output=[{"role": "assistant", "content": reply}],
        position=1,
    )
    assert trace_span_tree(other)["output"] == [{**parsed, "next_tool_name": "refund"}]


def test_a_traceback_a_model_was_shown_reads_as_its_exception_line():
    trace = TraceFactory(task="Refund R-1", final_answer="Refunded R-1.")
    told = (
        "[[ ## observation_0 ## ]]\nExecution error in lookup_order: \n"
        "Traceback (most recent call last):\n"
        '  File "/srv/venv/dspy/predict/react.py", line 113, in forward\n'
        "    observation = tool(**args)\n"
        "                  ^^^^^^^^^^^^\n"
        "ConnectionError: order service unavailable\n\nRespond with the fields."
    )
    SpanFactory(trace=trace, span_id="r", name="ReAct.forward", kind="custom", position=0)
    SpanFactory(
        trace=trace,
        span_id="c",
        parent_span_id="r",
        name="Predict.forward",
        kind="custom",
        input={"trajectory": told, "demos": []},
        position=1,
    )
    SpanFactory(
        trace=trace,
        span_id="m",
        parent_span_id="c",
        name="LM.__call__",
        kind="llm",
        input=[{"role": "user", "content": told}],
        output="ok",
        position=2,
    )
    reading = tree_json(trace_span_tree(trace))
    assert "Traceback" not in reading and "/srv/venv" not in reading
    shown = "Execution error in lookup_order: \\nConnectionError: order service unavailable"
    assert reading.count(shown) == 2  # the chain's input and the model call's


def _call_after_tool_step(tool: dict, handed: dict, reply: str) -> dict:
    """The model call of a run whose tool step (its span's `tool` fields) came first, handed
    `handed` after the task and answering `reply`."""
    trace = TraceFactory(task="Where is A-1?")
    SpanFactory(trace=trace, span_id="r", name="agent_run", kind="agent", position=0)
    SpanFactory(trace=trace, span_id="t", parent_span_id="r", kind="tool", position=1, **tool)
    SpanFactory(
        trace=trace,
        span_id="m",
        parent_span_id="r",
        name="chat",
        kind="llm",
        input=[{"role": "user", "content": "Where is A-1?"}, handed],
        output=[{"role": "assistant", "content": reply}],
        position=2,
    )
    _, call = trace_span_tree(trace)["children"]
    return call


@pytest.mark.parametrize(
    ("handed_back", "read_again"),
    [
        ({"result": '{"status": "shipped"}'}, False),  # Google ADK's function_response
        ({"status": "shipped"}, False),
        ({"result": '{"status": "lost"}'}, True),  # not what the tool returned: the judge sees it
    ],
)
def test_a_tool_result_handed_back_to_the_model_is_read_on_its_tool_step(handed_back, read_again):
    tool = {
        "name": "get_order_status",
        "tool_name": "get_order_status",
        "input": {"id": "A-1"},
        "output": {"status": "shipped"},
    }
    handed = {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "c1", "content": json.dumps(handed_back)}
        ],
    }
    call = _call_after_tool_step(tool, handed, "A-1 has shipped.")
    assert ("new_input" in call) is read_again


@pytest.mark.parametrize(("handed_back", "read_again"), [("down", False), ("up", True)])
def test_a_failed_calls_error_handed_back_to_the_model_is_read_on_its_tool_step(
    handed_back, read_again
):
    # Haystack's tool step reads its failure as `{"error": ...}`; the model is told the text
    tool = {
        "name": "lookup",
        "tool_name": "lookup",
        "input": {"id": "A-1"},
        "output": {"error": "down"},
        "status": "error",
        "error_message": "down",
    }
    result = {"result": handed_back, "origin": {"tool_name": "lookup", "id": "c1"}, "error": True}
    handed = {"role": "tool", "content": [{"tool_call_result": result}]}
    call = _call_after_tool_step(tool, handed, "A-1 cannot be looked up.")
    assert ("new_input" in call) is read_again


def test_a_model_call_reported_by_several_layers_reads_as_one_step():
    trace = TraceFactory(task="Where is A-1?")
    reply = [{"role": "assistant", "content": "A-1 has shipped."}]
    layers = [
        # a framework's span with the content over the provider SDK's span without it
        ("outer", "", "call_llm", reply),
        ("inner", "outer", "openai.chat", None),
        # a framework's bare span over the provider SDK's span with the content
        ("bare", "", "generate_content", None),
        ("sdk", "bare", "openai.chat", reply),
        # a model call that recorded no content, alone: still a step
        ("alone", "", "chat", None),
    ]
    SpanFactory(trace=trace, span_id="r", name="agent_run", kind="agent", position=0)
    for position, (span_id, parent, name, output) in enumerate(layers, start=1):
        SpanFactory(
            trace=trace,
            span_id=span_id,
            parent_span_id=parent or "r",
            name=name,
            kind="llm",
            model="gpt-4o-mini",
            input=None,
            output=output,
            position=position,
        )
    tree = trace_span_tree(trace)
    assert [(c["step"], c["name"], "children" in c) for c in tree["children"]] == [
        (2, "call_llm", False),
        (5, "openai.chat#2", False),
        (6, "chat", False),
    ]


@pytest.mark.parametrize(
    ("outer_output", "inner_outputs", "folded"),
    [
        # the provider library's span inside the framework's, the same request and reply
        ("A-1 has shipped.", ["A-1 has shipped."], True),
        # the framework's span logs the request alone, the provider's the reply
        (None, ["A-1 has shipped."], True),
        # two calls inside one (a retry): each read as itself
        ("A-1 has shipped.", ["A-1 is lost.", "A-1 has shipped."], False),
        # a reply other than the one the outer span reports: not the same call
        ("A-1 has shipped.", ["A-1 is lost."], False),
    ],
    ids=["same-call", "request-outside-reply-inside", "retried", "other-reply"],
)
def test_a_model_call_inside_a_model_call_that_repeats_it_reads_as_one_step(
    outer_output, inner_outputs, folded
):
    trace = TraceFactory(task="Where is A-1?")
    asked = [
        {"role": "system", "content": "You answer order questions."},
        {"role": "user", "content": "Where is A-1?"},
    ]
    SpanFactory(trace=trace, span_id="r", name="agent_run", kind="agent", position=0)
    SpanFactory(
        trace=trace,
        span_id="outer",
        parent_span_id="r",
        name="LM.__call__",
        kind="llm",
        model="gpt-4o-mini",
        input=asked,
        output=outer_output and [{"role": "assistant", "content": outer_output}],
        position=1,
    )
    for position, text in enumerate(inner_outputs, start=2):
        SpanFactory(
            trace=trace,
            span_id=f"inner{position}",
            parent_span_id="outer",
            name="completion",
            kind="llm",
            model="gpt-4o-mini",
            input=asked,
            output=[{"role": "assistant", "content": text}],
            attributes={"llm.finish_reason": "stop"},
            position=position,
        )
    (call,) = trace_span_tree(trace)["children"]
    assert (call["name"], call["new_input"][0]["text"]) == (
        "LM.__call__",
        "You answer order questions.",
    )
    if folded:
        # one step: the outer span's name and place, the request once, the reply once, and
        # what only the inner span says (why the model stopped)
        assert "children" not in call
        assert call["output"] == [{"role": "assistant", "text": "A-1 has shipped."}]
        assert call["finish_reason"] == "completed"
    else:
        assert [inner["name"] for inner in call["children"]] == [
            "completion" if len(inner_outputs) == 1 else f"completion#{n}"
            for n in range(1, len(inner_outputs) + 1)
        ]
        assert "finish_reason" not in call


def test_framework_objects_logged_as_reprs_read_as_their_class_and_plain_fields():
    history = ", ".join(
        f"ChatMessage(role=<MessageRole.USER: 'user'>, blocks=[TextBlock(text='turn {n}')])"
        for n in range(3)
    )
    trace = TraceFactory(task="Refund R-1", final_answer="Done.")
    SpanFactory(trace=trace, span_id="r", name="run", kind="agent", position=0, input=None)
    steps = [
        # a workflow event carrying the history, and the workflow's context object
        (
            "s1",
            {"ctx": "<app.Context object at 0x7f96a1>", "ev": f"Setup(input=[{history}], n='a')"},
        ),
        # the run's serialized state at its start
        ("s2", {"init_state": {"queue": [history]}, "start": "StartEvent()"}),
        # a repr cut short by the instrumentation
        ("s3", f"StopEvent(result=Output(response={history[:90]}..."),
        # short reprs are read as they are
        ("s4", "ToolCall(tool_name='refund', tool_kwargs={'id': 'R-1'})"),
    ]
    for position, (span_id, value) in enumerate(steps, start=1):
        SpanFactory(
            trace=trace,
            span_id=span_id,
            parent_span_id="r",
            name=span_id,
            kind="custom",
            input=value,
            output=None,
            position=position,
        )
    read = {child["name"]: child["input"] for child in trace_span_tree(trace)["children"]}
    assert read == {
        "s1": {"ev": "Setup(n='a')"},
        "s2": {"start": "StartEvent()"},
        "s3": "StopEvent()",
        "s4": "ToolCall(tool_name='refund', tool_kwargs={'id': 'R-1'})",
    }


def test_message_reprs_under_a_message_list_key_read_as_the_messages_they_are():
    # Haystack's ChatPromptBuilder under OpenInference: `{"prompt": [<ChatMessage repr>]}`
    system = "You are a support agent. Look the order up before refunding it."
    message = (
        f"ChatMessage(_role=<ChatRole.SYSTEM: 'system'>, _content=[TextContent(text='{system}')],"
        " _name=None, _meta={})"
    )
    trace = TraceFactory(task="Refund R-1", final_answer="Done.")
    SpanFactory(trace=trace, span_id="r", name="run", kind="agent", position=0, input=None)
    SpanFactory(
        trace=trace,
        span_id="b",
        parent_span_id="r",
        name="ChatPromptBuilder.run",
        kind="custom",
        input=None,
        output={"prompt": [message]},
        position=1,
    )
    (builder,) = trace_span_tree(trace)["children"]
    assert builder["output"] == [{"role": "system", "text": system}]


def test_a_pydantic_models_str_reads_as_its_plain_fields():
    tool = (
        "name='refund' description='Refund an order, in full or in part.' env_vars=[] "
        "args_schema=<class 'tools.Refund'> cache_function=<function cache at 0x7f67259ff6a0> "
        "result_as_answer=False max_usage_count=None func=<function refund at 0x7f6714ceb1a0>"
    )
    prose = "note=the customer asked twice, and the agent answered with the same refund id again"
    trace = TraceFactory(task="Refund R-1", final_answer="Done.")
    SpanFactory(
        trace=trace, span_id="a", kind="agent", position=0, input={"tools": [tool], "why": prose}
    )
    assert trace_span_tree(trace)["input"] == {
        "tools": ["name='refund' description='Refund an order, in full or in part.'"],
        "why": prose,  # text that only opens like a field is read as it is
    }


@pytest.mark.parametrize(
    ("message", "read"),
    [
        (
            "Down('no stock')Traceback (most recent call last):\n  File \"a.py\"\nDown: x",
            "Down('no stock')",
        ),
        (
            "Traceback (most recent call last):\n  File \"/srv/a.py\", line 3\nKeyError: 'sku'\n",
            "KeyError: 'sku'",
        ),
        ("timeout after 30 s", "timeout after 30 s"),
        ("", "error"),
        # OpenInference JS: the message, then the JavaScript stack repeating it
        (
            "no such order\n\nError: no such order\n    at lookup (file:///srv/run.mjs:3:9)\n"
            "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
            "no such order",
        ),
        ("TypeError: x is undefined\n    at f (file:///srv/a.js:1:2)", "TypeError: x is undefined"),
        ("what the agent looked at\n    atlas", "what the agent looked at\n    atlas"),
    ],
)
def test_a_steps_error_reads_without_the_traceback_appended_to_it(message, read):
    from traces.reading import error_read

    assert error_read(message) == read


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ('Execution logs:\n{"ok": 1}\nLast output from code snippet:\nNone', ['{"ok": 1}']),
        ("Execution logs:\nLast output from code snippet:\nDone.", ["Done."]),
        ("Execution logs:\na\nb\n\nLast output from code snippet:\n3", ["a", "b", "3"]),
        ("Observation: 3", None),
    ],
)
def test_a_code_runs_observation_reads_as_the_values_in_it(text, parts):
    from traces.reading import code_run_parts

    assert code_run_parts(text) == parts


def test_a_tool_span_that_records_only_its_call_id_reads_the_call_and_its_result():
    # AutoGen's own `execute_tool` span: tool name and call id, no arguments and no result
    trace = TraceFactory(task="Where is A-1?")
    decided_then_handed_back(
        trace,
        {"name": "execute_tool lookup", "tool_call_id": "c1", "input": None, "output": None},
        {"content": '{"status": "shipped"}'},
    )
    _, tool, answer = trace_span_tree(trace)["children"]
    assert (tool["arguments"], tool["result"]) == ({"id": "A-1"}, {"status": "shipped"})
    assert "error" not in tool
    assert "new_input" not in answer  # the result, read once on its tool step
    # a span of another call id is left without what it did not record
    other = TraceFactory(task="Where is A-1?")
    decided_then_handed_back(
        other,
        {"name": "execute_tool lookup", "tool_call_id": "c9", "input": None, "output": None},
        {"content": '{"status": "shipped"}'},
    )
    _, tool, answer = trace_span_tree(other)["children"]
    assert "arguments" not in tool and "result" not in tool
    assert answer["new_input"] == [
        {"role": "tool", "tool_results": [{"call_id": "c1", "result": {"status": "shipped"}}]}
    ]


@pytest.mark.parametrize(
    ("handed_back", "error"),
    [
        ({"content": "order service down", "is_error": True}, "order service down"),
        ({"content": "order service down"}, None),
    ],
)
def test_a_result_handed_back_as_an_error_marks_its_tool_step_failed(handed_back, error):
    # OpenInference's AgentChat tool span stays OK when the tool raised: the failure is told
    # only in the result the next model call is handed, `is_error`
    trace = TraceFactory(task="Where is A-1?")
    decided_then_handed_back(
        trace,
        {"name": "support.lookup", "input": {"id": "A-1"}, "output": "order service down"},
        handed_back,
    )
    _, tool, answer = trace_span_tree(trace)["children"]
    assert tool.get("error") == error
    # the text reads once: as the error where it tells one, else as the result
    assert tool.get("result") == (None if error else "order service down")
    assert "new_input" not in answer


@pytest.mark.parametrize("is_error", [True, False])
def test_a_failed_tool_span_that_records_only_its_call_id_reads_what_the_model_was_told(
    is_error,
):
    # AutoGen's own `execute_tool` fails with the exception; the text the model is handed
    # (marked `is_error` or not, as OpenAI's tool messages carry no mark) is the error's own
    # text: read once, as the failed step's error
    trace = TraceFactory(task="Where is A-1?")
    failed = {
        "name": "execute_tool lookup",
        "tool_call_id": "c1",
        "input": None,
        "output": None,
        "status": "error",
        "error_message": "ConnectionError: order service down",
    }
    handed_back = {"content": "order service down", **({"is_error": True} if is_error else {})}
    decided_then_handed_back(trace, failed, handed_back)
    _, tool, answer = trace_span_tree(trace)["children"]
    assert list(tool)[-1] == "error" and "result" not in tool
    assert (tool["arguments"], tool["error"]) == (
        {"id": "A-1"},
        "ConnectionError: order service down",
    )
    assert "new_input" not in answer
