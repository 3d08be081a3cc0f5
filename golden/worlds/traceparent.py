"""The W3C trace id a call carries in its `traceparent` header, to join it to its trace."""

import re

TRACEPARENT = re.compile(r"^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$")


def traceparent_trace_id(header: str) -> str:
    """The 32-hex trace id, or "" when the header is absent or not a traceparent."""
    match = TRACEPARENT.match((header or "").strip().lower())
    return match.group(1) if match and match.group(1) != "0" * 32 else ""
