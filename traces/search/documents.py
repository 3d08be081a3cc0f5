"""Building each trace's search document and attribute values, apart from ingest.

Ingest only inserts spans and stamps `Trace.last_span_received_at`. A periodic sweep builds
the document of every trace whose stamp differs from the one its document was built from,
once no span has come for SEARCH_INDEX_QUIET_SECONDS: a trace is searchable seconds after
its spans stop, a late span makes it stale again, and a re-sent span (which leaves the stamp
alone) costs nothing. Each batch runs in one transaction; builders take turns on PostgreSQL
through an advisory lock so two never write the same trace's rows side by side.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from traces.models import Span, Trace, TraceAttributeValue, TraceSearchDocument
from traces.search.sql import attributes_write, documents_write, search_builders_take_turns
from traces.search.syntax import MAX_VALUE_CHARS, number_or_none

# Caps keep one enormous trace from making an enormous document (PostgreSQL refuses a
# tsvector over 1 MB): each value's first PIECE_CHARS, a trace's first DOCUMENT_CHARS.
PIECE_CHARS = 10_000
DOCUMENT_CHARS = 300_000
ATTRIBUTE_ROWS = 500
KEY_CHARS = 200
SPAN_FIELDS = (
    "trace_id",
    "name",
    "kind",
    "status",
    "input",
    "output",
    "attributes",
    "error_message",
    "tool_name",
    "model",
    "input_tokens",
    "output_tokens",
)
# Values held in span columns rather than attributes (span-tree JSON, transcripts), filterable
# under their OpenTelemetry names like any attribute.
COLUMN_KEYS = {
    "gen_ai.usage.input_tokens": "input_tokens",
    "gen_ai.usage.output_tokens": "output_tokens",
    "gen_ai.request.model": "model",
    "gen_ai.tool.name": "tool_name",
    "span.kind": "kind",
    "span.status": "status",
}


def search_documents_stale_ids(*, limit: int = 500, now=None, created_within=None) -> list[int]:
    """Traces without a document, or whose spans changed since it was built, that are quiet.

    `created_within` (a timedelta) looks only at traces created that recently, through the
    created_at index: the frequent sweep's bound. Without it every trace is checked.
    """
    now = now or timezone.now()
    quiet_since = now - timedelta(seconds=settings.SEARCH_INDEX_QUIET_SECONDS)
    documents = TraceSearchDocument.objects.filter(trace=OuterRef("pk"))
    current = documents.filter(spans_received_at=OuterRef("last_span_received_at"))
    traces = Trace.objects.all()
    if created_within is not None:
        traces = traces.filter(created_at__gte=now - created_within)
    return list(
        traces.filter(
            Q(last_span_received_at__isnull=True) & ~Exists(documents)
            | Q(last_span_received_at__lte=quiet_since) & ~Exists(current)
        )
        .order_by()
        .values_list("pk", flat=True)[:limit]
    )


class _TextCollector:
    """A trace's searchable text, piece by piece, within the document cap."""

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.room = DOCUMENT_CHARS

    def add(self, text: str) -> None:
        if not text or self.room <= 0:
            return
        piece = text[: min(PIECE_CHARS, self.room)]
        self.pieces.append(piece)
        self.room -= len(piece) + 1

    def add_value(self, value) -> None:
        """Every string and number inside a JSON value, keys included; no recursion (senders
        nest as deep as they like)."""
        stack = [value]
        while stack and self.room > 0:
            item = stack.pop()
            if isinstance(item, dict):
                for key, child in reversed(list(item.items())):
                    stack.append(child)
                    stack.append(str(key))
            elif isinstance(item, list):
                stack.extend(reversed(item))
            elif isinstance(item, str):
                self.add(item)
            elif item is not None and not isinstance(item, bool):
                self.add(str(item))

    @property
    def text(self) -> str:
        return "\n".join(self.pieces)


def _scalar_text(value) -> tuple[str, float | None] | None:
    if isinstance(value, bool):
        return ("true" if value else "false"), None
    if isinstance(value, int | float):
        number = number_or_none(str(value))
        return str(value), number
    if isinstance(value, str) and len(value) <= MAX_VALUE_CHARS:
        return value, number_or_none(value) if value.strip() else None
    return None


def attribute_pairs(attributes) -> list[tuple[str, object]]:
    """(dotted key, scalar) pairs of nested attributes; list items share their list's key."""
    pairs = []
    stack = [("", attributes)]
    while stack:
        prefix, value = stack.pop()
        if isinstance(value, dict):
            for key, child in value.items():
                stack.append((f"{prefix}.{key}" if prefix else str(key), child))
        elif isinstance(value, list):
            stack.extend((prefix, item) for item in value)
        elif prefix:
            pairs.append((prefix, value))
    return pairs


class _AttributeCollector:
    def __init__(self, trace_id: int) -> None:
        self.trace_id = trace_id
        self.seen: set[tuple[str, str]] = set()

    def add(self, key: str, value) -> None:
        scalar = _scalar_text(value)
        if scalar is None or len(key) > KEY_CHARS or len(self.seen) >= ATTRIBUTE_ROWS:
            return
        self.seen.add((key, scalar[0]))

    def rows(self) -> list[tuple]:
        """(trace id, key, text, number) in TraceAttributeValue's column order."""
        return [(self.trace_id, key, text, number_or_none(text)) for key, text in sorted(self.seen)]


def _span_read(span: dict, texts: _TextCollector, attributes: _AttributeCollector) -> None:
    for part in ("name", "tool_name", "error_message"):
        texts.add(span[part])
    texts.add_value(span["input"])
    texts.add_value(span["output"])
    pairs = attribute_pairs(span["attributes"] or {})
    for key, value in pairs:
        attributes.add(key, value)
        if isinstance(value, str):
            texts.add(value)
    present = {key for key, _ in pairs}
    for key, column in COLUMN_KEYS.items():
        if key not in present and span[column] not in ("", 0, None):
            attributes.add(key, span[column])


def search_documents_build(trace_ids: list[int], *, now=None) -> int:
    """(Re)build the documents and attribute values of these traces; returns how many."""
    now = now or timezone.now()
    # Read the stamp before the spans: a span stored after this read makes the trace stale.
    traces = list(
        Trace.objects.filter(pk__in=trace_ids).values(
            "pk", "task", "final_answer", "attributes", "last_span_received_at"
        )
    )
    if not traces:
        return 0
    texts = {row["pk"]: _TextCollector() for row in traces}
    attributes = {row["pk"]: _AttributeCollector(row["pk"]) for row in traces}
    for row in traces:
        texts[row["pk"]].add(row["task"])
        texts[row["pk"]].add(row["final_answer"])
        for key, value in attribute_pairs(row["attributes"] or {}):
            attributes[row["pk"]].add(key, value)
    spans = (
        Span.objects.filter(trace_id__in=list(texts))
        .order_by("trace_id", "position")
        .values(*SPAN_FIELDS)
    )
    for span in spans.iterator(chunk_size=500):
        _span_read(span, texts[span["trace_id"]], attributes[span["trace_id"]])
    with transaction.atomic():
        search_builders_take_turns()
        ids = [row["pk"] for row in traces]
        TraceAttributeValue.objects.filter(trace_id__in=ids).delete()
        attributes_write([value for collector in attributes.values() for value in collector.rows()])
        documents = [
            (row["pk"], row["last_span_received_at"], texts[row["pk"]].text) for row in traces
        ]
        documents_write(documents, now)
    return len(traces)
