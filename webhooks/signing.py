"""HMAC-SHA256 signatures over the timestamp and the exact body bytes.

The receiver recomputes `hex(hmac(secret, f"{t}.{body}"))`, compares it in constant time with
`v1` from `X-Evalsite-Signature: t=<unix seconds>,v1=<hex>`, and rejects old timestamps so a
captured request cannot be replayed later.
"""

import hashlib
import hmac

SIGNATURE_HEADER = "X-Evalsite-Signature"


def signature(secret: str, timestamp: int, body: bytes) -> str:
    signed = str(timestamp).encode() + b"." + body
    return hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()


def signature_header(secret: str, timestamp: int, body: bytes) -> str:
    return f"t={timestamp},v1={signature(secret, timestamp, body)}"


def signature_verify(secret: str, header: str, body: bytes, now: int, tolerance: int = 300) -> bool:
    """What a receiver does; evalsite's own tests use it as the receiver."""
    parts = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    try:
        timestamp = int(parts["t"])
    except (KeyError, ValueError):
        return False
    if abs(now - timestamp) > tolerance:
        return False
    return hmac.compare_digest(parts.get("v1", ""), signature(secret, timestamp, body))
