"""The caches, from the environment: what one process keeps, and what all of them share."""

from pathlib import Path


def _shared(redis_url: str, var_dir: Path, name: str) -> dict:
    """Redis at scale; files under the var folder in embedded mode (one machine)."""
    if redis_url:
        return {
            "BACKEND": "evalsite.redis_cache.SharedClientRedisCache",
            "LOCATION": redis_url,
            "KEY_PREFIX": name,
        }
    return {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": str(var_dir / "cache" / name),
    }


def caches_from_environment(redis_url: str, var_dir: Path) -> dict:
    return {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        # What every process must see alike: failure counts (accounts/token_failures.py) and
        # leases on provider requests (judges/request_leases.py).
        "shared": _shared(redis_url, var_dir, "shared"),
        # The overview's aggregates, precomputed by a periodic task (insights/).
        "insights": _shared(redis_url, var_dir, "insights"),
    }
