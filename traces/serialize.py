"""The two ways a judge reads a trace: the nested span tree, or a transcript."""

from collections import Counter

from traces.messages import messages_read
from traces.models import Span, SpanKind, Trace
from traces.selectors import span_parents


def _node(span: Span) -> dict:
    node = {"name": span.name, "type": span.kind, "input": span.input, "output": span.output}
    if span.status == "error":
        node["error"] = span.error_message or "error"
    node["children"] = []
    return node


def trace_span_tree(trace: Trace, spans: list[Span] | None = None) -> dict:
    """Nested `{name, type, input, output, children}` JSON, children in start order.

    Spans whose parent never arrived hang under the root so nothing is hidden from the judge.
    """
    if spans is None:
        spans = list(trace.spans.order_by("position", "pk"))
    nodes = {span.span_id: _node(span) for span in spans}
    parents = span_parents(spans)
    roots: list[dict] = []
    for span in spans:
        parent_id = parents[span.span_id]
        (nodes[parent_id]["children"] if parent_id else roots).append(nodes[span.span_id])
    if len(roots) == 1:
        tree = roots[0]
    else:
        tree = {
            "name": "trace",
            "type": SpanKind.AGENT,
            "input": trace.task,
            "output": trace.final_answer,
            "children": roots,
        }
    if trace.context.get("available_tools"):
        tree["available_tools"] = trace.context["available_tools"]
    return tree


def trace_transcript(trace: Trace, spans: list[Span] | None = None) -> str:
    """A plain-text transcript: the task, each LLM/tool step in order, the final answer."""
    if spans is None:
        spans = list(trace.spans.order_by("position", "pk"))
    lines = [f"USER: {trace.task}"]
    users_shown = Counter([(trace.task or "").strip()])
    for span in spans:
        if span.kind == SpanKind.LLM:
            lines.extend(f"USER: {text}" for text in _new_user_turns(span.input, users_shown))
        if span.kind == SpanKind.TOOL:
            lines.append(f"TOOL CALL {span.tool_name or span.name}: {span.input}")
            label = "TOOL ERROR" if span.status == "error" else "TOOL RESULT"
            lines.append(
                f"{label}: {span.output if span.output is not None else span.error_message}"
            )
        elif span.kind == SpanKind.LLM and span.output:
            lines.append(f"ASSISTANT ({span.name}): {span.output}")
        elif span.kind == SpanKind.RETRIEVER:
            lines.append(f"RETRIEVED {span.name}: {span.output}")
    lines.append(f"FINAL ANSWER: {trace.final_answer}")
    return "\n".join(lines)


def _new_user_turns(value, shown: Counter) -> list[str]:
    """User turns of a model call's input not yet in the transcript. Calls resend the whole
    history or only what is new; counting each text either way shows every turn once."""
    if not isinstance(value, list | dict | str):
        return []
    here: Counter = Counter()
    new = []
    for message in messages_read(value) or ():
        text = message.text.strip()
        if message.role != "user" or not text:
            continue
        here[text] += 1
        if here[text] > shown[text]:
            shown[text] += 1
            new.append(text)
    return new
