"""The two ways a judge reads a trace: the nested span tree, or a transcript.

Both are built from traces.reading, the same mapped fields the trace page shows: the task and
final answer at the top, tool steps by tool name with call id, arguments, result and error,
model steps with what is new in their input and what they answered, and the stop reason.
"""

import json

from traces.ingest.records import tool_arguments, tool_result
from traces.models import Span, SpanKind, Trace
from traces.reading import (
    ReadingState,
    adapter_fields,
    carried_present,
    code_run_parts,
    error_read,
    merged_members,
    step_labels_carried,
    step_read,
    tool_result_key,
    tool_result_text,
    tools_listed,
)
from traces.selectors import parents_acyclic, span_parents
from traces.stop_reasons import StopKind, stop_reason_normalize

CITE_NOTE = (
    "Each step has a number and a name; cite steps by name as shown (`lookup_order`, "
    "`lookup_order#2` for the second call of a tool called more than once) or by number "
    "(`step 3`)."
)


def _ordered(trace: Trace, spans: list[Span] | None) -> list[Span]:
    return list(trace.spans.order_by("position", "pk")) if spans is None else spans


def trace_head(trace: Trace) -> dict:
    """The top of the reading: task, final answer, stop reason, available tools."""
    head: dict = {"task": trace.task or "", "final_answer": trace.final_answer or ""}
    if trace.stop_reason:
        kind = stop_reason_normalize(trace.stop_reason)
        head["stop_reason"] = (
            trace.stop_reason if kind == StopKind.OTHER else f"{trace.stop_reason} ({kind})"
        )
    tools = tools_listed((trace.context or {}).get("available_tools"))
    if tools:
        head["available_tools"] = tools
    return head


def trace_span_tree(trace: Trace, spans: list[Span] | None = None) -> dict:
    """Nested steps, children in start order, under a head with task and final answer.

    Spans whose parent never arrived hang under the top so nothing is hidden from the judge.
    A call several spans reported (merged at ingest) is one step, its carrier's, in the place
    of its first span: the other spans' children hang under the carrier.
    """
    spans = _ordered(trace, spans)
    merged = merged_members(trace)
    carried = carried_present(merged, spans)
    labels = step_labels_carried(spans, carried)
    state = ReadingState(trace)
    state.spans = spans
    shown = sorted((s for s in spans if s.span_id in labels), key=lambda s: labels[s.span_id].step)
    # a step another instrumentation reported again (layer_twins): read into the first report
    twins: dict[str, list[Span]] = {}
    for span in spans:
        if span.span_id in carried and span.span_id not in merged:
            twins.setdefault(carried[span.span_id], []).append(span)
    nodes = {}
    for span in shown:
        node = nodes[span.span_id] = step_read(span, labels[span.span_id], state, trace)
        for twin in twins.get(span.span_id, ()):
            read = step_read(twin, labels[span.span_id], state, trace)
            node.update({key: value for key, value in read.items() if key not in node})
    parents = span_parents(spans)
    parents = _shown_parents(parents, carried, nodes, _ran_beside(spans, carried, parents))
    roots: list[dict] = []
    for span in shown:
        parent_id = parents[span.span_id]
        node = nodes[span.span_id]
        (nodes[parent_id].setdefault("children", []) if parent_id else roots).append(node)
    for root in roots:
        _echoed_outputs_dropped(root)
        _layered_calls_folded(root)
    for node in nodes.values():
        if node["type"] == SpanKind.TOOL and "result" in node and "error" in node:
            _error_told_once(node)
    tree = trace_head(trace)
    if len(roots) == 1:
        # The root step sits at the top of the reading, beside the task and the answer.
        tree.update({key: value for key, value in roots[0].items() if key not in tree})
    else:
        tree.update({"name": "trace", "type": SpanKind.AGENT, "children": roots})
    return tree


def _ran_beside(spans: list[Span], carried: dict[str, str], parents: dict[str, str]) -> set[str]:
    """The tool spans in a merged member that encloses a model-call carrier: the member's, run
    beside the call (a Mastra turn's tools, on the reply the call streamed), not inside it."""
    if not carried:
        return set()
    calls = {span.span_id for span in spans if span.kind == SpanKind.LLM}
    return {
        span.span_id
        for span in spans
        if span.kind == SpanKind.TOOL
        and (carrier := carried.get(span.parent_span_id)) in calls
        and parents.get(carrier) == span.parent_span_id
    }


def _shown_parents(
    parents: dict[str, str], carried: dict[str, str], shown, beside: set[str]
) -> dict[str, str]:
    """Each shown span's parent among the shown: a merged member's place goes to its carrier
    (its own parent, for the carrier itself, and for what ran `beside` the carrier)."""
    if not carried:
        return parents
    visible = {}
    for span_id in shown:
        parent, hops = parents[span_id], 0
        while parent in carried and hops < len(parents):
            carrier = carried[parent]
            if carrier != span_id and carrier in shown and span_id not in beside:
                parent = carrier
                break
            parent, hops = parents[parent], hops + 1
        visible[span_id] = parent if parent in shown else ""
    return parents_acyclic(visible)


def _shown_keys(node: dict) -> set[str]:
    """What a step shows as its answer: a tool's result, a reply's messages and texts."""
    if node["type"] == SpanKind.TOOL:
        return {"result " + tool_result_key(node["result"])} if "result" in node else set()
    output = node.get("output")
    parts = code_run_parts(output)
    if parts:  # a code step's observation: the values its tool calls returned
        return {"result " + tool_result_key(part) for part in parts}
    if isinstance(output, str):
        return {output.strip()}
    if isinstance(output, dict):  # a step that answers with its tool's result
        return {"result " + tool_result_key(output)}
    if not isinstance(output, list):
        return set()
    keys = set()
    for message in output:
        if not isinstance(message, dict):
            keys.add(json.dumps(message, ensure_ascii=False, default=str))
            continue
        if set(message) == {"role", "tool_results"}:  # results handed on, as a tool node does
            keys |= {"result " + tool_result_key(r.get("result")) for r in message["tool_results"]}
            continue
        if "role" not in message:  # a value the step returned in a list, as a dict output is
            keys.add("result " + tool_result_key(message))
            continue
        keys.add(
            json.dumps(_call_ids_dropped(message), sort_keys=True, ensure_ascii=False, default=str)
        )
        if isinstance(message.get("text"), str):
            keys.add(message["text"])
            fields = adapter_fields(message["text"])
            if fields:  # a DSPy reply: the fields its modules' steps log it parsed to
                keys.add("result " + tool_result_key(fields))
    return keys


def _call_ids_dropped(message: dict) -> dict:
    """A message keyed without its calls' ids: a model call's own span may record a decision
    without the id the step around it gives it (OpenInference JS's flattened messages)."""
    calls = message.get("tool_calls")
    if not isinstance(calls, list) or not calls:
        return message
    bare = [
        {k: v for k, v in call.items() if k != "call_id"} if isinstance(call, dict) else call
        for call in calls
    ]
    return {**message, "tool_calls": bare}


def _error_told_once(tool: dict) -> None:
    """A failed call whose result is the text its error is told in (what the framework handed
    the model, LangGraph's ToolNode `Error: ConnectionError('...')\n Please fix your
    mistakes.`), or a part of that error: the error reads once, in the longer of the two."""
    told = tool_result_text(tool["result"])
    if told is None or not told.strip():
        return
    if tool["error"].endswith(told.strip()):  # the same, or after the exception's class
        del tool["result"]
    elif tool["error"] in told:
        tool["error"] = error_read(told.strip())
        del tool["result"]


def _echoed_outputs_dropped(node: dict) -> set[str]:
    """Drop the output of an agent or chain step that only repeats what steps inside it
    answered (a loop cycle's output is its model call's reply, a tool node's its tool's
    result): read twice, one decision looks like two. Returns what the node and the steps
    under it show."""
    below: set[str] = set()
    for child in node.get("children") or []:
        below |= _echoed_outputs_dropped(child)
    own = _shown_keys(node)
    if own and node["type"] == SpanKind.TOOL:
        _tool_layers_quieted(node, own)
    if node["type"] not in (SpanKind.LLM, SpanKind.TOOL) and own and own <= below:
        del node["output"]
    return below | own


def _tool_layers_quieted(tool: dict, result_keys: set[str]) -> None:
    """A plain step inside a tool call that returned the call's own result (LlamaIndex's
    `FunctionTool` under its tool-calling step) is the same call one layer down: its
    arguments and result, read on the call, are not read again."""
    for child in tool.get("children") or ():
        if child["type"] in (SpanKind.LLM, SpanKind.TOOL) or "output" not in child:
            continue
        if {"result " + tool_result_key(tool_result(child["output"]))} == result_keys:
            del child["output"]
            if tool_arguments(child.get("input")) == tool.get("arguments"):
                child.pop("input", None)


# What a model step says beyond being one: anything else is content.
_CALL_ONLY_KEYS = frozenset(("step", "name", "type", "model", "span_name", "children"))


def _layer_only(node: dict, under_call: bool) -> bool:
    """A model step that says nothing of its own, inside or around another model step: the
    same call as another instrumentation layer saw it (a framework's `call_llm` over the
    provider SDK's `openai.chat`). Or a plain step that says nothing inside a model call: the
    call's plumbing, such as the HTTP request the provider SDK sent for it, as an HTTP client
    instrumentation saw it (`POST`, which `openlit.init` turns on), or LiteLLM's
    `raw_gen_ai_request` (the provider's request and reply, read on the call)."""
    if node["type"] != SpanKind.LLM:
        return under_call and node["type"] == SpanKind.CUSTOM and node.keys() <= _CALL_ONLY_KEYS
    if not node.keys() <= _CALL_ONLY_KEYS:
        return False
    return under_call or any(c["type"] == SpanKind.LLM for c in node.get("children") or [])


def _layered_calls_folded(root: dict) -> None:
    """Read a call that several layers reported as one step: a layer-only model step gives
    its place to its children, and a model step that only repeats the one call around it is
    read into that call. Iterative: deep agent loops must not hit the recursion limit."""
    holding = _calls_held(root)
    stack = [root]
    while stack:
        node = stack.pop()
        under_call = node["type"] == SpanKind.LLM
        kept = _unlayered(node.get("children") or [], under_call)
        if len(kept) > 1 and any(id(c) in holding for c in kept):
            kept = [child for child in kept if not _bookkeeping(child)]
        while under_call:
            inner = _repeated_call(node, kept)
            if inner is None:
                break
            child = kept[inner]
            node.update({k: v for k, v in child.items() if k not in node and k not in _PLACE_KEYS})
            kept[inner : inner + 1] = _unlayered(child.get("children") or [], True)
        if kept:
            node["children"] = kept
        else:
            node.pop("children", None)
        stack.extend(kept)


_CALL_TYPES = (SpanKind.LLM, SpanKind.TOOL)


def _bookkeeping(node: dict) -> bool:
    """A framework step beside model or tool calls, or beside steps that hold them, that says
    nothing and holds nothing: a loop's bookkeeping, which only names itself (CrewAI's agent
    executor flow, `check_max_iterations`, `increment_and_continue` ..., each an `invoke_agent`
    span under OpenLIT; a LangGraph node's `call_model` and a `Prompt` that gave nothing new,
    each a chain under Langfuse's LangChain handler)."""
    return (
        node["type"] in _FRAMEWORK_TYPES
        and not node.get("children")
        and node.keys() <= _CALL_ONLY_KEYS
    )


_FRAMEWORK_TYPES = (SpanKind.AGENT, SpanKind.CUSTOM)


def _calls_held(root: dict) -> set[int]:
    """The ids of the steps under `root` that are model or tool calls or hold one. Iterative,
    as _layered_calls_folded is."""
    order, stack = [], [root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(node.get("children") or ())
    holding: set[int] = set()
    for node in reversed(order):  # children before their parent
        if node["type"] in _CALL_TYPES or any(
            id(child) in holding for child in node.get("children") or ()
        ):
            holding.add(id(node))
    return holding


def _unlayered(children: list[dict], under_call: bool) -> list[dict]:
    """The children, each layer-only step replaced by its own children, in order."""
    # Last child on top: a step's place goes to its children, in order, in O(1) each.
    pending, kept = list(reversed(children)), []
    while pending:
        child = pending.pop()
        if _layer_only(child, under_call):
            pending.extend(reversed(child.get("children") or []))
        else:
            kept.append(child)
    return kept


# What names a step and places it: the outer call's own, when an inner layer is read into it.
_PLACE_KEYS = frozenset(("step", "name", "span_name", "children"))
# What a model step reads as: the call's content, compared across the layers that report it.
_CALL_CONTENT_KEYS = ("new_input", "output", "finish_reason", "error")


def _repeated_call(call: dict, children: list[dict]) -> int | None:
    """The index of the one model step inside a model call that is the same call as another
    layer saw it (LiteLLM's `completion` inside DSPy's `LM.__call__`): the only model step
    there, its content nothing the call says otherwise (its input shown by the call, its
    reply the same). None when there is no such step."""
    inner = None
    for index, child in enumerate(children):
        if child["type"] == SpanKind.LLM:
            if inner is not None:
                return None  # several calls inside one (a retry): each read as itself
            inner = index
    if inner is None:
        return None
    child = children[inner]
    for key in _CALL_CONTENT_KEYS:
        if key in child and key in call and child[key] != call[key]:
            return None
    return inner


# What a step ends with: shown after the steps inside it, in the order it happened (a model call
# that ran tools inside it, as the Google Gen AI SDK's automatic function calling does, answered
# after them).
CLOSING_KEYS = ("output", "result", "finish_reason", "error")


def tree_json(node: dict, depth: int = 0) -> str:
    """The reading as JSON a judge reads at a glance: the top's fields one a line, then one
    line per step, indented by depth. Valid JSON in a fraction of an indented dump's lines."""
    pad = " " * depth
    children = node.get("children") or []
    closing = {key: node[key] for key in CLOSING_KEYS if children and key in node}
    head = {key: value for key, value in node.items() if key != "children" and key not in closing}
    closed = "".join(
        f", {json.dumps(key)}: {json.dumps(value, ensure_ascii=False, default=str)}"
        for key, value in closing.items()
    )
    if depth == 0:
        fields = [
            f" {json.dumps(key)}: {json.dumps(value, ensure_ascii=False, default=str)}"
            for key, value in head.items()
        ]
        if children:
            inner = ",\n".join(tree_json(child, 2) for child in children)
            fields.append(f' "children": [\n{inner}\n ]' + closed.replace(", ", ",\n ", 1))
        return "{\n" + ",\n".join(fields) + "\n}"
    text = json.dumps(head, ensure_ascii=False, default=str)
    if not children:
        return pad + text
    inner = ",\n".join(tree_json(child, depth + 1) for child in children)
    opening = text[:-1] + ", " if head else "{"
    return f'{pad}{opening}"children": [\n{inner}\n{pad}]{closed}}}'


def _text(value) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _lines_keyed(node: dict, depth: int, out: list[tuple[tuple, str]]) -> int:
    """Append a step's lines and its inner steps', each keyed to its place in step order: what
    a step ends with after the last step inside it. The last step number under `node`."""
    last = node.get("step", 0)
    opening, closing = _transcript_lines(node) if "step" in node else ([], [])
    out += [((last, 0, 0), line) for line in opening]
    for child in node.get("children") or []:
        last = max(last, _lines_keyed(child, depth + 1, out))
    out += [((last, 1, -depth), line) for line in closing]  # inner steps end first
    return last


def _transcript_lines(node: dict) -> tuple[list[str], list[str]]:
    """A step's lines, as it opens and as it ends: tool call, then result; or the model's new
    input, then its answer."""
    at = f"[step {node['step']}]"
    name = node["name"]
    if node["type"] == SpanKind.TOOL:
        call_id = f" (call_id {node['call_id']})" if node.get("call_id") else ""
        closing = []
        if "result" in node:
            closing.append(f"{at} TOOL RESULT {name}: {_text(node['result'])}")
        if "error" in node:
            closing.append(f"{at} TOOL ERROR {name}: {node['error']}")
        return [f"{at} TOOL CALL {name}{call_id}: {_text(node.get('arguments'))}"], closing
    opening, closing = [], []
    for field, who in (("new_input", "INPUT"), ("input", "INPUT"), ("output", "OUTPUT")):
        value = node.get(field)
        if value is None:
            continue
        lines = opening if field != "output" else closing
        if isinstance(value, list) and all(isinstance(m, dict) and "role" in m for m in value):
            lines += [_message_line(at, name, m, output=field == "output") for m in value]
        else:
            lines.append(f"{at} {name} {who}: {_text(value)}")
    if node.get("finish_reason"):
        closing.append(f"{at} {name} STOPPED: {node['finish_reason']}")
    if "error" in node:
        closing.append(f"{at} {name} ERROR: {node['error']}")
    return opening, closing


def _message_line(at: str, name: str, message: dict, *, output: bool) -> str:
    role = message["role"].upper()
    if role == "USER" and not output and set(message) == {"role", "text"}:
        return f"USER: {message['text']}"  # a later turn of the conversation, not a step
    who = f"{role} ({name})" if output else role
    parts = [message["text"]] if message.get("text") else []
    for call in message.get("tool_calls") or []:
        call_id = f" (call_id {call['call_id']})" if call.get("call_id") else ""
        parts.append(f"calls {call['tool']}{call_id} {_text(call.get('arguments'))}")
    for result in message.get("tool_results") or []:
        label = "error" if result.get("error") else "result"
        parts.append(f"{label} for call_id {result['call_id']}: {_text(result.get('result'))}")
    return f"{at} {who}: {' | '.join(parts)}"


def trace_transcript(trace: Trace, spans: list[Span] | None = None) -> str:
    """A plain-text transcript: the task, each step in order, the final answer, the stop."""
    tree = trace_span_tree(trace, spans)
    lines = [f"USER: {trace.task}"]
    if tree.get("available_tools"):
        names = ", ".join(tool["name"] for tool in tree["available_tools"])
        lines.append(f"AVAILABLE TOOLS: {names}")
    keyed: list[tuple[tuple, str]] = []
    _lines_keyed(tree, 0, keyed)
    lines += [line for _, line in sorted(keyed, key=lambda item: item[0])]
    lines.append(f"FINAL ANSWER: {trace.final_answer}")
    if tree.get("stop_reason"):
        lines.append(f"STOP REASON: {tree['stop_reason']}")
    return "\n".join(lines)
