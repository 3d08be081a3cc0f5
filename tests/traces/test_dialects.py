"""Framework attribute dialects, in the shapes the frameworks were seen to write them (see
tests/conformance for the runs these shapes come from)."""

import json
from decimal import Decimal

import pytest

from traces.ingest.records import span_record_build
from traces.messages import messages_read, readable_text
from traces.models import SpanKind


def build(attributes, name="span", parent="p"):
    return span_record_build(
        trace_external_id="t", span_id="s", parent_span_id=parent, name=name, attributes=attributes
    )


def test_an_agent_run_root_is_an_agent():
    assert build({"gen_ai.operation.name": "agent_run"}, parent="").kind == SpanKind.AGENT


@pytest.mark.parametrize(
    "attributes",
    [
        {"llm.input_messages.0.message.role": "user"},
        {"gcp.vertex.agent.llm_request": '{"contents": []}'},
        {"gen_ai.input.messages": "[]"},
    ],
)
def test_model_calls_without_gen_ai_operation_attributes_are_llm_spans(attributes):
    assert build(attributes).kind == SpanKind.LLM


def test_pydantic_ai_root_gives_task_and_answer_and_old_tool_attributes_are_read():
    root = build(
        {
            "gen_ai.operation.name": "invoke_agent",
            "pydantic_ai.all_messages": json.dumps(
                [
                    {"role": "system", "parts": [{"type": "text", "content": "Be brief."}]},
                    {"role": "user", "parts": [{"type": "text", "content": "Refund R-1"}]},
                ]
            ),
            "final_result": "Refunded R-1.",
            "agent_name": "support",
        },
        parent="",
    )
    assert readable_text(root.input, role="user") == "Refund R-1"
    assert root.output == "Refunded R-1."
    assert root.component == "support"
    tool = build(
        {"gen_ai.tool.name": "refund", "tool_arguments": '{"id": "R-1"}', "tool_response": "ok"}
    )
    assert (tool.kind, tool.input, tool.output) == (SpanKind.TOOL, {"id": "R-1"}, "ok")


def test_pydantic_ai_operation_cost_wins_over_the_price():
    record = build(
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-4o",
            "gen_ai.usage.input_tokens": 1000,
            "operation.cost": 1.5,
        }
    )
    assert record.cost_usd == Decimal("1.500000")


def test_google_adk_tool_and_model_attributes():
    tool = build(
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "refund",
            "gcp.vertex.agent.tool_call_args": '{"order_id": "R-1"}',
            "gcp.vertex.agent.tool_response": '{"refund_id": "RF-1"}',
        }
    )
    assert (tool.input, tool.output) == ({"order_id": "R-1"}, {"refund_id": "RF-1"})
    llm = build(
        {
            "gen_ai.operation.name": "call_llm",
            "gcp.vertex.agent.llm_request": json.dumps(
                {"model": "gemini", "contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
            ),
            "gcp.vertex.agent.llm_response": json.dumps(
                {"content": {"role": "model", "parts": [{"text": "hello"}]}}
            ),
        }
    )
    assert readable_text(llm.input, role="user") == "hi"
    assert readable_text(llm.output, role="assistant") == "hello"


def test_smolagents_arguments_and_agent_token_sums():
    tool = build(
        {
            "openinference.span.kind": "TOOL",
            "tool.name": "refund",
            "input.value": '{"args": [], "sanitize_inputs_outputs": true, "kwargs": {"id": "R-1"}}',
        }
    )
    assert tool.input == {"id": "R-1"}
    agent = build(
        {
            "openinference.span.kind": "AGENT",
            "llm.token_count.prompt": 720,
            "llm.token_count.completion": 180,
        }
    )
    assert (agent.input_tokens, agent.output_tokens) == (0, 0)
    assert agent.attributes["llm.token_count.prompt"] == 720  # kept, just not counted twice


def test_an_empty_tool_result_attribute_is_an_empty_result_not_a_missing_one():
    tool = build({"gen_ai.tool.name": "think", "gen_ai.tool.call.result": ""})
    assert tool.output == "" and tool.status == "ok"


@pytest.mark.django_db
def test_untimed_model_calls_give_the_last_reply_as_final_answer():
    from tests.factories import ProjectFactory
    from traces.ingest.services import ingest_span_tree

    tree = {
        "name": "agent",
        "type": "agent",
        "children": [
            {
                "name": "chat",
                "type": "llm",
                "input": [{"role": "user", "content": "Hi"}],
                "output": {"role": "assistant", "content": "First."},
            },
            {
                "name": "chat",
                "type": "llm",
                "input": [{"role": "user", "content": "Hi"}],
                "output": {"role": "assistant", "content": "Last."},
            },
        ],
    }
    trace = ingest_span_tree(ProjectFactory(), tree)
    assert (trace.task, trace.final_answer) == ("Hi", "Last.")


@pytest.mark.parametrize(
    "part",
    [
        # BeeAI
        {"type": "tool-call", "id": "c1", "tool_name": "refund", "args": '{"amount": 42.5}'},
        # the AI SDK, v4 and v5
        {"type": "tool-call", "toolCallId": "c1", "toolName": "refund", "args": {"amount": 42.5}},
        {"type": "tool-call", "toolCallId": "c1", "toolName": "refund", "input": {"amount": 42.5}},
    ],
)
def test_tool_call_parts_of_the_ai_sdk_and_beeai_are_calls(part):
    (message,) = messages_read([{"role": "assistant", "content": [part]}])
    assert [(c.id, c.name, c.arguments) for c in message.tool_calls] == [
        ("c1", "refund", {"amount": 42.5})
    ]


@pytest.mark.parametrize(
    "part",
    [
        {"type": "tool-result", "tool_call_id": "c1", "tool_name": "refund", "result": '{"ok": 1}'},
        {"type": "tool-result", "toolCallId": "c1", "toolName": "refund", "output": {"ok": 1}},
    ],
)
def test_tool_result_parts_of_the_ai_sdk_and_beeai_are_results(part):
    (message,) = messages_read([{"role": "tool", "content": [part]}])
    assert [(r.id, r.content) for r in message.tool_results] == [("c1", {"ok": 1})]


def test_flattened_openinference_messages_that_lost_their_parts_give_way_to_the_json():
    part = {"type": "tool-call", "id": "c1", "tool_name": "refund", "args": "{}"}
    calls = json.dumps([{"role": "assistant", "content": [part]}])
    lossy = {
        "openinference.span.kind": "LLM",
        "output.value": calls,
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.content": "",
    }
    assert build(lossy).output == json.loads(calls)
    whole = {**lossy, "llm.output_messages.0.message.content": "Refunded."}
    assert build(whole).output == [{"message": {"role": "assistant", "content": "Refunded."}}]
    python_repr = {**lossy, "output.value": "[ChatMessage(role='assistant')]"}
    assert build(python_repr).output == [{"message": {"role": "assistant", "content": ""}}]


def test_a_choice_events_calls_beside_its_message_are_its_calls():
    call = {"id": "c1", "type": "function", "function": {"name": "refund", "arguments": "{}"}}
    beside = {"event": "gen_ai.choice", "index": 0, "message": {}, "tool_calls": [call]}
    within = {"event": "gen_ai.choice", "index": 0, "message": {"tool_calls": [call]}}
    for body in (beside, within):
        (message,) = messages_read([body])
        assert (message.role, [c.name for c in message.tool_calls]) == ("assistant", ["refund"])


def test_smolagents_steps_told_back_as_text_are_calls_and_results():
    told = [
        {
            "role": "tool-call",
            "content": [
                {
                    "type": "text",
                    "text": "Calling tools:\n[{'id': 'call_1', 'type': 'function', 'function': "
                    "{'name': 'refund', 'arguments': {'order_id': 'R-1', 'amount': 42.5}}}]",
                }
            ],
        },
        {"role": "tool-response", "content": [{"type": "text", "text": 'Observation:\n{"ok": 1}'}]},
        {"role": "tool-call", "content": "Calling tools: none, I know the answer."},
    ]
    calls, observed, prose = messages_read(told)
    assert [(c.id, c.name, c.arguments) for c in calls.tool_calls] == [
        ("call_1", "refund", {"order_id": "R-1", "amount": 42.5})
    ]
    assert calls.text == ""
    assert [(r.id, r.content) for r in observed.tool_results] == [("", {"ok": 1})]
    # text that only looks like one stays text
    assert (prose.text, prose.tool_calls) == ("Calling tools: none, I know the answer.", [])


def test_llama_index_tool_outputs_are_the_tools_returns():
    output = {
        "blocks": [{"block_type": "text", "text": '{"ok": 1}'}],
        "tool_name": "refund",
        "raw_input": {"args": [], "kwargs": {"id": "R-1"}},
        "raw_output": '{"ok": 1}',
        "is_error": False,
    }
    attributes = {"openinference.span.kind": "TOOL", "tool.name": "refund"}
    tool = build({**attributes, "output.value": json.dumps(output)})
    assert (tool.output, tool.status) == ({"ok": 1}, "ok")
    failed = {**output, "raw_output": None, "is_error": True}
    failed["blocks"] = [{"block_type": "text", "text": "Error: no such order"}]
    tool = build({**attributes, "output.value": json.dumps(failed)})
    assert tool.output == {"error": "Error: no such order"}
    assert (tool.status, tool.error_message) == ("error", "Error: no such order")


HELPER = {
    "openinference.span.kind": "LLM",
    "llm.model_name": "gpt-4o-mini",
    "input.value": '{"chat_history": [], "tools": []}',
    "output.value": '{"messages": [], "tools": []}',
}


@pytest.mark.parametrize(
    ("extra", "kind"),
    [
        ({}, SpanKind.CUSTOM),  # LlamaIndex's `_prepare_chat_with_tools`: no model called
        ({"llm.token_count.prompt": 12}, SpanKind.LLM),
        ({"llm.output_messages.0.message.role": "assistant"}, SpanKind.LLM),
        ({"llm.input_messages.0.message.role": "user"}, SpanKind.LLM),
        ({"output.value": None}, SpanKind.LLM),  # content hidden: it may have called one
        ({"output.value": "Booked for 8pm."}, SpanKind.LLM),  # a reply in text
        ({"output.value": '{"role": "assistant", "content": "Booked."}'}, SpanKind.LLM),
        ({"exception.message": "timeout", "error.type": "Timeout"}, SpanKind.LLM),
    ],
)
def test_an_openinference_llm_span_that_called_no_model_is_a_framework_step(extra, kind):
    attributes = {key: value for key, value in {**HELPER, **extra}.items() if value is not None}
    assert build(attributes, name="OpenAI._prepare_chat_with_tools").kind == kind


@pytest.mark.django_db
@pytest.mark.parametrize(
    "returned",
    [
        "StopEvent(result=AgentOutput(response=ChatMessage(role=<MessageRole.ASSISTANT: 'assi...",
        "<app.RunResult object at 0x7f964a7e4450>",
    ],
)
def test_a_root_that_returned_an_object_repr_takes_its_answer_from_the_last_reply(returned):
    from tests.factories import ProjectFactory
    from traces.ingest.services import ingest_span_tree

    reply = {"role": "assistant", "content": "Refunded R-1."}
    tree = {
        "name": "FunctionAgent.run",
        "type": "chain",
        "output": returned,
        "children": [{"name": "chat", "type": "llm", "input": "Refund R-1", "output": reply}],
    }
    trace = ingest_span_tree(ProjectFactory(), tree)
    assert trace.final_answer == "Refunded R-1."


def test_a_crews_tasks_are_its_task_and_its_outputs_raw_text_its_answer():
    tasks = [
        {"description": "Find order R-1.", "expected_output": "The order.", "agent_role": "a"},
        {"description": "Refund it.", "expected_output": "", "agent_role": "b"},
    ]
    root = build(
        {
            "openinference.span.kind": "CHAIN",
            "crew_tasks": json.dumps(tasks),
            "output.value": json.dumps({"raw": "Refunded R-1.", "tasks_output": []}),
            "output.mime_type": "application/json",
        },
        name="Crew_1.kickoff",
        parent="",
    )
    task = readable_text(root.trace_fields["task"], role="user")
    assert task == "Find order R-1.\nExpected output: The order.\n\nRefund it."
    assert readable_text(root.output, role="assistant") == "Refunded R-1."
    # a list of anything else is no task
    assert readable_text([{"name": "x"}], role="user") == ""


def test_openinference_anthropic_tool_use_parts_are_the_calls_they_name_once():
    call = {"id": "toolu_1", "function": {"name": "refund", "arguments": '{"id": "R-1"}'}}
    part = {"message_content": {"type": "tool_use"}, "tool_call": call}
    both = {
        "message": {"role": "assistant", "tool_calls": [{"tool_call": call}], "contents": [part]}
    }
    alone = {"message": {"role": "assistant", "contents": [part]}}
    for value in (both, alone):
        (message,) = messages_read([value])
        assert [(c.id, c.name, c.arguments) for c in message.tool_calls] == [
            ("toolu_1", "refund", {"id": "R-1"})
        ]
    # a bare tool_use block names no call
    (message,) = messages_read([{"role": "assistant", "content": [{"type": "tool_use"}]}])
    assert message.tool_calls == []


def test_a_tool_result_written_as_a_json_string_reads_as_its_text():
    from traces.ingest.records import tool_result

    # OpenInference's DSPy instrumentation JSON-encodes a tool's string return
    assert tool_result('"Completed."') == "Completed."
    assert tool_result('"{\\"ok\\": 1}"') == {"ok": 1}
    # quotes that are no JSON string are the tool's own text
    assert tool_result('"a" and "b"') == '"a" and "b"'
    assert tool_result('"') == '"'


def test_a_message_that_says_its_text_in_content_and_contents_reads_it_once():
    text = "Refunded R-1."
    part = {"message_content": {"type": "text", "text": text}}
    (message,) = messages_read(
        [{"message": {"role": "assistant", "content": text, "contents": [part]}}]
    )
    assert message.text == text
    # two parts that say different things are both read
    other = {"message_content": {"type": "text", "text": "Anything else?"}}
    (message,) = messages_read([{"role": "assistant", "contents": [part, other]}])
    assert message.text == f"{text}\nAnything else?"


def test_openai_responses_items_read_as_the_turns_they_are():
    response = {
        "object": "response",
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": "refund",
                "arguments": '{"id": "R-1"}',
            },
            {
                "type": "function_call",
                "id": "fc_2",
                "call_id": "call_2",
                "name": "notify",
                "arguments": "{}",
            },
        ],
    }
    (message,) = messages_read([response])
    assert [(c.id, c.name, c.arguments) for c in message.tool_calls] == [
        ("call_1", "refund", {"id": "R-1"}),
        ("call_2", "notify", {}),
    ]
    items = [
        {"role": "user", "content": "Refund R-1"},
        {"type": "function_call", "call_id": "call_1", "name": "refund", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_1", "output": '{"ok": 1}'},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Done."}],
        },
    ]
    read = messages_read(items)
    assert [m.role for m in read] == ["user", "assistant", "tool", "assistant"]
    assert [(r.id, r.content) for r in read[2].tool_results] == [("call_1", {"ok": 1})]
    assert read[3].text == "Done."


def test_a_call_listed_twice_in_one_message_is_read_once():
    # LangChain's AIMessage from Anthropic: a tool_use block and tool_calls, one id; as
    # OpenLLMetry writes it, the block also comes as a text part of JSON
    block = {"type": "tool_use", "id": "toolu_1", "name": "refund", "input": {"id": "R-1"}}
    call = {"name": "refund", "args": {"id": "R-1"}, "id": "toolu_1", "type": "tool_call"}
    (message,) = messages_read([{"type": "ai", "content": [block], "tool_calls": [call]}])
    assert [(c.id, c.name) for c in message.tool_calls] == [("toolu_1", "refund")]
    parts = [
        {"type": "text", "content": json.dumps(block)},
        {"type": "tool_call", "id": "toolu_1", "name": "refund", "arguments": {"id": "R-1"}},
    ]
    (message,) = messages_read([{"role": "assistant", "parts": parts}])
    assert message.text == "" and [c.name for c in message.tool_calls] == ["refund"]


def test_the_vercel_ai_sdks_spans_read_as_steps():
    call = build(
        {
            "ai.operationId": "ai.generateText.doGenerate",
            "gen_ai.request.model": "gpt-4o-mini",
            "ai.prompt.messages": json.dumps([{"role": "user", "content": "Refund R-1"}]),
            "ai.response.text": "On it.",
            "ai.response.toolCalls": json.dumps(
                [{"toolCallId": "c1", "toolName": "refund", "input": '{"id": "R-1"}'}]
            ),
        }
    )
    assert call.kind == SpanKind.LLM
    (reply,) = messages_read(call.output)
    assert reply.text == "On it."
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        ("c1", "refund", {"id": "R-1"})
    ]
    tool = build(
        {
            "ai.operationId": "ai.toolCall",
            "ai.toolCall.name": "refund",
            "ai.toolCall.id": "c1",
            "ai.toolCall.args": '{"id": "R-1"}',
            # a tool's string return, written as JSON again
            "ai.toolCall.result": json.dumps(json.dumps({"ok": 1})),
        }
    )
    assert (tool.kind, tool.tool_name, tool.tool_call_id) == (SpanKind.TOOL, "refund", "c1")
    assert (tool.input, tool.output) == ({"id": "R-1"}, {"ok": 1})


@pytest.mark.parametrize(
    ("output", "content", "is_error"),
    [
        ({"type": "text", "value": '{"ok": 1}'}, {"ok": 1}, False),
        ({"type": "json", "value": {"ok": 1}}, {"ok": 1}, False),
        ({"type": "error-text", "value": "no such order"}, "no such order", True),
    ],
)
def test_ai_sdk_tool_result_parts_are_typed(output, content, is_error):
    part = {"type": "tool-result", "toolCallId": "c1", "toolName": "refund", "output": output}
    (message,) = messages_read([{"role": "tool", "content": [part]}])
    assert [(r.content, r.is_error) for r in message.tool_results] == [(content, is_error)]


def test_a_pre_1_37_tool_event_names_its_call_by_id_and_its_content_blocks_are_the_result():
    # the botocore instrumentation's Bedrock event: the call id as `id`, Converse text blocks
    event = {
        "event": "gen_ai.tool.message",
        "gen_ai.system": "aws.bedrock",
        "id": "call_1",
        "content": [{"text": '{"amount": 42.5}'}],
    }
    (message,) = messages_read([event])
    assert message.text == ""
    assert [(r.id, r.content, r.is_error) for r in message.tool_results] == [
        ("call_1", {"amount": 42.5}, False)
    ]


def test_a_tool_result_given_twice_under_one_call_id_is_read_once_with_its_error_mark():
    # the Bedrock events: a `gen_ai.tool.message`, then the user turn's `toolResult` block
    # with the same result (and the `status: error` the tool event leaves out)
    told = [
        {"event": "gen_ai.tool.message", "id": "call_1", "content": [{"text": "timed out"}]},
        {
            "event": "gen_ai.user.message",
            "content": [
                {
                    "toolResult": {
                        "toolUseId": "call_1",
                        "content": [{"text": "timed out"}],
                        "status": "error",
                    }
                }
            ],
        },
        {"role": "user", "content": "And order 42?"},
    ]
    tool, user = messages_read(told)
    assert [(r.id, r.content, r.is_error) for r in tool.tool_results] == [
        ("call_1", "timed out", True)
    ]
    assert (user.role, user.text, user.tool_results) == ("user", "And order 42?", [])
    # a different result under the same id, or results naming no call, are each kept
    again = [
        {"role": "tool", "tool_call_id": "call_1", "content": "first"},
        {"role": "tool", "tool_call_id": "call_1", "content": "second"},
        {"role": "tool", "tool_call_id": "", "content": "x"},
        {"role": "tool", "tool_call_id": "", "content": "x"},
    ]
    assert [r.content for m in messages_read(again) for r in m.tool_results] == [
        "first",
        "second",
        "x",
        "x",
    ]


@pytest.mark.parametrize(
    ("response", "content", "is_error"),
    [
        # the Google Gen AI SDK and ADK hand a function's return back under `result`
        ({"result": '{"ok": 1}'}, {"ok": 1}, False),
        ({"output": {"ok": 1}}, {"ok": 1}, False),  # Gemini's documented key
        ({"error": "no such order"}, "no such order", True),
        # a response that is the function's own value is read as it is
        ({"ok": 1}, {"ok": 1}, False),
        ({"result": "done", "note": "x"}, {"result": "done", "note": "x"}, False),
    ],
)
@pytest.mark.parametrize("shape", ["genai part", "gemini part"])
def test_gemini_function_responses_read_as_the_functions_return_or_error(
    shape, response, content, is_error
):
    if shape == "genai part":
        part = {"type": "tool_call_response", "id": "c1", "response": response}
    else:
        part = {"function_response": {"id": "c1", "name": "refund", "response": response}}
    (message,) = messages_read([{"role": "user", "parts": [part]}])
    assert [(r.id, r.content, r.is_error) for r in message.tool_results] == [
        ("c1", content, is_error)
    ]


def test_openinference_agentchat_function_results_beside_their_message_are_tool_results():
    # OpenInference's AgentChat instrumentation writes a FunctionExecutionResultMessage as
    # `message.role: function` and each result as JSON under `function.N`, beside the message
    record = build(
        {
            "openinference.span.kind": "LLM",
            "llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.content": "Refund R-1",
            "llm.input_messages.1.message.role": "function",
            "llm.input_messages.1.function.0": json.dumps(
                {"name": "lookup", "content": "service down", "call_id": "c1", "is_error": True}
            ),
            "llm.input_messages.1.function.1": json.dumps(
                {"name": "lookup", "content": '{"amount": 5}', "call_id": "c2", "is_error": False}
            ),
        }
    )
    user, results = messages_read(record.input)
    assert (user.role, user.text) == ("user", "Refund R-1")
    assert results.role == "tool" and results.text == ""
    assert [(r.id, r.content, r.is_error) for r in results.tool_results] == [
        ("c1", "service down", True),
        ("c2", {"amount": 5}, False),
    ]


def test_a_mastra_agent_run_gives_its_task_and_answer_and_a_turn_its_whole_reply():
    run = build(
        {
            "gen_ai.operation.name": "invoke_agent",
            "mastra.agent_run.input": "Refund R-1",
            "mastra.agent_run.output": json.dumps({"text": "Refunded.", "files": []}),
        },
        parent="",
    )
    assert run.kind == SpanKind.AGENT and run.input == "Refund R-1"
    assert readable_text(run.output, role="assistant") == "Refunded."
    turn = build(
        {
            "gen_ai.operation.name": "agent_step",
            "mastra.model_step.input": json.dumps([{"role": "user", "content": "Refund R-1"}]),
            "mastra.model_step.output": json.dumps(
                {
                    "text": "",
                    "toolCalls": [
                        {"toolCallId": "c1", "toolName": "refund", "args": {"id": "R-1"}}
                    ],
                }
            ),
        }
    )
    (reply,) = messages_read(turn.output)
    assert (reply.role, reply.text) == ("assistant", "")
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        ("c1", "refund", {"id": "R-1"})
    ]
    assert [m.text for m in messages_read(turn.input)] == ["Refund R-1"]


def test_mastras_preview_markers_of_tool_parts_read_as_nothing_said():
    # Mastra's preview of a turn's input names each tool call and result part, no more
    preview = [
        {"role": "user", "content": "Refund R-1 [tool: refund]"},
        {"role": "assistant", "content": "[tool: lookup_order]"},
        {"role": "tool", "content": "[tool-result: lookup_order]"},
        {"role": "assistant", "content": "Looking it up. [tool: lookup_order] [tool: refund]"},
    ]
    assert [(m.role, m.text) for m in messages_read(preview)] == [
        ("user", "Refund R-1 [tool: refund]"),  # a person's words are theirs, brackets and all
        ("assistant", ""),
        ("tool", ""),
        ("assistant", "Looking it up."),
    ]


def test_an_openllmetry_task_step_that_names_its_tool_is_that_tool_call():
    # OpenLLMetry's LlamaIndex `call_tool` step: kind `task`, the tool named with its
    # arguments, the ToolCallResult event around the tool's ToolOutput as its output
    tool_output = {
        "blocks": [{"block_type": "text", "text": "no such order"}],
        "tool_name": "refund",
        "raw_input": {"id": "R-1"},
        "raw_output": "no such order",
        "is_error": True,
    }
    event = {"tool_name": "refund", "tool_kwargs": {"id": "R-1"}, "tool_id": "call_1"}
    step = {
        "traceloop.span.kind": "task",
        "traceloop.entity.name": "BaseWorkflowAgent.task",
        "tool.name": "refund",
        "tool.arguments": json.dumps({"id": "R-1"}),
        "traceloop.entity.output": json.dumps({**event, "tool_output": tool_output}),
    }
    tool = build(step)
    assert (tool.kind, tool.tool_name, tool.input) == (SpanKind.TOOL, "refund", {"id": "R-1"})
    assert tool.output == {"error": "no such order"}
    assert (tool.status, tool.error_message) == ("error", "no such order")
    answered = {**tool_output, "raw_output": '{"ok": 1}', "is_error": False}
    tool = build(
        {**step, "traceloop.entity.output": json.dumps({**event, "tool_output": answered})}
    )
    assert (tool.output, tool.status) == ({"ok": 1}, "ok")
    # a task step that names no tool stays a step
    plain = {key: step[key] for key in ("traceloop.span.kind", "traceloop.entity.name")}
    assert build(plain).kind == SpanKind.CUSTOM


def test_an_openllmetry_crews_task_list_is_its_task():
    tasks = [{"description": "Refund R-1.", "expected_output": "What was done.", "agent": "a"}]
    root = build(
        {"gen_ai.operation.name": "invoke_agent", "crewai.crew.tasks": json.dumps(tasks)},
        name="crewai.workflow",
        parent="",
    )
    task = readable_text(root.trace_fields["task"], role="user")
    assert task == "Refund R-1.\nExpected output: What was done."
