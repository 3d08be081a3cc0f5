"""A dashboard's precomputed snapshot: every chart built at once by a periodic task, kept in
the shared insights cache, read by the page and its CSV downloads.

The overview and the agent dashboard each keep one: a page reads its snapshot, rebuilds one that
is missing or too old, and carries on without the cache while Redis is away.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import caches
from django.db import connection, transaction
from django.utils import timezone

from core.publish import publish_errors
from insights.charts import Chart
from insights.sql import build_session_jit_off

logger = logging.getLogger(__name__)


def cache_call(method: str, *args, default=None, **kwargs):
    """While the shared cache is away a page computes its own figures; it does not fail."""
    cache = caches["insights"] if "insights" in settings.CACHES else caches["default"]
    try:
        return getattr(cache, method)(*args, **kwargs)
    except (*publish_errors(), OSError) as exc:  # Redis away, or a cache folder unwritable
        logger.warning("insights cache unavailable for %s: %s", method, exc)
        return default


@contextmanager
def snapshot_build_session():
    """One transaction for all charts, so they agree with each other; PostgreSQL without JIT."""
    with transaction.atomic():
        build_session_jit_off()
        yield


@dataclass(frozen=True)
class ChartSnapshot:
    """Charts under one cache key; `builders` in page order, each key also its CSV name."""

    key: str
    builders: dict[str, Callable[[], Chart]]

    def _cache_key(self) -> str:
        # Two databases (say, two test runs) may share one cache; never mix their figures.
        return f"{self.key}:{connection.settings_dict['NAME']}"

    def build(self) -> dict:
        started = time.perf_counter()
        with snapshot_build_session():
            charts = [chart.as_dict() for chart in self._charts()]
        return {
            "built_at": timezone.now().isoformat(),
            "build_ms": round((time.perf_counter() - started) * 1000, 1),
            "charts": charts,
        }

    def _charts(self) -> list[Chart]:
        return [builder() for builder in self.builders.values()]

    def refresh(self) -> dict:
        snapshot = self.build()
        cache_call("set", self._cache_key(), snapshot, timeout=None)
        return snapshot

    def get(self) -> dict:
        """The latest snapshot; rebuilt here when there is none or it has grown too old."""
        snapshot = cache_call("get", self._cache_key())
        if snapshot is not None:
            age = timezone.now() - timezone.datetime.fromisoformat(snapshot["built_at"])
            if age.total_seconds() <= settings.INSIGHTS_SNAPSHOT_MAX_AGE:
                return snapshot
        return self.refresh()

    def clear(self) -> None:
        cache_call("delete", self._cache_key())

    def chart(self, key: str) -> Chart | None:
        """One chart of the latest snapshot, or None for a key this snapshot does not have."""
        if key not in self.builders:
            return None
        return next(
            (Chart.from_dict(data) for data in self.get()["charts"] if data["key"] == key), None
        )

    @contextmanager
    def refresh_lock(self, timeout: int):
        """Yield True to the one caller that may rebuild now; the lock expires if it dies."""
        lock = f"{self._cache_key()}:lock"
        acquired = cache_call("add", lock, "1", timeout=timeout, default=False)
        try:
            yield acquired
        finally:
            if acquired:
                cache_call("delete", lock)
