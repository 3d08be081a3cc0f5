"""One call, one step: the spans that report the same call merged into one.

Two shapes report one call with several spans:

- **Lifecycle events.** Frameworks that emit a span per event of a call, named
  `<emitter>.<event>-<N>` (`start`, `success`, `error`, `finish`, ...). BeeAI names its tool
  calls `tool.<namespace>.<tool>.<event>-N` (each with `tool.parameters`), its model calls
  `backend.openai.chat.<event>-N` and its agent's iterations `agent.tool_calling.<event>-N`.
  The spans of one call (same emitter, same N, same parent, or nested in each other) are one
  step: the outcome event carries it (`success`/`error`, else `finish`/`end`, else `start`); a
  model call's carrier is the member that reports its usage, so the call's tokens count once.
  A tool call is named by the tool; any other call keeps its carrier's kind.
- **A streamed model call and its reply.** Logfire's LLM instrumentations end a streamed
  call's span when the stream opens (the request, no reply, no usage) and log the reply when
  it is read, as a span beside it named `streaming response from '<model>' took <s>s` with the
  request again, the reply and the usage. That reply carries the call; the opener joins it.
- **MCP client and server.** An MCP request traced on both sides gives a CLIENT span and, under
  it, the server's SERVER span (trace context travels in `params._meta`), both with the same
  `mcp.method.name` and `jsonrpc.request.id`; an agent framework may add its own tool span
  above both. The outermost span of such a chain is the call the agent made and carries it.

- **A model loop's turn and its provider call.** Mastra reports each turn of its model loop
  as a `model_step` span (the messages sent, as a preview, and the whole reply `{text,
  toolCalls}`) and the provider call inside it as a `model_inference` span
  (`mastra.span.type`), which has the model, usage and finish reason but, as its OpenTelemetry
  exporter writes it, the reply's text alone. The two are one model call: the inference
  carries it, with the turn's input and its whole reply; the turn's tools hang under it.

A tool call's carrier keeps kind tool (or retriever, for MCP `resources/read` and
`prompts/get`). Every carrier takes the input, output and failure any member reported that it
lacks; the other members stay stored as they came, with kind custom, so nothing is lost and
nothing counts twice. The trace notes each merged call's members (MERGED_KEY) for its page and
for the judge's reading, which shows the carrier alone.

Decided per trace over all its spans, the stored ones too (ingest.store calls calls_merge for
each trace a request grows): spans of one call may come in separate requests.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from traces.components import component_for
from traces.models import Span, SpanKind, SpanStatus

MERGED_KEY = "evalsite.merged_calls"
_EVENTS = (
    r"(?P<event>start|started|success|succeeded|error|failure|failed|finish|finished|end"
    r"|complete|completed)-(?P<n>\d+)$"
)
# `tool.<name>.<event>-<N>`, or with the emitter's namespace before the name, as BeeAI's
# `tool.custom.<name>.start-1`: the tool is the last part (tool names hold no dot).
LIFECYCLE_NAME = re.compile(r"^tool\.(?P<namespace>(?:.+\.)?)(?P<tool>[^.]+)\." + _EVENTS)
# Any other call's events: BeeAI's `backend.openai.chat.start-1`, `agent.tool_calling.success-2`.
EVENT_NAME = re.compile(r"^(?P<emitter>[^\s]+)\." + _EVENTS)
# A carrier is the member whose event says most about the outcome.
_EVENT_RANK = {
    "success": 0,
    "succeeded": 0,
    "complete": 0,
    "completed": 0,
    "error": 0,
    "failure": 0,
    "failed": 0,
    "finish": 1,
    "finished": 1,
    "end": 1,
    "start": 2,
    "started": 2,
}
_FAILED_EVENTS = frozenset(("error", "failure", "failed"))
# MCP methods whose client and server spans are one request the agent made.
MCP_CALL_METHODS = ("tools/call", "resources/read", "prompts/get")
# What a stored span's name says of its MCP method: `tools/call X`, `MCP send tools/call X`.
_MCP_NAME = re.compile(
    r"^(?:MCP send )?(?P<method>tools/call|resources/read|prompts/get)(?: (?P<target>.+))?$"
)
# Mastra's span types (`mastra.span.type`): a turn of its model loop, and the provider call
# inside the turn.
MASTRA_SPAN_TYPE, MODEL_STEP = "mastra.span.type", "model_step"
# Logfire's log of a streamed reply, by its message or, as a span name, its template.
STREAMED_REPLY_START = "streaming response from "
_STREAMED_REPLY = re.compile(r"^streaming response from .+ took \S+s$")
_TOOL, _CUSTOM, _RETRIEVER = SpanKind.TOOL, SpanKind.CUSTOM, SpanKind.RETRIEVER
_LLM = SpanKind.LLM
# Names that open a span of a call reported by several: a lifecycle tool event, a streamed reply.
_MERGING_STARTS = ("tool.", STREAMED_REPLY_START)
# Read once: each SpanStatus.X is a metaclass attribute lookup, and totals read it a span.
_ERROR = SpanStatus.ERROR


def failed_calls_count(spans: list, merged: dict | None) -> int:
    """Failures of a trace's spans (objects with span_id and status), a merged call's members
    counted once, as its carrier: an MCP call failed on both sides is one failure."""
    if not merged:
        return sum(span.status == _ERROR for span in spans)
    carrier_of = {member: carrier for carrier, members in merged.items() for member in members}
    return len({carrier_of.get(s.span_id, s.span_id) for s in spans if s.status == _ERROR})


def lifecycle_emitter(name: str) -> str:
    """The emitter a lifecycle event's span name gives (`agent.tool_calling` for
    `agent.tool_calling.start-2`); "" for any other name."""
    head, _, n = name.rpartition("-")
    if not n.isdigit() or head.rpartition(".")[2] not in _EVENT_RANK:
        return ""  # most names (`chat gpt-4`), told apart without the regex
    found = EVENT_NAME.match(name)
    return found["emitter"] if found else ""


def stored_could_merge(name: str) -> bool:
    return (
        name.startswith("tool.")
        or _MCP_NAME.match(name) is not None
        or bool(lifecycle_emitter(name))
    )


@dataclass
class _Member:
    span_id: str
    parent_span_id: str
    name: str
    kind: str
    tool_name: str
    started_at: object = None
    record: object = None  # the new SpanRecord, or None for a stored span
    stored: object = None  # the StoredSpan, or None for a new one

    @property
    def reports_usage(self) -> bool:
        span = self.record if self.record is not None else self.stored
        return bool(span.input_tokens or span.output_tokens or span.cost_usd)


def mcp_method_target(name: str, attributes: dict | None) -> tuple[str, str] | None:
    """(MCP method, target) of a span, from its attributes when it has them, else its name."""
    method = (attributes or {}).get("mcp.method.name")
    found = _MCP_NAME.match(name)
    if method is None:
        return (found["method"], found["target"] or "") if found else None
    method = str(method)
    target = (attributes or {}).get("gen_ai.tool.name") or (attributes or {}).get(
        "gen_ai.prompt.name"
    )
    if not target and found and found["method"] == method:
        target = found["target"] or ""
    return method, str(target or "")


_CALL_METHODS = (".__call__", ".acall")


def tool_name_from_span_name(name: str) -> str:
    """The tool a tool span's name gives when no attribute does."""
    found = LIFECYCLE_NAME.match(name) or _MCP_NAME.match(name)
    if found and found.groupdict().get("tool"):
        return found["tool"]
    if found and found.groupdict().get("target"):
        return found["target"]
    name = name.removeprefix("execute_tool ").strip()
    # `lookup_order.__call__`, `lookup_order.acall`: the tool's call method (DSPy's Tool).
    for method in _CALL_METHODS:
        if name.endswith(method) and len(name) > len(method):
            return name[: -len(method)]
    return name


def calls_merge(trace, new: list, stored: list) -> dict[str, dict]:
    """Merge the spans of each call among a trace's new records and stored spans.

    New records are changed in place; returns the changes stored spans need, by span id
    (field -> value), which the caller writes. Notes the merged calls on `trace.attributes`."""
    for record in new:  # most traces: no span could be part of a merged call
        name = record.name
        if name.startswith(_MERGING_STARTS) or "mcp.method.name" in record.attributes:
            break
        # A turn ends after its provider call: it comes in the same request or a later one.
        if record.attributes.get(MASTRA_SPAN_TYPE) == MODEL_STEP:
            break
        # A lifecycle event's name holds a dot; most that end in a digit (`chat gpt-4`) do not.
        if "." in name and name[-1:].isdigit() and lifecycle_emitter(name):
            break
    else:
        return {}
    members = [
        _Member(r.span_id, r.parent_span_id, r.name, r.kind, r.tool_name, r.started_at, record=r)
        for r in new
    ]
    members += [
        _Member(s.span_id, s.parent_span_id, s.name, s.kind, s.tool_name, s.started_at, stored=s)
        for s in stored
        if stored_could_merge(s.name) or s.kind in (_TOOL, _LLM)
    ]
    by_id = {m.span_id: m for m in members}
    turns = _model_turn_groups(members)
    groups = (
        _lifecycle_groups(members, by_id)
        + _mcp_groups(members, by_id)
        + _streamed_reply_groups(members)
        + turns
    )
    if not groups:
        return {}
    content = _stored_content(trace, [m for _, group in groups for _, m in group if m.stored])
    changes: dict[str, dict] = {}
    notes = dict(trace.attributes.get(MERGED_KEY) or {})
    turn_carriers = {group[0][1].span_id for _, group in turns}
    for call, group in groups:
        reply = group[0][1].span_id in turn_carriers
        _group_merge(group, content, changes, call=call, reply_from_members=reply)
        carrier = group[0][1]
        ids = {member.span_id for _, member in group}
        for span_id in ids:  # an earlier note of a member, the carrier's own too
            ids |= set(notes.pop(span_id, ()))
        notes[carrier.span_id] = [carrier.span_id, *sorted(ids - {carrier.span_id})]
    trace.attributes = {**trace.attributes, MERGED_KEY: notes}
    return changes


def _lifecycle_groups(members, by_id) -> list[tuple[bool, list[tuple[int, _Member]]]]:
    """(is a tool call, its members by rank) for each call reported by lifecycle events."""
    keyed: dict[tuple, list[tuple[int, _Member]]] = {}
    parsed = {}
    for member in members:
        found = LIFECYCLE_NAME.match(member.name)
        if found:
            emitter = found["namespace"] + found["tool"]
            parsed[member.span_id] = (emitter, found["n"], found["event"], found["tool"])
        elif member.name[-1:].isdigit():
            found = EVENT_NAME.match(member.name)
            if found:
                parsed[member.span_id] = (found["emitter"], found["n"], found["event"], "")

    def anchor(member: _Member, hops: int = 0) -> str:
        parent = by_id.get(member.parent_span_id)
        same = (
            parent is not None and parsed.get(parent.span_id, ())[:2] == parsed[member.span_id][:2]
        )
        return anchor(parent, hops + 1) if same and hops < 16 else member.parent_span_id

    for member in members:
        if member.span_id in parsed:
            emitter, n, event, tool = parsed[member.span_id]
            key = (anchor(member), emitter, n, tool)
            keyed.setdefault(key, []).append((_EVENT_RANK[event], member))
    groups = []
    for (*_, tool), group in keyed.items():
        first = group[0][1]
        if len(group) < 2 and (not tool or first.kind == _TOOL and first.tool_name == tool):
            continue  # one span of a call, already its step
        if tool:
            for _, member in group:
                member.tool_name = tool
        # The member reporting a model call's usage carries it: its tokens count once.
        group.sort(key=lambda item: (bool(tool) or not item[1].reports_usage, item[0]))
        groups.append((bool(tool), group))
    return groups


def _mcp_groups(members, by_id) -> list[tuple[bool, list[tuple[int, _Member]]]]:
    """Chains of spans of one MCP request: each MCP span joins its parent when the parent is
    the same request (same method and target, same JSON-RPC id when both say) or, for
    tools/call, a tool span of the same tool."""
    identity = {}
    for member in members:
        attributes = member.record.attributes if member.record is not None else None
        found = mcp_method_target(member.name, attributes)
        if found and found[0] in MCP_CALL_METHODS:
            request_id = (attributes or {}).get("jsonrpc.request.id")
            session = (attributes or {}).get("mcp.session.id")
            identity[member.span_id] = (
                *found,
                None if request_id is None else str(request_id),
                None if session is None else str(session),
            )
    if not identity:
        return []

    def joins(member: _Member, parent: _Member | None) -> bool:
        if parent is None:
            return False
        method, target, request_id, session = identity[member.span_id]
        theirs = identity.get(parent.span_id)
        if theirs is not None:
            # Each of target, request id and session must agree where both sides name it.
            same_id = request_id is None or theirs[2] is None or request_id == theirs[2]
            same_session = session is None or theirs[3] is None or session == theirs[3]
            same_target = not target or not theirs[1] or target == theirs[1]
            return theirs[0] == method and same_target and same_id and same_session
        return method == "tools/call" and parent.kind == _TOOL and parent.tool_name == target

    roots: dict[str, str] = {}

    def root_of(member: _Member, hops: int = 0) -> str:
        """The outermost span of the chain `member` belongs to."""
        if member.span_id not in roots:
            parent = by_id.get(member.parent_span_id)
            joined = member.span_id in identity and hops < 16 and joins(member, parent)
            roots[member.span_id] = root_of(parent, hops + 1) if joined else member.span_id
        return roots[member.span_id]

    for member in members:
        if member.span_id in identity:
            root_of(member)
    grouped: dict[str, list[tuple[int, _Member]]] = {}
    for span_id, root in roots.items():
        if span_id not in identity and span_id != root:
            continue
        grouped.setdefault(root, []).append((0 if span_id == root else 1, by_id[span_id]))
    groups = []
    for root, group in grouped.items():
        carrier = by_id[root]
        method, target, *_ = identity.get(root) or ("tools/call", carrier.tool_name)
        wanted = _TOOL if method == "tools/call" else _RETRIEVER
        if len(group) < 2 and carrier.kind == wanted:
            continue
        group.sort(key=lambda item: item[0])
        if wanted == _TOOL and not carrier.tool_name:
            carrier.tool_name = target
        groups.append((True, group))
    return groups


def _model_turn_groups(members) -> list[tuple[bool, list[tuple[int, _Member]]]]:
    """(False, [(0, provider call), (1, turn)]) for each Mastra model-loop turn (a new span)
    with one model call inside it, new or stored."""
    turns = {
        member.span_id
        for member in members
        if member.record is not None
        and member.record.attributes.get(MASTRA_SPAN_TYPE) == MODEL_STEP
    }
    if not turns:
        return []
    by_turn: dict[str, list[_Member]] = {}
    for member in members:
        if member.kind == _LLM and member.parent_span_id in turns:
            by_turn.setdefault(member.parent_span_id, []).append(member)
    by_id = {member.span_id: member for member in members}
    return [
        (False, [(0, calls[0]), (1, by_id[turn])])
        for turn, calls in by_turn.items()
        if len(calls) == 1
    ]


def _streamed_reply_groups(members) -> list[tuple[bool, list[tuple[int, _Member]]]]:
    """Each streamed reply Logfire logged (carrier) with the model-call span that opened its
    stream: the latest model call before it, beside it (same parent), that reports no usage."""
    replies = [m for m in members if m.kind == _LLM and _STREAMED_REPLY.match(m.name)]
    if not replies:
        return []
    taken = {m.span_id for m in replies}
    beside: dict[str, list[_Member]] = {}  # the model calls under each parent that could open
    for member in members:
        if member.kind == _LLM and member.span_id not in taken and not member.reports_usage:
            beside.setdefault(member.parent_span_id, []).append(member)
    groups = []
    for reply in sorted(replies, key=_start_key):
        openers = [
            m
            for m in beside.get(reply.parent_span_id, ())
            if m.span_id not in taken and _start_key(m) <= _start_key(reply)
        ]
        if openers:
            opener = max(openers, key=_start_key)
            taken.add(opener.span_id)
            groups.append((False, [(0, reply), (1, opener)]))
    return groups


def _start_key(member: _Member) -> tuple:
    return (member.started_at is not None, member.started_at or 0)


def _stored_content(trace, members: list[_Member]) -> dict[str, dict]:
    """Input, output and failure of the stored spans in merged calls (few: read when needed)."""
    if not members:
        return {}
    rows = Span.objects.filter(
        trace_id=trace.pk, trace_day=trace.spans_day, span_id__in=[m.span_id for m in members]
    ).values("span_id", "input", "output", "status", "error_message", "tool_call_id")
    return {row["span_id"]: row for row in rows}


def _values(member: _Member, content: dict) -> dict:
    if member.record is not None:
        r = member.record
        return {
            "input": r.input,
            "output": r.output,
            "status": r.status,
            "error_message": r.error_message,
            "tool_call_id": r.tool_call_id,
        }
    return content.get(member.span_id) or {}


def _failed_event(member: _Member) -> bool:
    found = EVENT_NAME.match(member.name)
    return bool(found and found["event"] in _FAILED_EVENTS)


def _group_merge(
    group, content: dict, changes: dict, *, call: bool, reply_from_members: bool = False
) -> None:
    """Merge one call's members into its carrier; `call` for a tool (or MCP) call, which the
    carrier then reports with kind tool or retriever; `reply_from_members` when a member's
    output is the whole reply the carrier gives part of (a Mastra turn's)."""
    carrier = group[0][1]
    kind = carrier.kind if carrier.kind == _RETRIEVER else _TOOL
    identity = mcp_method_target(
        carrier.name, carrier.record.attributes if carrier.record else None
    )
    if identity and identity[0] != "tools/call":
        kind = _RETRIEVER
    merged = dict(_values(carrier, content))
    for _, member in group[1:]:
        theirs = _values(member, content)
        for field in ("input", "output", "tool_call_id"):
            mine, other = merged.get(field), theirs.get(field)
            # An empty result ("" from a `think` tool) is a result; a missing one is not.
            fills = other is not None if mine is None else mine == "" and other not in (None, "")
            # a member's reply that is whole where the carrier's is part of it (a Mastra turn's)
            whole = field == "output" and reply_from_members and other not in (None, "")
            if fills or whole:
                merged[field] = other
        if theirs.get("status") == SpanStatus.ERROR and merged.get("status") != SpanStatus.ERROR:
            merged["status"] = SpanStatus.ERROR
            merged["error_message"] = theirs.get("error_message") or "error"
    if any(_failed_event(m) for _, m in group) and merged.get("status") != SpanStatus.ERROR:
        merged["status"] = SpanStatus.ERROR
        failed = next(m for _, m in group if _failed_event(m))
        output = _values(failed, content).get("output")
        merged["error_message"] = (output if isinstance(output, str) else "") or failed.name
    if merged.get("status") != SpanStatus.ERROR:
        merged["status"] = merged.get("status") or SpanStatus.OK
    if call:
        merged["tool_name"] = carrier.tool_name if kind == _TOOL else ""
        merged["kind"] = kind
        merged["component"] = component_for(kind, carrier.name, merged["tool_name"], "")
    _apply(carrier, merged, changes)
    for _, member in group[1:]:
        _apply(member, {"kind": _CUSTOM}, changes)


def _apply(member: _Member, values: dict, changes: dict) -> None:
    if member.record is not None:
        for field, value in values.items():
            setattr(member.record, field, value)
        return
    current = {"kind": member.stored.kind, "tool_name": member.stored.tool_name}
    wanted = {f: v for f, v in values.items() if current.get(f, object()) != v}
    if wanted:
        changes.setdefault(member.span_id, {}).update(wanted)
