"""Where a webhook may be sent: public addresses only, unless private targets are allowed.

A URL naming a loopback, private, link-local (cloud metadata), shared or reserved address
would let whoever registers a webhook make the server call its own network. The host is
checked when the webhook is saved, and again at every delivery, which then connects to the
very address it checked: a name that resolved to a public address at save time and to
127.0.0.1 now (DNS rebinding) is refused, not followed.
"""

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

DEFAULT_PORTS = {"http": 80, "https": 443}


class TargetRefused(Exception):
    """The URL's host is, or resolves to, an address webhooks may not reach."""


@dataclass(frozen=True)
class Target:
    url: str  # the URL to connect to: its host replaced by the checked address when pinned
    host: str  # the Host header the receiver expects
    pinned: bool


def _address_refused(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    # is_global is false for loopback, RFC 1918, link-local (169.254.169.254), CGNAT, ULA, ...
    return not ip.is_global or ip.is_multicast


def _resolved(host: str, port: int) -> list[str]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise TargetRefused(f"The host {host!r} does not resolve ({exc}).") from exc
    return list(dict.fromkeys(info[4][0] for info in infos))


def target_resolve(url: str) -> Target:
    """The address to deliver to, checked; raises TargetRefused with the reason."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if getattr(settings, "WEBHOOK_ALLOW_PRIVATE_TARGETS", False):
        return Target(url=url, host=parts.netloc.rsplit("@", 1)[-1], pinned=False)
    if not host:
        raise TargetRefused("The URL has no host.")
    addresses = _resolved(host, parts.port or DEFAULT_PORTS.get(parts.scheme, 80))
    refused = [address for address in addresses if _address_refused(address)]
    if refused or not addresses:
        raise TargetRefused(
            f"The host {host!r} resolves to {refused[0] if refused else 'nothing'}, a loopback, "
            "private, link-local or reserved address; webhooks go to public addresses only "
            "(WEBHOOK_ALLOW_PRIVATE_TARGETS allows private ones)."
        )
    address = addresses[0]
    netloc = f"[{address}]" if ":" in address else address
    if parts.port:
        netloc = f"{netloc}:{parts.port}"
    if "@" in parts.netloc:
        netloc = parts.netloc.rsplit("@", 1)[0] + "@" + netloc
    host_header = f"{host}:{parts.port}" if parts.port else host
    return Target(url=parts._replace(netloc=netloc).geturl(), host=host_header, pinned=True)
