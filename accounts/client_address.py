"""The address a request came from: the one rule login lockouts and token throttling share.

Behind a proxy every request's REMOTE_ADDR is the proxy's. When REMOTE_ADDR is one of
TRUSTED_PROXIES, the client is read from X-Forwarded-For, right to left, skipping the trusted
proxies' own entries: everything left of the first untrusted address was written by the
client and proves nothing. Without TRUSTED_PROXIES the header is ignored, so a client cannot
pick its own address.
"""

import ipaddress
from functools import lru_cache

from django.conf import settings

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@lru_cache(maxsize=8)
def _networks(proxies: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(proxy.strip(), strict=False) for proxy in proxies)


def _parsed(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip())
    except ValueError:
        return None


def _trusted(address, networks: tuple[Network, ...]) -> bool:
    return address is not None and any(address in network for network in networks)


def client_address(request) -> str:
    """The client's address as text (the proxy's when the forwarded header holds none)."""
    remote = request.META.get("REMOTE_ADDR", "") or ""
    networks = _networks(tuple(settings.TRUSTED_PROXIES))
    if not networks or not _trusted(_parsed(remote), networks):
        return remote
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    for entry in reversed(forwarded.split(",")):
        address = _parsed(entry)
        if address is None:
            break  # a proxy writes addresses: anything else came from the client
        if not _trusted(address, networks):
            return str(address)
    return remote
