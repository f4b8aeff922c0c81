"""Which peers may tell the app a client's address (X-Forwarded-*): the trusted proxies.

Behind `PROXY_COUNT` reverse proxies the client's address is in X-Forwarded-For, but only a proxy may
say so: a client that reaches gunicorn directly could name any address in that header, pick a new one
per request and so escape every per-address limit (api.ops.limits) and pass for this host at /metrics.
`TrustedProxyFix` therefore applies werkzeug's ProxyFix only to connections whose peer address is in
`TRUSTED_PROXIES` (addresses or networks; default the loopback addresses, i.e. nginx on the same
host: deploy/nginx.conf); from any other peer the X-Forwarded-* headers are ignored and the peer is
the client.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from werkzeug.middleware.proxy_fix import ProxyFix

# nginx on the same host (deploy/): it connects from 127.0.0.1, or ::1 when the upstream says [::1].
DEFAULT_TRUSTED = ("127.0.0.1", "::1")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(items: Iterable[str]) -> list[Network]:
    """Return the networks of `items` ("10.0.0.5", "10.0.0.0/24", "::1"); raise ValueError for a bad one."""
    networks = []
    for item in items:
        item = item.strip()
        if item:
            networks.append(ipaddress.ip_network(item, strict=False))
    return networks


def peer_ip(address: str | None) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """Return the IP of a peer address (an IPv4-mapped IPv6 address as IPv4), or None (a unix socket)."""
    try:
        ip = ipaddress.ip_address((address or "").split("%", 1)[0])
    except ValueError:
        return None
    mapped = getattr(ip, "ipv4_mapped", None)
    return mapped or ip


class TrustedProxyFix:
    """ProxyFix for connections from a trusted proxy only; every other request passes unchanged."""

    def __init__(self, app, count: int, trusted: Iterable[str]):
        self.app = app
        self.fixed = ProxyFix(app, x_for=count, x_proto=count, x_host=count)
        self.trusted = parse_networks(trusted)

    def trusts(self, address: str | None) -> bool:
        ip = peer_ip(address)
        return ip is not None and any(ip.version == net.version and ip in net for net in self.trusted)

    def __call__(self, environ, start_response):
        if self.trusts(environ.get("REMOTE_ADDR")):
            return self.fixed(environ, start_response)
        return self.app(environ, start_response)
