"""Reads of a trace's own data for the pages and API: visibility, the span tree, the timeline,
citations checked against spans, feedback."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

from django.db.models import Count, Exists, OuterRef, QuerySet
from django.db.models.fields.json import KeyTextTransform
from django.shortcuts import get_object_or_404

from accounts.roles import CURATOR, has_role
from traces.context_attributes import USER_ID_KEY
from traces.ingest.calls import MERGED_KEY
from traces.ingest.usage import REPEATED_KEY
from traces.models import Project, Span, SpanKind, SpanStatus, Trace
from traces.reading import merged_members

# Values longer than this are folded behind a one-line preview on the page.
FOLD_CHARS = 400
PREVIEW_CHARS = 160


def value_as_text(value) -> str:
    """Readable text for a span input/output: strings as they are, anything else as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False, default=str)


@dataclass
class FoldedText:
    text: str

    @property
    def is_long(self) -> bool:
        return len(self.text) > FOLD_CHARS or self.text.count("\n") > 12

    @property
    def preview(self) -> str:
        flat = " ".join(self.text.split())
        return flat[:PREVIEW_CHARS] + ("…" if len(flat) > PREVIEW_CHARS else "")


@dataclass
class SpanNode:
    span: Span
    # The step a judge cites it by (traces.reading.step_labels): its place in the trace, or
    # for a span of a merged call, the place of the call's first span.
    step: int = 0
    depth: int = 0
    children: list[SpanNode] = field(default_factory=list)

    @property
    def span_id(self) -> str:
        return self.span.span_id

    @property
    def is_error(self) -> bool:
        return self.span.status == SpanStatus.ERROR

    @property
    def tokens(self) -> int:
        return self.span.input_tokens + self.span.output_tokens

    @property
    def input(self) -> FoldedText:
        return FoldedText(value_as_text(self.span.input))

    @property
    def output(self) -> FoldedText:
        return FoldedText(value_as_text(self.span.output))


def trace_spans_ordered(trace: Trace, limit: int | None = None) -> list[Span]:
    """Spans of a trace in display order, the first `limit` if given ((trace, position) index)."""
    spans = trace.spans.order_by("position", "started_at", "pk")
    return list(spans[:limit] if limit is not None else spans)


@dataclass(slots=True)
class SpanOutline:
    """What the tree, the timeline and citations read of a span: no values, no model instance
    (a 10,000-span trace page would spend most of its time building Span objects)."""

    pk: int
    trace_id: int
    span_id: str
    parent_span_id: str
    name: str
    kind: str
    started_at: object
    duration_ms: int | None
    status: str
    error_message: str
    tool_name: str
    model: str
    input_tokens: int
    output_tokens: int
    position: int

    def get_kind_display(self) -> str:
        return SPAN_KIND_LABELS.get(self.kind, self.kind)


SPAN_KIND_LABELS = dict(SpanKind.choices)
_OUTLINE_FIELDS = list(SpanOutline.__dataclass_fields__)


def trace_span_outline(trace: Trace, limit: int | None = None) -> list[SpanOutline]:
    """Spans in display order without their values (see trace_spans_ordered)."""
    rows = trace.spans.order_by("position", "started_at", "pk").values_list(*_OUTLINE_FIELDS)
    return [SpanOutline(*row) for row in (rows[:limit] if limit is not None else rows)]


def span_parents(spans: list[Span]) -> dict[str, str]:
    """Each span's parent id; "" for a root, a parent that never arrived, or one closing a cycle.

    Spans come from untrusted senders: a cycle (a under b under a) must not hide or loop.
    """
    ids = {span.span_id for span in spans}
    return parents_acyclic(
        {
            span.span_id: span.parent_span_id
            if span.parent_span_id in ids and span.parent_span_id != span.span_id
            else ""
            for span in spans
        }
    )


def parents_acyclic(parent: dict[str, str]) -> dict[str, str]:
    """The parent map (every parent a key or "") with each cycle cut where it closes."""
    done: set[str] = set()
    for start in parent:
        path: list[str] = []
        on_path: set[str] = set()
        node = start
        while node and node not in done:
            if node in on_path:
                parent[node] = ""  # cut the cycle here
                break
            on_path.add(node)
            path.append(node)
            node = parent[node]
        done.update(path)
    return parent


def trace_span_nodes(trace: Trace, spans: list[Span] | None = None) -> list[SpanNode]:
    """The span tree as nested nodes, roots first; a span whose parent is missing is a root."""
    if spans is None:
        spans = trace_spans_ordered(trace)
    merged_steps = _merged_call_steps(trace, spans)
    nodes = {
        span.span_id: SpanNode(span=span, step=merged_steps.get(span.span_id, span.position + 1))
        for span in spans
    }
    parents = span_parents(spans)
    roots: list[SpanNode] = []
    for span in spans:
        node = nodes[span.span_id]
        parent_id = parents[span.span_id]
        if parent_id:
            nodes[parent_id].children.append(node)
        else:
            roots.append(node)
    # Depths are set iteratively: deep agent loops must not hit the recursion limit.
    stack = [(root, 0) for root in roots]
    seen: set[int] = set()
    while stack:
        node, depth = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        node.depth = depth
        stack.extend((child, depth + 1) for child in node.children)
    return roots


def _merged_call_steps(trace: Trace, spans) -> dict[str, int]:
    """The step of every span of a merged call: the place of the call's first span."""
    carried = merged_members(trace)
    if not carried:
        return {}
    position = {span.span_id: span.position for span in spans}
    missing = (carried.keys() | set(carried.values())) - position.keys()
    if missing:  # a call whose spans the page's window cut
        position.update(
            trace.spans.filter(trace_day=trace.spans_day, span_id__in=missing).values_list(
                "span_id", "position"
            )
        )
    first: dict[str, int] = {}
    for member, carrier in carried.items():
        if member in position and carrier in position:
            first[carrier] = min(first.get(carrier, position[carrier]), position[member])
    steps = {carrier: at + 1 for carrier, at in first.items()}
    steps.update({m: steps[c] for m, c in carried.items() if c in steps})
    return steps


@dataclass
class SpanRow:
    """One node in pre-order, with how many open lists to close after it."""

    node: SpanNode
    has_children: bool
    closes: range


def span_nodes_rows(nodes: list[SpanNode]) -> list[SpanRow]:
    """Flatten nested nodes to pre-order rows so a template renders a big tree in one loop."""
    rows: list[SpanRow] = []
    # Each stack entry: (node, number of ancestors whose lists close after this node).
    stack: list[tuple[SpanNode, int]] = [(n, 0) for n in reversed(nodes)]
    while stack:
        node, closes = stack.pop()
        if node.children:
            rows.append(SpanRow(node, True, range(0)))
            last, *rest = reversed(node.children)
            stack.append((last, closes + 1))
            stack.extend((child, 0) for child in rest)
        else:
            rows.append(SpanRow(node, False, range(closes)))
    return rows


def traces_visible(user, queryset: QuerySet | None = None, *, via: str = "") -> QuerySet:
    """The one held-out rule: traces backing held-out golden examples are for curators only.

    `queryset` holds traces, or rows that reach a trace through the relation `via` ("trace"
    for review items). `user=None` asks for what nobody-in-particular may see (samples,
    statistics, previews), which never includes held-out traces.
    """
    if queryset is None:
        queryset = Trace.objects.all()
    if sees_held_out(user):
        return queryset
    if not via:
        return queryset.filter(held_out=False)
    # Not a join with every trace: an anti-join with the few held-out ones (trace_held_out),
    # so an ordered page of review items walks its own index and stops after a page.
    held_out = Trace.objects.filter(pk=OuterRef(via), held_out=True)
    return queryset.filter(**{f"{via}__isnull": False}).exclude(Exists(held_out))


def sees_held_out(user) -> bool:
    """Who sees held-out data, anywhere (traces, examples, dataset entries, eval reports):
    curators and up. Every app asks this one rule."""
    return user is not None and has_role(user, CURATOR)


def trace_get(user, trace_id: int) -> Trace:
    """One trace with its project the user may see, or 404."""
    return get_object_or_404(
        traces_visible(user, Trace.objects.select_related("project", "session")), pk=trace_id
    )


def trace_rows() -> QuerySet:
    """Traces with their project and session and `end_user` (the context's user_id), less the
    columns no list shows."""
    return (
        Trace.objects.select_related("project", "session")
        .defer("attributes", "context")
        .annotate(end_user=KeyTextTransform(USER_ID_KEY, "context"))
    )


# Blind labelling is reviews' rule (reviews/blind.py), set when reviews loads: judges' pages,
# to the left of reviews, hide what judges said of a trace through this question.
_BLIND_RULE: dict[str, Callable[[object], QuerySet]] = {}


def trace_blind_rule_set(rule: Callable[[object], QuerySet]) -> None:
    _BLIND_RULE["rule"] = rule


def trace_blind_rule_ask(user) -> QuerySet:
    """Ids of traces whose judging the user must not see now, as the rule set through
    `trace_blind_rule_set` says (reviews' `trace_ids_blind_for`); none before one is set."""
    if "rule" not in _BLIND_RULE:
        return Trace.objects.none().values("pk")
    return _BLIND_RULE["rule"](user)


def trace_waterfall_rows(trace: Trace, nodes: list[SpanNode]) -> list[list]:
    """Bars for the timeline, in tree order: [span id, label, kind, offset from the trace
    start in ms, length in ms, 1 if it failed]; lists, not objects, to keep big pages small."""
    origin = trace.started_at
    rows = []
    for row in span_nodes_rows(nodes):
        span = row.node.span
        if origin is None or span.started_at is None:
            continue
        start = round((span.started_at - origin).total_seconds() * 1000, 3)
        rows.append(
            [
                span.span_id,
                ("· " * min(row.node.depth, 20)) + span.name[:80],
                span.kind,
                int(start) if start == int(start) else start,
                span.duration_ms or 0,
                int(span.status == SpanStatus.ERROR),
            ]
        )
    return rows


def span_citations(cited, spans: list[Span]) -> list[dict]:
    """A judgment's citations as {"cited", "span_id"}, checked against the trace's spans.

    A citation no span answers keeps its text with span_id "" so pages flag it, never drop
    it. Replies stored before citations were resolved hold bare strings: ids, or span names.
    """
    ids = {span.span_id for span in spans}
    by_name: dict[str, list[str]] = {}
    for span in spans:
        by_name.setdefault(span.name, []).append(span.span_id)
    citations = []
    for entry in cited or ():
        if isinstance(entry, dict):
            span_id = str(entry.get("span_id") or entry.get("id") or "")
            text = str(entry.get("cited") or span_id)
            found = [span_id] if span_id in ids else []
        else:
            text = str(entry)
            found = [text] if text in ids else by_name.get(text, [])
        if text:
            citations += [{"cited": text, "span_id": span_id} for span_id in found or [""]]
    return citations


def projects_with_counts():
    """Every project with its number of traces, in one query."""
    return Project.objects.annotate(trace_total=Count("traces")).order_by("name")


FEEDBACK_SHOWN = 100


def trace_feedback(trace: Trace) -> list:
    """The newest outside scores of a trace, each with the name of the span it points at."""
    rows = list(trace.feedback.order_by("-created_at", "-pk")[:FEEDBACK_SHOWN])
    ids = {row.span_id for row in rows if row.span_id}
    names = dict(trace.spans.filter(span_id__in=ids).values_list("span_id", "name")) if ids else {}
    for row in rows:
        row.span_name = names.get(row.span_id, row.span_id)
    return rows


# Ingest's notes on a trace are listed on its page up to this many entries.
INGEST_NOTES_SHOWN = 20


def trace_usage_repeats(trace: Trace) -> list[tuple[dict, dict]]:
    """The model-call spans whose usage a call inside them repeated, each with the inner span
    that was counted instead, as ({span_id, name}, {span_id, name}) for links on the page."""
    repeated = trace.attributes.get(REPEATED_KEY)
    if not isinstance(repeated, dict) or not repeated:
        return []
    pairs = list(repeated.items())[:INGEST_NOTES_SHOWN]
    names = _span_names(trace, {span_id for pair in pairs for span_id in pair})
    return [(names[outer], names[inner]) for outer, inner in pairs]


@dataclass
class MergedCall:
    """A call several spans reported, merged at ingest: its step, the span that carries it
    and every raw span of it, each as {span_id, name}, for links on the page."""

    step: int
    carrier: dict
    members: list[dict]


def trace_merged_calls(trace: Trace, spans=()) -> tuple[list[MergedCall], int]:
    """The first of the trace's merged calls in step order, and how many there are; `spans`,
    those the page loaded (with name and position), are not read again."""
    merged = trace.attributes.get(MERGED_KEY)
    if not isinstance(merged, dict) or not merged:
        return [], 0
    steps = _merged_call_steps(trace, spans)
    calls = sorted(merged.items(), key=lambda call: steps.get(call[0], 0))[:INGEST_NOTES_SHOWN]
    loaded = {span.span_id: span.name for span in spans}
    wanted = {s for carrier, members in calls for s in [carrier, *members]}
    names = _span_names(trace, wanted - loaded.keys()) if wanted - loaded.keys() else {}
    names.update({s: {"span_id": s, "name": loaded[s]} for s in wanted & loaded.keys()})
    shown = [
        MergedCall(steps.get(carrier, 0), names[carrier], [names[s] for s in members])
        for carrier, members in calls
    ]
    return shown, len(merged)


def _span_names(trace: Trace, span_ids: set[str]) -> dict[str, dict]:
    found = dict(
        trace.spans.filter(span_id__in=span_ids, trace_day=trace.spans_day).values_list(
            "span_id", "name"
        )
    )
    return {s: {"span_id": s, "name": found.get(s, s)} for s in span_ids}
