"""Protobuf's JSON mapping writes trace and span ids as base64, where OTLP/JSON writes them as
hex: what a recorded request needs before it is sent as OTLP/JSON. Standard library only, for
tests/conformance/record.py runs it in a virtualenv of its own."""

import base64

ID_KEYS = ("traceId", "spanId", "parentSpanId")


def ids_to_hex(node) -> None:
    """Rewrite, in place, every id in an OTLP request or one of its parts."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ID_KEYS and isinstance(value, str):
                node[key] = base64.b64decode(value).hex()
            else:
                ids_to_hex(value)
    elif isinstance(node, list):
        for item in node:
            ids_to_hex(item)
