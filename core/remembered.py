"""Values read from the database and remembered for a few seconds per process, for checks
that run on every request or pass. Whoever saves what they depend on empties this process's
copy at once (a receiver calls `clear`); other processes read it again within the interval."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

Value = TypeVar("Value")


class Remembered(Generic[Value]):
    def __init__(self, seconds: float, kept: int = 256):
        self.seconds = seconds
        self.kept = kept  # beyond this many keys the copy starts over, so it stays small
        self.lock = threading.Lock()
        self.entries: dict[Hashable, tuple[Value, float]] = {}

    def get(self, key: Hashable, read: Callable[[], Value]) -> Value:
        """The value remembered for key, or what `read` returns now (then remembered)."""
        entry = self.entries.get(key)
        if entry is not None and entry[1] >= time.monotonic():
            return entry[0]
        value = read()
        with self.lock:
            if len(self.entries) >= self.kept:
                self.entries.clear()
            self.entries[key] = (value, time.monotonic() + self.seconds)
        return value

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()
