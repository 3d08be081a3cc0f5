"""One reading of a trace, for the people on its page and for the judges that score it.

Each span becomes a step: numbered in trace order, labelled the way a judge cites it (a tool
step by its tool, `lookup_order#2` for the second call of a tool called more than once), with
the fields ingest mapped rather than the raw payloads: a tool's call id, arguments, result and
error; a model call's new input (what it was given that no earlier step showed, never the
whole resent history) and its answer (text and tool calls); the stop reason it gave.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from core.json_text import json_text_decoded
from traces.ingest.calls import MERGED_KEY
from traces.ingest.failures import (
    NO_TEXT_RULE,
    FailureRule,
    result_failed,
    result_text_readable,
    trace_failure_rule,
)
from traces.messages import (
    MESSAGE_LISTS,
    OBJECT_REPR,
    Message,
    ToolResult,
    messages_read,
    object_repr,
    python_literal_maybe,
    readable_text,
)
from traces.models import Span, SpanKind, SpanStatus, Trace
from traces.repr_fields import repr_fields
from traces.stop_reasons import StopKind, finish_reason_of, stop_reason_normalize
from traces.untold_replies import replies_untold, reply_missing


@dataclass(frozen=True)
class StepLabel:
    step: int
    label: str
    base: str


def span_base_name(span: Span) -> str:
    """What a span is called in the reading: the tool for a tool step, else its span name."""
    if span.kind == SpanKind.TOOL and span.tool_name:
        return span.tool_name
    return span.name or span.kind


def step_labels(spans: list[Span], carried: dict[str, str] | None = None) -> dict[str, StepLabel]:
    """Step number and citation label of each span of one trace that the reading shows, `spans`
    in trace order: a span's step is its place in the trace, as its page numbers it. A merged
    call (`carried`, merged_members) is one step, its carrier's, numbered by its first span."""
    return step_labels_carried(spans, carried_present(carried, spans))


def step_labels_carried(spans: list[Span], carried: dict[str, str]) -> dict[str, StepLabel]:
    """step_labels with `carried` already what carried_present gives for `spans`."""
    step: dict[str, int] = {}
    for index, span in enumerate(spans, start=1):
        step.setdefault(carried.get(span.span_id, span.span_id), index)
    if carried:
        shown = (span for span in spans if span.span_id not in carried)
        spans = sorted(shown, key=lambda span: step[span.span_id])
    totals = Counter(span_base_name(span) for span in spans)
    seen: Counter = Counter()
    labels = {}
    for span in spans:
        base = span_base_name(span)
        seen[base] += 1
        label = f"{base}#{seen[base]}" if totals[base] > 1 else base
        labels[span.span_id] = StepLabel(step[span.span_id], label, base)
    return labels


def carried_present(carried: dict[str, str] | None, spans: list[Span]) -> dict[str, str]:
    """The merged members whose carrier is among `spans`: only those give their place to it;
    and each step a second instrumentation reported again (layer_twins), to the first."""
    twins = layer_twins(spans)
    if not carried:
        return twins
    ids = {span.span_id for span in spans}
    present = {member: carrier for member, carrier in carried.items() if carrier in ids}
    return {**twins, **present} if twins else present


# The instrumentation library that reported a span (OTLP's scope), as ingest stores it.
SCOPE_ATTRIBUTE = "otel.scope.name"
# The twins a step is compared with: a node's two reports start within a few spans.
TWIN_LOOKAHEAD = 3
# Read once: each SpanKind.X is a metaclass attribute lookup, and layer_twins reads it a span.
_TWIN_KINDS = (SpanKind.AGENT.value, SpanKind.CUSTOM.value)
_ERROR = SpanStatus.ERROR.value


def layer_twins(spans: list[Span]) -> dict[str, str]:
    """Each framework step two instrumentations reported, among one trace's spans, the later
    span to the earlier: OpenLIT traces each LangGraph node from its LangGraph instrumentation
    and again from its LangChain one, two sibling spans of one name and kind, one running inside
    the other's time. The later reads into the earlier (step_read of both), so the node is one
    step with one label; only spans that never both give one field pair, so nothing either says
    is lost."""
    by_place: dict[tuple, list[Span]] = {}
    for span in spans:
        if span.kind in _TWIN_KINDS and span.started_at and span.ended_at:
            by_place.setdefault((span.parent_span_id, span.name, span.kind), []).append(span)
    twins: dict[str, str] = {}
    for group in by_place.values():
        if len(group) < 2:
            continue
        paired: set[str] = set()
        for index, first in enumerate(group):
            if first.span_id in paired:
                continue
            for second in group[index + 1 : index + 1 + TWIN_LOOKAHEAD]:
                if second.span_id not in paired and _twins(first, second):
                    twins[second.span_id] = first.span_id
                    paired |= {first.span_id, second.span_id}
                    break
    return twins


def _twins(first: Span, second: Span) -> bool:
    scope = (first.attributes or {}).get(SCOPE_ATTRIBUTE)
    other = (second.attributes or {}).get(SCOPE_ATTRIBUTE)
    if not scope or not other or scope == other:
        return False
    if first.started_at > second.ended_at or second.started_at > first.ended_at:
        return False
    if first.status == _ERROR and second.status == _ERROR:
        return False
    pairs = (first.input, second.input), (first.output, second.output)
    return not any(_said(one) and _said(other) for one, other in pairs)


def _said(value) -> bool:
    return value not in (None, "", [], {})


def traces_merged_members(traces) -> dict[int, dict[str, str]]:
    """merged_members of each trace, by its pk, for readings and citations of several."""
    return {trace.pk: merged_members(trace) for trace in traces}


def merged_members(trace: Trace) -> dict[str, str]:
    """Each span whose call another span carries (merged at ingest, traces.ingest.calls), to
    that carrier: the reading shows the carrier alone, numbered as the judge cites it."""
    merged = (trace.attributes or {}).get(MERGED_KEY)
    if not isinstance(merged, dict):
        return {}
    return {
        member: carrier
        for carrier, members in merged.items()
        if isinstance(members, list)
        for member in members
        if isinstance(member, str) and member != carrier
    }


def citation_names(
    spans: list[Span], carried: dict[int, dict[str, str]] | None = None
) -> list[tuple[str, str]]:
    """(span id, a name a judge may cite it by) for every step the reading shows: its label,
    its tool or span name (a bare name shared by several spans cites them all) and `step N`.
    `carried` holds each trace's merged members by trace pk (traces_merged_members)."""
    by_trace: dict[int, list[Span]] = {}
    for span in spans:  # a session's spans: each trace numbers its own steps
        by_trace.setdefault(span.trace_id, []).append(span)
    pairs = []
    shown: set[str] = set()
    for trace_id, trace_spans in by_trace.items():
        labels = step_labels(trace_spans, (carried or {}).get(trace_id))
        shown |= labels.keys()
        for span_id, label in labels.items():
            pairs += [(span_id, label.label), (span_id, label.base)]
            pairs += [(span_id, f"step {label.step}"), (span_id, f"Step {label.step}")]
    for span in spans:
        if span.name and span.span_id in shown and span.name != span_base_name(span):
            pairs.append((span.span_id, span.name))
    return list(dict.fromkeys(pairs))


def tools_listed(tools) -> list[dict]:
    """Available tools as a clean list: name, description and parameter names, whatever shape
    (Anthropic, OpenAI function, MCP, plain names) they were declared in."""
    listed = []
    for tool in tools if isinstance(tools, list) else []:
        if isinstance(tool, str):
            listed.append({"name": tool})
            continue
        if not isinstance(tool, dict):
            continue
        spec = tool.get("function") if isinstance(tool.get("function"), dict) else tool
        name = spec.get("name")
        if not name:
            continue
        entry = {"name": str(name)}
        if spec.get("description"):
            entry["description"] = str(spec["description"])
        schema = spec.get("input_schema") or spec.get("parameters") or spec.get("inputSchema")
        if isinstance(schema, dict) and isinstance(schema.get("properties"), dict):
            entry["parameters"] = list(schema["properties"])
        listed.append(entry)
    return listed


def _json_key(value) -> str:
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)


# Keys a framework wraps a tool's return in when it hands it back to the model (Google ADK's
# function_response: {"result": "<the tool's JSON text>"}), and a failed call's error as its
# tool step reads it (`{"error": ...}`) while the model is handed the text.
_RESULT_WRAPPERS = frozenset(("result", "output", "content", "error"))


def tool_result_key(content) -> str:
    """A tool result as the same value whether read on its tool step or handed back wrapped."""
    value = json_text_decoded(content)
    if isinstance(value, dict) and len(value) == 1 and next(iter(value)) in _RESULT_WRAPPERS:
        value = json_text_decoded(next(iter(value.values())))
    return _json_key(value)


# smolagents' CodeAgent: the model's code runs as a `python_interpreter` call, and what the
# run printed and returned comes back as one observation text.
CODE_BLOCK = re.compile(r"<code>\n?(.*?)\n?</code>", re.S)
CODE_TOOL = "python_interpreter"
EXECUTION_LOGS, LAST_OUTPUT = "Execution logs:\n", "Last output from code snippet:\n"


def tool_result_text(content) -> str | None:
    """A tool result as the text it is, unwrapped as tool_result_key unwraps it (Haystack's
    `{"error": "<text>"}`); None for a result that is data."""
    value = json_text_decoded(content)
    if isinstance(value, dict) and len(value) == 1 and next(iter(value)) in _RESULT_WRAPPERS:
        value = next(iter(value.values()))
    return value if isinstance(value, str) else None


def code_run_parts(text) -> list | None:
    """A code step's observation, `Execution logs:\n<printed>\nLast output from code
    snippet:\n<value>`, as the values it holds (each printed line, the last value unless
    None); None for any other text."""
    if not isinstance(text, str) or not text.startswith(EXECUTION_LOGS):
        return None
    logs, _, last = text[len(EXECUTION_LOGS) :].partition(LAST_OUTPUT)
    parts = [line for line in logs.splitlines() if line.strip()]
    if last.strip() not in ("", "None"):
        parts.append(last.strip())
    return parts


# DSPy's ChatAdapter: a reply gives each output field under a `[[ ## <field> ## ]]` header,
# ending with `[[ ## completed ## ]]`; DSPy's own steps then log the fields it parsed.
ADAPTER_FIELD = re.compile(r"\[\[ ## (\w+) ## \]\]\n?(.*?)(?=\n*\[\[ ## |\Z)", re.S)
ADAPTER_OPENING, ADAPTER_END = "[[ ## ", "completed"


def adapter_fields(text) -> dict | None:
    """A reply in DSPy's field format as the fields it gives, JSON values decoded; None for
    any other text."""
    if not isinstance(text, str) or not text.startswith(ADAPTER_OPENING):
        return None
    fields = {
        name: json_text_decoded(value.strip())
        for name, value in ADAPTER_FIELD.findall(text)
        if name != ADAPTER_END
    }
    return fields or None


def _message_key(message: Message) -> tuple:
    calls = tuple((call.name, _json_key(call.arguments)) for call in message.tool_calls)
    results = tuple(_json_key(result.content) for result in message.tool_results)
    return (message.role, message.text.strip(), calls, results)


def message_compact(message: Message, failed: Callable[[ToolResult], bool] | None = None) -> dict:
    """A message as the reading shows it: role, text, tool calls and results, nothing else. A
    result is marked `"error": true` when flagged so, or when `failed` reads it as failed."""
    out: dict = {"role": message.role}
    if message.text.strip():
        out["text"] = tracebacks_shortened(message.text.strip())
    if message.tool_calls:
        out["tool_calls"] = [
            {"tool": call.name, "call_id": call.id, "arguments": call.arguments}
            if call.id
            else {"tool": call.name, "arguments": call.arguments}
            for call in message.tool_calls
        ]
    for result in message.tool_results:
        entry = {"call_id": result.id, "result": result.content}
        if not result.id and result.name:  # a result that names its tool, not its call
            entry = {"call_id": "", "tool": result.name, "result": result.content}
        if result.is_error or (failed is not None and failed(result)):
            entry["error"] = True
        out.setdefault("tool_results", []).append(entry)
    return out


class ReadingState:
    """What earlier steps already showed, so each step shows only what is new. A model call
    resends the whole history or only what is new; counting each message either way shows
    every message once."""

    def __init__(self, trace: Trace):
        self.shown: Counter = Counter()
        self.results_shown: set[str] = set()
        if trace.task:
            self.shown[("user", trace.task.strip(), (), ())] += 1
        # the arguments each call id was decided with, by the model calls read so far
        self.decided: dict[str, object] = {}
        # tool steps whose span recorded no result (AutoGen's `execute_tool`), by call id
        self.awaiting_result: dict[str, dict] = {}
        # tool steps read as succeeded, by their result
        self.succeeded: dict[str, dict] = {}
        # what framework steps showed, by step name, field and key: (step, value), the latest
        self.framework_shown: dict[tuple[str, str, str], list[tuple[int, object]]] = {}
        # the ids of calls decided that no tool step named yet, by (tool, arguments), in order
        self.unclaimed: dict[tuple[str, str], list[str]] = {}
        # the error each failed tool step showed, by its call id
        self.errors_shown: dict[str, str] = {}
        # failed tool steps that read no result, by their call id: a text handed back later
        # that tells the error completes them
        self.failures_untold: dict[str, dict] = {}
        # calls a model step's reply showed without their id, by (tool, arguments), in order
        self.idless: dict[tuple[str, str], list[dict]] = {}
        # the trace's spans in order (set by the reader), and the replies model calls did not
        # record, read from them when one is first wanted
        self.spans: list[Span] = []
        self.untold: dict[str, Message] | None = None
        self.trace = trace
        # read when first wanted: whether a tool span was traced, how the project reads a
        # tool result's failure
        self.tool_traced: bool | None = None
        self.failure_rule: FailureRule | None = None

    def told_failed(self, result: ToolResult) -> bool:
        """A result handed back that the checks read as a failed call (metrics.steps), by the
        rule its project reads them by (metrics.told_failures): flagged, a structured error, or
        an error by its text as the project reads text. The project is read for the first
        result with text that neither its flag nor its structure says failed."""
        if result_failed(result, NO_TEXT_RULE):
            return True
        if not result_text_readable(result.content):
            return False
        if self.failure_rule is None:
            self.failure_rule = trace_failure_rule(self.trace)
        return result_failed(result, self.failure_rule)

    def result_failed_unflagged(self, result: ToolResult) -> bool:
        """A result a message shows as failed beyond its own flag: where no tool span was
        traced, the checks read the calls from the messages (told_failed); a tool span reads
        its own failure, marked on its step."""
        if self.tool_traced is None:
            self.tool_traced = any(span.kind == SpanKind.TOOL for span in self.spans)
        return not self.tool_traced and self.told_failed(result)

    def reply_untold(self, span: Span) -> Message | None:
        """The reply a model call did not record, as the next call's history tells it."""
        if self.untold is None:
            self.untold = replies_untold(self.spans)
        return self.untold.get(span.span_id)

    def new_messages(self, messages: list[Message]) -> list[Message]:
        self._calls_noted(messages)
        self._results_placed(messages)
        here: Counter = Counter()
        new = []
        for message in messages:
            key = _message_key(message)
            if key == (message.role, "", (), ()):
                continue
            here[key] += 1
            if here[key] > self.shown[key]:
                self.shown[key] += 1
                if not self._only_results_shown(message):
                    new.append(message)
        return new

    def repeats_referred(self, name: str, field: str, value, step: int):
        """A framework step's value with each part (a dict's entries, or the whole) that a step
        of the same name showed before, at length, read as a reference to that step: DSPy's
        adapter is handed the module's whole signature every round, LlamaIndex's workflow
        steps the same history in turn."""
        parts = value.items() if isinstance(value, dict) else (("", value),)
        read = {}
        for key, part in parts:
            earlier = self.framework_shown.setdefault((name, field, key), [])
            shown_at = next((at for at, shown in earlier if shown == part), None)
            if shown_at is not None and _long(part):
                part = f"(the same as in step {shown_at})"
            elif shown_at is None:
                earlier.append((step, part))
                del earlier[:-FRAMEWORK_VALUES_KEPT]
            read[key] = part
        return read if isinstance(value, dict) else read[""]

    def messages_shown(self, messages: list[Message]) -> None:
        """Messages shown whatever came before (a model call's reply): a history that later
        holds one twice (a retried decision) has shown both. A reply's code blocks count as
        the `python_interpreter` calls a code agent's history tells them as."""
        self._calls_noted(messages)
        for message in messages:
            key = _message_key(message)
            if key != (message.role, "", (), ()):
                self.shown[key] += 1
            if message.role == "assistant" and "<code>" in message.text:
                for code in CODE_BLOCK.findall(message.text):
                    call = ((CODE_TOOL, _json_key(code.strip())),)
                    self.shown[("assistant", "", call, ())] += 1

    def _only_results_shown(self, message: Message) -> bool:
        """A message that only hands back tool results their tool steps showed already (a tool
        message recorded without its call id reads as text: OpenInference JS's flattened ones)."""
        if message.role == "tool" and not message.tool_results and not message.tool_calls:
            text = message.text.strip()
            return bool(text) and (self._result_shown(text) or self._failure_told(text))
        return bool(message.tool_results) and (
            not message.text.strip()
            and not message.tool_calls
            and all(
                self._result_shown(r.content) or self._error_shown(r) for r in message.tool_results
            )
        )

    def _error_shown(self, result: ToolResult) -> bool:
        """A failed call's error handed back as text (`Error: <what the tool raised>`) after
        its tool step showed the error."""
        error = self.errors_shown.get(result.id) if result.id else None
        return bool(error) and error in _text_of(result.content)

    def _failure_told(self, text: str) -> bool:
        """A tool message without its call id whose text tells the error a failed tool step
        showed (OpenLIT's LangChain instrumentation names a failed call by its run id, and its
        chat spans hand the tool messages back as text): read on that step, as its result."""
        for call_id, node in self.failures_untold.items():
            if "result" not in node and node["error"] in text:
                node["result"] = text
                del self.failures_untold[call_id]
                return True
        return False

    def call_claimed(self, tool: str, arguments) -> str:
        """The id of the earliest call decided with this tool and these arguments that no tool
        step named yet, for a tool step whose span records no call id (Langfuse's `@observe`
        tools); "" when no model call decided it."""
        ids = self.unclaimed.get((tool, _json_key(arguments)))
        return ids.pop(0) if ids else ""

    def _result_shown(self, content) -> bool:
        parts = code_run_parts(content)
        if parts is not None:  # a code run's observation: every value in it shown already
            return all(tool_result_key(part) in self.results_shown for part in parts)
        return tool_result_key(content) in self.results_shown

    def tool_result_shown(self, content) -> None:
        """A tool step's result: the model call that later reads it need not show it again."""
        self.shown[("tool", "", (), (_json_key(content),))] += 1
        self.results_shown.add(tool_result_key(content))

    def tool_step_noted(self, node: dict, span: Span, errored: bool) -> None:
        """A tool step a later model call's input may complete: with the result its span did
        not record (what the model was told of a failure too: AutoGen's failed `execute_tool`
        records the exception, not the text handed back), or with the failure its span did not
        mark."""
        if span.output is None and span.tool_call_id:
            self.awaiting_result[span.tool_call_id] = node
        elif span.output is not None and not errored:
            self.succeeded[tool_result_key(span.output)] = node

    def _calls_noted(self, messages: list[Message]) -> None:
        for message in messages:
            for call in message.tool_calls:
                if call.id and call.id not in self.decided:
                    self.decided[call.id] = call.arguments
                    key = (call.name, _json_key(call.arguments))
                    self.unclaimed.setdefault(key, []).append(call.id)
                    if shown := self.idless.get(key):
                        _call_id_given(shown.pop(0), call.id)

    def idless_noted(self, compact: list[dict]) -> None:
        """The calls a reply showed without their id (LiteLLM's flattened reply calls): the
        history a later model call is handed names them, and gives the earliest its id."""
        for message in compact:
            for call in message.get("tool_calls") or ():
                if "call_id" not in call:
                    key = (call["tool"], _json_key(call["arguments"]))
                    self.idless.setdefault(key, []).append(call)

    def _results_placed(self, messages: list[Message]) -> None:
        """Each result handed back to the model, read on its tool step instead where that step
        lacks it (a span that records only the call id), and a result handed back as an error
        marks the step that read it as a success failed (OpenInference's AgentChat tool span
        stays OK when the tool raised)."""
        for message in messages:
            for result in message.tool_results:
                node = self.awaiting_result.pop(result.id, None) if result.id else None
                failed = result.is_error
                if node is not None:
                    error = node.pop("error", None)  # read after the result, as on other steps
                    node["result"] = result.content
                    if error is not None:
                        node["error"] = error
                    self.tool_result_shown(result.content)
                    # the checks read this step's result by the messages' rule (metrics.steps)
                    failed = "error" not in node and self.told_failed(result)
                elif failed:
                    node = self.succeeded.pop(tool_result_key(result.content), None)
                if node is not None and failed and "error" not in node:
                    node["error"] = error_read(_text_of(result.content))


def _text_of(value) -> str:
    return value if isinstance(value, str) else _json_key(value)


# A value a framework step repeats is referred to from this length on (shorter ones read
# as they are: a reference would be as long).
REPEAT_REFER_CHARS = 200
# The distinct values compared a framework step's part with: bounded, as a long run's steps
# each compare.
FRAMEWORK_VALUES_KEPT = 8


def _long(value) -> bool:
    if isinstance(value, str):
        return len(value) >= REPEAT_REFER_CHARS
    if not isinstance(value, dict | list):
        return False
    return len(json.dumps(value, ensure_ascii=False, default=str)) >= REPEAT_REFER_CHARS


def _value(value, state: ReadingState, *, always: bool = False):
    """A span value as read: messages compacted (only the new ones unless `always`), else the
    value itself."""
    messages = messages_read(value) if isinstance(value, list | dict | str) else None
    if not messages and isinstance(value, str):
        # A Python repr some frameworks log (`{'role': 'assistant', 'text': ...}`) reads as data.
        value = python_literal_maybe(value)
        messages = messages_read(value) if value.__class__ is not str else None
    if not messages:
        return value
    if always:
        state.messages_shown(messages)
        compact = [message_compact(m, state.result_failed_unflagged) for m in messages]
        if any(not call.id for m in messages for call in m.tool_calls):
            state.idless_noted(compact)
        return compact
    return [message_compact(m, state.result_failed_unflagged) for m in state.new_messages(messages)]


def _call_id_given(call: dict, call_id: str) -> None:
    """A call shown without its id, given it in place, before its arguments."""
    arguments = call.pop("arguments")
    call.update(call_id=call_id, arguments=arguments)


# Framework state objects logged as their repr, the run's whole state inside (history that
# grows with every step): LangGraph's conditional edges return Send objects, smolagents' steps
# start from a blank ActionStep. Read as their class and first field, what they say.
_STATE_REPR = re.compile(
    r"^(?P<cls>Send|ActionStep|PlanningStep|TaskStep)\((?P<first>\w+=(?:'[^']*'|[^,)]*))"
)
# Any other object's keyword repr longer than this is read as its class and plain fields:
# LlamaIndex's workflow events (`AgentInput(input=[ChatMessage(...), ...])`) carry the history.
REPR_SHORTEN_CHARS = 100
_PLAIN_FIELD = re.compile(
    r"^(?P<key>\w+)=(?:(?P<text>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|-?\d[\d.e+-]*)"
    r"|<\w+(?:\.\w+)*: (?P<enum>'[^']*'|\d+)>)$"
)
_KEY = re.compile(r"\w+=")
# Keys under which a framework logs its own machinery's state, not the run's: LlamaIndex
# workflows' serialized context (every step's queue and config) at the start of a run.
FRAMEWORK_STATE_KEYS = frozenset(("init_state",))
# LangGraph's Send written as JSON (Langfuse's serializer): its node and its whole argument.
_SEND_KEYS = frozenset(("node", "arg", "timeout"))


def _plain_fields(parts: list[str]) -> list[str] | None:
    """The text, number and enum fields of `key=value` parts; None if a part is no field."""
    kept = []
    for part in parts:
        if not _KEY.match(part):
            return None
        field = _PLAIN_FIELD.match(part)
        if field:
            kept.append(f"{field['key']}={field['text'] or field['enum']}")
    return kept


def keyword_repr_shortened(text: str) -> str:
    """`Cls(a='x', b=[...], c=Other(...))` as `Cls(a='x')`: its class and its text, number and
    enum fields; None, collections and nested objects (the history a framework event carries)
    left out. A pydantic model's str(), `a='x' b=[...] f=<function f at 0x...>`, likewise."""
    found = OBJECT_REPR.match(text)
    if found is not None and found["cls"]:
        kept = _plain_fields(repr_fields(text[found.end() :]))
        return text if kept is None else f"{found['cls']}({', '.join(kept)})"
    if found is None and _KEY.match(text):
        kept = _plain_fields(repr_fields(text, spaced=True))
        return text if not kept else " ".join(kept)
    return text


def _state_reprs_shortened(value, depth: int = 0):
    if isinstance(value, str):
        value = tracebacks_shortened(value)
        found = _STATE_REPR.match(value)
        if found:
            return f"{found['cls']}({found['first']})"
        return keyword_repr_shortened(value) if len(value) > REPR_SHORTEN_CHARS else value
    if depth < 3 and isinstance(value, list):
        return [_state_reprs_shortened(item, depth + 1) for item in value]
    if depth < 3 and isinstance(value, dict):
        if "node" in value and "arg" in value and value.keys() <= _SEND_KEYS:
            return f"Send(node={value['node']!r})"  # a Send as its fields, written as JSON
        return {
            # a message list's reprs are messages, read as such (only the new ones shown)
            key: item if key in MESSAGE_LISTS else _state_reprs_shortened(item, depth + 1)
            for key, item in value.items()
            if key not in FRAMEWORK_STATE_KEYS
            # `<workflows.context.context.Context object at 0x7f...>`: an address, nothing to read
            and not (isinstance(item, str) and item[:1] == "<" and object_repr(item))
        }
    return value


TRACEBACK_OPENING = "Traceback (most recent call last):"


def error_read(message: str) -> str:
    """A step's error as the judge reads it: what failed, without the Python traceback or
    JavaScript stack some instrumentations append (OpenInference's LangChain: `Down('...')
    Traceback ...`), whose frames name files on the agent's machine; its last line when
    nothing precedes it."""
    before, found, frames = (message or "").partition(TRACEBACK_OPENING)
    if not found:
        stack = JS_STACK_FRAME.search(message or "")
        if stack is None:
            return message or "error"
        # OpenInference JS: `<message>\n\n<stack>`, the stack's header repeating the message
        head = message[: stack.start()].strip()
        return head.partition("\n\n")[0].strip() or "error"
    lines = [line for line in frames.splitlines() if line.strip()]
    return before.strip() or (lines[-1].strip() if lines else "") or "error"


# A JavaScript stack's first frame (`    at fn (file:///...:35:52)`).
JS_STACK_FRAME = re.compile(r"\n[ \t]+at \S")
# A Python traceback's frames: the header and the indented lines after it, up to the line
# that names the exception.
TRACEBACK_FRAMES = re.compile(r"Traceback \(most recent call last\):\n(?:[ \t].*\n|[ \t]*\n)*")


def tracebacks_shortened(text: str) -> str:
    """A text with each Python traceback in it read as the exception line it ends with: DSPy's
    ReAct tells the model a tool's failure with the traceback, whose frames name files on the
    agent's machine."""
    if TRACEBACK_OPENING not in text:
        return text
    return TRACEBACK_FRAMES.sub("", text)


def _address_only(read) -> bool:
    """A value that is only an object's address, as text or as the one text of its messages:
    CrewAI's flow methods traced by OpenLIT answer `<coroutine object Flow._execute_method at
    0x...>`, nothing anyone can read."""
    if isinstance(read, str):
        return read[:1] == "<" and object_repr(read)
    if not isinstance(read, list) or not read:
        return False
    return all(
        isinstance(m, dict)
        and m.keys() == {"role", "text"}
        and m["text"][:1] == "<"
        and object_repr(m["text"])
        for m in read
    )


def status_said(read) -> str:
    """The one word an agent step answered when that word is a stop reason (STOP_SPELLINGS),
    as text or as its one assistant message: CrewAI's agent-executor flow, traced by OpenLIT,
    answers `completed`, its state, while the answer is its model call's. "" for anything else."""
    if isinstance(read, list) and len(read) == 1 and isinstance(read[0], dict):
        message = read[0]
        read = message.get("text") if message.keys() == {"role", "text"} else None
        if message.get("role") != "assistant":
            return ""
    if not isinstance(read, str) or len(read.split()) != 1:
        return ""
    word = read.strip()
    return word if stop_reason_normalize(word) not in ("", StopKind.OTHER) else ""


def step_read(span: Span, label: StepLabel, state: ReadingState, trace: Trace) -> dict:
    """One span as a step of the reading."""
    node: dict = {"step": label.step, "name": label.label, "type": span.kind}
    if span.name != label.base:
        node["span_name"] = span.name
    errored = span.status == SpanStatus.ERROR
    if span.kind == SpanKind.TOOL:
        call_id = span.tool_call_id
        if not call_id and span.input is not None and state.unclaimed:
            call_id = state.call_claimed(span.tool_name or label.base, span.input)
        if call_id:
            node["call_id"] = call_id
        if span.input is not None:
            node["arguments"] = span.input
        elif span.tool_call_id in state.decided:  # a span that records only the call id
            node["arguments"] = state.decided[span.tool_call_id]
        if span.output is not None:
            node["result"] = span.output
        if errored:
            node["error"] = error_read(span.error_message)
            if call_id:
                state.errors_shown[call_id] = node["error"]
                if "result" not in node:
                    state.failures_untold[call_id] = node
        state.tool_result_shown(span.output if span.output is not None else span.error_message)
        state.tool_step_noted(node, span, errored)
        return node
    if span.model:
        node["model"] = span.model
    if span.kind == SpanKind.LLM:
        new_input = _value(span.input, state)
        if new_input not in (None, "", []):
            node["new_input"] = new_input
        reply = state.reply_untold(span) if reply_missing(span.output) else None
        if reply is not None:  # a reply recorded as nothing, told by the next call's history
            node["output"] = [message_compact(reply)]
            state.messages_shown([reply])
            state.idless_noted(node["output"])
        elif span.output not in (None, "", []):
            node["output"] = _value(span.output, state, always=True)
            if isinstance(node["output"], str):  # a reply given as plain text
                state.messages_shown([Message(role="assistant", text=node["output"])])
        finish = finish_reason_of(span.attributes, span.output)
        if finish:
            node["finish_reason"] = stop_reason_normalize(finish) or finish
    else:
        for field, value, said in (
            ("input", span.input, (trace.task or "", "user")),
            ("output", span.output, (trace.final_answer or "", "assistant")),
        ):
            text, role = said
            if value in (None, "", []) or (
                text and readable_text(python_literal_maybe(value), role=role) == text
            ):
                continue  # the task or the final answer, already at the top of the reading
            read = _value(_state_reprs_shortened(value), state)
            if read in (None, "", []) or _address_only(read):
                continue
            status = status_said(read) if field == "output" and span.kind == SpanKind.AGENT else ""
            if status:  # how the run ended, not an answer: read as a model call's stop is
                node["finish_reason"] = status
            else:
                node[field] = state.repeats_referred(label.base, field, read, label.step)
    if errored:
        node["error"] = error_read(span.error_message)
    return node
