"""Small typed readers for settings that come from the environment; they fail loudly."""

import ipaddress
import os

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def envstr(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def envbool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true/false), got {raw!r}")


def envint(name: str, default: int) -> int:
    return _env_number(name, default, int, "an integer")


def envfloat(name: str, default: float) -> float:
    return _env_number(name, default, float, "a number")


def _env_number(name: str, default, convert, kind: str):
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return convert(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be {kind}, got {raw!r}") from None


def envlist(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def envnetworks(name: str) -> list[str]:
    """Comma-separated addresses or networks (`10.0.0.5,172.16.0.0/12`), each checked."""
    networks = envlist(name, [])
    for network in networks:
        try:
            ipaddress.ip_network(network, strict=False)
        except ValueError as error:
            raise ImproperlyConfigured(f"{name}: {error}") from None
    return networks


def envsecret(name: str) -> str:
    """Read NAME, or the contents of the file named by NAME_FILE (for Docker/K8s secrets)."""
    if path := os.environ.get(f"{name}_FILE"):
        with open(path, encoding="utf-8") as handle:
            return handle.read().strip()
    return os.environ.get(name, "")
