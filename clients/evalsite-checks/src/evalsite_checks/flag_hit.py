"""A red flag found by a check, before it is stored."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FlagHit:
    """A red flag before it is stored."""

    kind: str
    span_id: str
    detail: str
    span_pk: int | None = None
