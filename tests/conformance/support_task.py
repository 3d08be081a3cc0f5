"""The two-tool support task every framework runs: look an order up, then refund it."""

from __future__ import annotations

import json

TASK = "Order R-7731 arrived broken. Please refund it in full."
ORDER_ID = "R-7731"
ORDER_AMOUNT = 42.5
REFUND_ID = "RF-0091"
FINAL_ANSWER = f"Refunded 42.50 EUR for order {ORDER_ID} (refund {REFUND_ID})."
SYSTEM_PROMPT = "You are a support agent. Look the order up before refunding it."
# What a tool that fails says: the order service is down.
ORDER_SERVICE_DOWN = "order service unavailable"


def lookup_order(order_id: str) -> str:
    """Look an order up by id; returns its amount and status as JSON."""
    return json.dumps({"order_id": order_id, "amount": ORDER_AMOUNT, "status": "delivered"})


def refund(order_id: str, amount: float) -> str:
    """Refund `amount` on an order; returns the refund id as JSON."""
    return json.dumps({"refund_id": REFUND_ID, "order_id": order_id, "amount": amount})


TOOLS = {"lookup_order": lookup_order, "refund": refund}


def lookup_order_failing(fails: bool = True, error: type[Exception] = ConnectionError):
    """`lookup_order` as a service that was down a moment: with `fails`, its first call raises
    `error(ORDER_SERVICE_DOWN)`, later ones answer. Its docstring is what smolagents reads."""
    calls = []
    answer = TOOLS["lookup_order"]

    def lookup_order(order_id: str) -> str:
        """Look an order up by id; returns its amount and status as JSON.

        Args:
            order_id: The order id, such as R-7731.
        """
        calls.append(order_id)
        if fails and len(calls) == 1:
            raise error(ORDER_SERVICE_DOWN)
        return answer(order_id)

    return lookup_order


def openai_agent_run(
    base_url: str,
    model: str,
    tools: dict | None = None,
    stream: bool = False,
    offer_tools: bool = False,
) -> str:
    """The task as a plain OpenAI tool loop (chat_tool_loop) on the SDK against `base_url`, the
    tools declared in each request with `offer_tools`."""
    import openai

    client = openai.OpenAI(base_url=base_url, api_key="test")
    declared = {"tools": OPENAI_CHAT_TOOLS} if offer_tools else {}

    def complete(messages: list, streamed: bool):
        request = {"model": model, "messages": messages, **declared}
        return client.chat.completions.create(**request, **({"stream": True} if streamed else {}))

    return chat_tool_loop(complete, tools, stream)


def chat_tool_loop(complete, tools: dict | None = None, stream: bool = False) -> str:
    """The task as a plain chat-completions tool loop: `complete(messages, stream)` answers each
    request (a chat completion, or its stream of chunks, OpenAI-shaped); each tool call the
    model makes is answered by `tools` (TOOLS), a tool that raises by `Error: <what it said>`,
    until it answers in text, which is returned."""
    tools = tools or TOOLS
    messages = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": TASK},
    ]
    while True:
        reply = complete(messages, stream)
        if stream:
            message = _chat_stream_message(reply)
        else:
            message = reply.choices[0].message.model_dump(exclude_none=True)
        if not message.get("tool_calls"):
            return message["content"]
        messages.append(message)
        for call in message["tool_calls"]:
            function = call["function"]
            try:
                result = tools[function["name"]](**json.loads(function["arguments"]))
            except Exception as error:  # the model is told, as agent loops do
                result = f"Error: {error}"
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})


def _chat_stream_message(chunks) -> dict:
    """A streamed chat completion's deltas put back together as its assistant message."""
    message: dict = {"role": "assistant"}
    calls: dict[int, dict] = {}
    for chunk in chunks:
        for choice in chunk.choices:
            delta = choice.delta
            if delta.content:
                message["content"] = message.get("content", "") + delta.content
            for part in delta.tool_calls or []:
                call = calls.setdefault(
                    part.index, {"type": "function", "function": {"name": "", "arguments": ""}}
                )
                if part.id:
                    call["id"] = part.id
                if part.function and part.function.name:
                    call["function"]["name"] += part.function.name
                if part.function and part.function.arguments:
                    call["function"]["arguments"] += part.function.arguments
    if calls:
        message["tool_calls"] = [calls[index] for index in sorted(calls)]
    return message


# The tools as an Anthropic request declares them.
ANTHROPIC_TOOLS = [
    {
        "name": "lookup_order",
        "description": lookup_order.__doc__,
        "input_schema": {
            "type": "object",
            "properties": {"order_id": {"type": "string"}},
            "required": ["order_id"],
        },
    },
    {
        "name": "refund",
        "description": refund.__doc__,
        "input_schema": {
            "type": "object",
            "properties": {"order_id": {"type": "string"}, "amount": {"type": "number"}},
            "required": ["order_id", "amount"],
        },
    },
]


# The tools as an OpenAI chat completions request declares them.
OPENAI_CHAT_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": tool["name"],
            "description": tool["description"],
            "parameters": tool["input_schema"],
        },
    }
    for tool in ANTHROPIC_TOOLS
]


def anthropic_agent_run(
    base_url: str, model: str, stream: bool = False, tools: dict | None = None
) -> str:
    """The task as a plain Anthropic tool loop (the SDK against `base_url`, each reply whole or
    streamed): each `tool_use` is answered with a `tool_result` by `tools` (TOOLS), a tool
    that raises by its error with `is_error`, until the model answers in text, which is
    returned."""
    import anthropic

    tools = tools or TOOLS

    client = anthropic.Anthropic(base_url=base_url, api_key="test", max_retries=0)
    messages = [{"role": "user", "content": TASK}]
    while True:
        request = {
            "model": model,
            "max_tokens": 1024,
            "system": SYSTEM_PROMPT,
            "tools": ANTHROPIC_TOOLS,
            "messages": messages,
        }
        if stream:
            with client.messages.stream(**request) as streamed:
                reply = streamed.get_final_message()
        else:
            reply = client.messages.create(**request)
        uses = [block for block in reply.content if block.type == "tool_use"]
        if not uses:
            return "".join(block.text for block in reply.content if block.type == "text")
        messages.append({"role": "assistant", "content": [b.model_dump() for b in reply.content]})
        results = []
        for use in uses:
            result = {"type": "tool_result", "tool_use_id": use.id}
            try:
                result["content"] = tools[use.name](**use.input)
            except Exception as error:  # the model is told, as a failed tool result
                result.update(content=str(error), is_error=True)
            results.append(result)
        messages.append({"role": "user", "content": results})


def openai_responses_agent_run(base_url: str, model: str) -> str:
    """The task as a plain tool loop on OpenAI's Responses API (the SDK against `base_url`):
    each `function_call` is answered with a `function_call_output` until the model answers in
    text, which is returned."""
    import openai

    client = openai.OpenAI(base_url=base_url, api_key="test")
    tools = [
        {
            "type": "function",
            "name": tool["name"],
            "description": tool["description"],
            "parameters": tool["input_schema"],
        }
        for tool in ANTHROPIC_TOOLS
    ]
    items: list = [{"role": "user", "content": TASK}]
    while True:
        reply = client.responses.create(
            model=model, instructions=SYSTEM_PROMPT, input=items, tools=tools
        )
        calls = [item for item in reply.output if item.type == "function_call"]
        if not calls:
            return reply.output_text
        for call in calls:
            items.append(
                {
                    "type": "function_call",
                    "call_id": call.call_id,
                    "name": call.name,
                    "arguments": call.arguments,
                }
            )
            result = TOOLS[call.name](**json.loads(call.arguments))
            items.append(
                {"type": "function_call_output", "call_id": call.call_id, "output": result}
            )


# The tools as a Bedrock Converse request declares them (`toolConfig.tools`).
BEDROCK_TOOLS = [
    {
        "toolSpec": {
            "name": tool["name"],
            "description": tool["description"],
            "inputSchema": {"json": tool["input_schema"]},
        }
    }
    for tool in ANTHROPIC_TOOLS
]


def bedrock_agent_run(
    endpoint_url: str, model: str, stream: bool = False, tools: dict | None = None
) -> str:
    """The task as a plain tool loop on Bedrock's Converse API (boto3 against `endpoint_url`,
    each reply whole or streamed): each `toolUse` is answered with a `toolResult` until the
    model answers in text, which is returned. A tool that raises is answered with its error
    and `status: error`."""
    import boto3

    tools = tools or TOOLS
    client = boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=endpoint_url,
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )
    messages = [{"role": "user", "content": [{"text": TASK}]}]
    while True:
        request = {
            "modelId": model,
            "system": [{"text": SYSTEM_PROMPT}],
            "messages": messages,
            "toolConfig": {"tools": BEDROCK_TOOLS},
        }
        if stream:
            content = _converse_stream(client, request)
        else:
            content = client.converse(**request)["output"]["message"]["content"]
        uses = [block["toolUse"] for block in content if "toolUse" in block]
        if not uses:
            return "".join(block.get("text", "") for block in content)
        messages.append({"role": "assistant", "content": content})
        results = []
        for use in uses:
            try:
                result = {"content": [{"text": tools[use["name"]](**use["input"])}]}
            except Exception as exc:  # the model is told, as a failed tool result
                result = {"content": [{"text": str(exc)}], "status": "error"}
            results.append({"toolResult": {"toolUseId": use["toolUseId"], **result}})
        messages.append({"role": "user", "content": results})


def _converse_stream(client, request: dict) -> list[dict]:
    """ConverseStream's events put back together as the content blocks Converse returns."""
    blocks: dict[int, dict] = {}
    arguments: dict[int, str] = {}
    for event in client.converse_stream(**request)["stream"]:
        if "contentBlockStart" in event:
            start = event["contentBlockStart"]
            blocks[start["contentBlockIndex"]] = {"toolUse": dict(start["start"]["toolUse"])}
        elif "contentBlockDelta" in event:
            index, delta = (event["contentBlockDelta"][k] for k in ("contentBlockIndex", "delta"))
            if "text" in delta:
                block = blocks.setdefault(index, {"text": ""})
                block["text"] += delta["text"]
            else:
                arguments[index] = arguments.get(index, "") + delta["toolUse"]["input"]
    for index, text in arguments.items():
        blocks[index]["toolUse"]["input"] = json.loads(text)
    return [blocks[index] for index in sorted(blocks)]
