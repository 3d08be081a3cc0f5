"""Span-tree JSON: nested `name`, `type`, `input`, `output`, `children`, tools on the root."""

from __future__ import annotations

import hashlib
import json

from core.errors import NON_FIELD, InvalidInput
from traces.ingest.records import SpanRecord, TraceExtras, nul_free, span_record_build
from traces.ingest.timeparse import timestamp_parse
from traces.models import TRACE_DESCRIPTION

# Keys a span node may carry, and the trace-level keys its root may add; any other is refused
# by name rather than ignored.
NODE_KEYS = frozenset(
    {
        "name",
        "type",
        "input",
        "output",
        "children",
        "attributes",
        "metadata",
        "span_id",
        "parent_span_id",
        "status",
        "error",
        "start_time",
        "started_at",
        "end_time",
        "ended_at",
        "tool_name",
        "tool_call_id",
        "model",
        "usage",
        "input_tokens",
        "output_tokens",
    }
)
# What a root says of its trace; a transcript passes the same keys on to its span tree.
TRACE_KEYS = ("trace_id", *TRACE_DESCRIPTION, "context", "tags")
ROOT_KEYS = NODE_KEYS | {*TRACE_KEYS, "available_tools", "format", "project"}
MAX_SPANS = 20_000
TRACE_ID_MAX = 64
SPAN_ID_MAX = 32


def path_hash(*parts: str, length: int) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:length]


def optional_str(node: dict, key: str, path: str, max_length: int | None = None) -> str | None:
    value = node.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{path}{key}", "Expected a string.")
    if max_length and len(value) > max_length:
        raise InvalidInput(f"{path}{key}", f"At most {max_length} characters.")
    return value


def _optional_int(node: dict, key: str, path: str) -> int | None:
    value = node.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInput(f"{path}{key}", "Expected a non-negative integer.")
    return value


def _text(value) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def span_tree_records(payload: dict) -> tuple[list[SpanRecord], TraceExtras, str]:
    """Validate a span-tree payload and turn it into span records, extras and the trace id."""
    if not isinstance(payload, dict):
        raise InvalidInput(NON_FIELD, "A span tree must be a JSON object.")
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    if "\\u0000" in canonical:
        payload = nul_free(payload)
    content_hash = hashlib.sha256(canonical.encode()).hexdigest()
    external_id = optional_str(payload, "trace_id", "", TRACE_ID_MAX) or content_hash[:32]
    tools = payload.get("available_tools")
    if tools is not None and not isinstance(tools, list):
        raise InvalidInput("available_tools", "Expected a list of tool definitions.")
    context = payload.get("context") or {}
    if not isinstance(context, dict):
        raise InvalidInput("context", "Expected an object.")
    if tools is not None:
        context = {**context, "available_tools": tools}
    tags = payload.get("tags") or []
    if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        raise InvalidInput("tags", "Expected a list of strings.")
    extras = TraceExtras(
        task=optional_str(payload, "task", ""),
        final_answer=optional_str(payload, "final_answer", ""),
        stop_reason=optional_str(payload, "stop_reason", "", 100),
        task_type=optional_str(payload, "task_type", "", 100),
        agent_name=optional_str(payload, "agent_name", "", 200),
        agent_version=optional_str(payload, "agent_version", "", 100),
        context=context,
        content_hash=content_hash,
        tags=tags,
    )
    records = span_tree_spans(payload, external_id)
    return records, extras, external_id


def span_tree_spans(tree: dict, external_id: str) -> list[SpanRecord]:
    """The spans of a span tree, depth first in the order sent. A span without an id of its
    own gets one derived from `external_id` and its place in the tree; with no trace id (a
    trajectory read before anyone stores it), its JSON path names it."""
    records: list[SpanRecord] = []
    # Iterative walk: (node, json path, parent span id, structural path for derived ids).
    stack: list[tuple[object, str, str, str]] = [(tree, "", "", "0")]
    while stack:
        node, path, parent_id, tree_path = stack.pop()
        if len(records) >= MAX_SPANS:
            raise InvalidInput("children", f"A trace may hold at most {MAX_SPANS} spans.")
        record = _node_record(node, path, parent_id, tree_path, external_id)
        records.append(record)
        children = node.get("children") or []  # type: ignore[union-attr]
        if not isinstance(children, list):
            raise InvalidInput(f"{path}children", "Expected a list of spans.")
        for index in range(len(children) - 1, -1, -1):
            stack.append(
                (
                    children[index],
                    f"{path}children[{index}].",
                    record.span_id,
                    f"{tree_path}.{index}",
                )
            )
    return records


def unknown_keys_refuse(node: dict, path: str) -> None:
    allowed = ROOT_KEYS if not path else NODE_KEYS
    unknown = sorted(key for key in node if key not in allowed)
    if unknown:
        message = (
            "Not a span field. Put it in `attributes` or `metadata`, or use one of: "
            + ", ".join(sorted(allowed))
            + "."
        )
        raise InvalidInput(f"{path}{unknown[0]}", message)


def _node_record(node, path: str, parent_id: str, tree_path: str, external_id: str) -> SpanRecord:
    if not isinstance(node, dict):
        raise InvalidInput(path.rstrip(".") or NON_FIELD, "Expected an object.")
    unknown_keys_refuse(node, path)
    name = node.get("name")
    if not isinstance(name, str) or not name.strip():
        raise InvalidInput(f"{path}name", "Every span needs a non-empty string name.")
    declared = optional_str(node, "type", path, 50)
    attributes = node.get("attributes") or {}
    if not isinstance(attributes, dict):
        raise InvalidInput(f"{path}attributes", "Expected an object.")
    span_id = optional_str(node, "span_id", path, SPAN_ID_MAX) or (
        path_hash(external_id, tree_path, length=16) if external_id else path.rstrip(".") or "root"
    )
    status = optional_str(node, "status", path, 20)
    error = node.get("error")
    error_message = _text(error) or ""
    started_at = timestamp_parse(
        node.get("start_time", node.get("started_at")), f"{path}start_time"
    )
    ended_at = timestamp_parse(node.get("end_time", node.get("ended_at")), f"{path}end_time")
    if started_at and ended_at and ended_at < started_at:
        raise InvalidInput(f"{path}end_time", "end_time is before start_time.")
    # Explicit node fields are folded into the attributes the convention table reads.
    attributes = dict(attributes)
    metadata = node.get("metadata")
    if metadata is not None:
        if not isinstance(metadata, dict):
            raise InvalidInput(f"{path}metadata", "Expected an object.")
        attributes.setdefault("metadata", metadata)
    for key, attribute in (
        ("tool_name", "gen_ai.tool.name"),
        ("tool_call_id", "gen_ai.tool.call.id"),
        ("model", "gen_ai.request.model"),
    ):
        if (value := optional_str(node, key, path, 200)) is not None:
            attributes.setdefault(attribute, value)
    usage = node.get("usage") or {}
    if not isinstance(usage, dict):
        raise InvalidInput(f"{path}usage", "Expected an object.")
    for key, attribute in (
        ("input_tokens", "gen_ai.usage.input_tokens"),
        ("output_tokens", "gen_ai.usage.output_tokens"),
    ):
        value = _optional_int(node, key, path)
        if value is None:
            value = _optional_int(usage, key, f"{path}usage.")
        if value is not None:
            attributes.setdefault(attribute, value)
    record = span_record_build(
        trace_external_id=external_id,
        span_id=span_id,
        parent_span_id=optional_str(node, "parent_span_id", path, SPAN_ID_MAX) or parent_id,
        name=name.strip(),
        attributes=attributes,
        declared_kind=declared,
        started_at=started_at,
        ended_at=ended_at,
        input_value=node.get("input"),
        output_value=node.get("output"),
        is_error=status == "error" or bool(error),
        error_message=error_message,
    )
    if record.kind == "tool" and not record.tool_name:
        record.tool_name = record.name[:200]
        record.component = record.tool_name
    return record
