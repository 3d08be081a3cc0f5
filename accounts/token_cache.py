"""Valid API tokens a process remembers with their user and roles (accounts.authentication),
apart from the REST framework so that the receivers that empty it load none of it."""

import threading
import time
from dataclasses import dataclass

from accounts.models import ApiToken
from accounts.roles import user_roles

# Tokens remembered per process, at most this many (agents in a loop reuse a handful).
TOKENS_KEPT = 1024


@dataclass
class _Resolved:
    token: ApiToken
    user: object  # with its roles resolved
    until: float  # time.monotonic() after which the token is looked up again


class TokenCache:
    """Valid tokens with their user and roles, for TOKEN_REMEMBERED_SECONDS: an agent that
    checks every tool call, or an exporter that sends every second, pays the token and role
    queries once per interval instead of per request. Revoking a token, or changing its
    user or their groups, empties this process's cache at once (accounts.receivers); other
    processes look again within the interval."""

    def __init__(self):
        self.lock = threading.Lock()
        self.entries: dict[str, _Resolved] = {}

    def get(self, token_hash: str) -> _Resolved | None:
        entry = self.entries.get(token_hash)
        if entry is None or entry.until < time.monotonic():
            return None
        return entry

    def put(self, token_hash: str, token: ApiToken, seconds: float) -> None:
        if seconds <= 0:
            return
        user_roles(token.user)  # resolved now, kept on the user
        with self.lock:
            if len(self.entries) >= TOKENS_KEPT:
                self.entries.clear()
            self.entries[token_hash] = _Resolved(token, token.user, time.monotonic() + seconds)

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()

    def forget(self, *, user_ids=(), token_id: int | None = None) -> None:
        """Drop the tokens of these users, or this token."""
        users = set(user_ids)
        with self.lock:
            for key, entry in list(self.entries.items()):
                if entry.token.user_id in users or entry.token.pk == token_id:
                    del self.entries[key]


token_cache = TokenCache()
