"""SDK clients made once per settings key and shared by a process's threads (and their
connection pools); a changed setting makes a new key, so a new client."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

Client = TypeVar("Client")


class SharedClients(Generic[Client]):
    def __init__(self):
        self.lock = threading.Lock()
        self.clients: dict[Hashable, Client] = {}

    def get(self, key: Hashable, make: Callable[[], Client]) -> Client:
        """The client made for key, or the one `make` returns now (then shared)."""
        with self.lock:
            if key not in self.clients:
                self.clients[key] = make()
            return self.clients[key]
