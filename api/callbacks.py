"""Is a callback_url safe to POST to? Checked at submission and again at delivery (SPEC §8).

Every address a host resolves to must pass, and delivery connects to exactly the addresses checked here, so a
DNS answer that changes between the check and the connection (rebinding) cannot steer the webhook elsewhere.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

from api.exceptions import CallbackUnresolvable, UnsafeCallbackUrl

MAX_URL_LENGTH = 2000
RESOLVE_TIMEOUT_SECONDS = 3.0

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Cloud metadata services by name; their addresses are refused below whatever name reaches them.
METADATA_HOSTNAMES = frozenset(
    {
        "metadata",
        "metadata.google.internal",
        "metadata.goog",
        "metadata.azure.internal",
        "instance-data",
        "instance-data.ec2.internal",
    }
)

# Never a webhook target, whatever the settings say.
ALWAYS_FORBIDDEN_NETWORKS = tuple(
    ipaddress.ip_network(network)
    for network in (
        "0.0.0.0/8",  # "this host" on Linux
        "240.0.0.0/4",  # reserved ("class E"); Python counts it private, so the setting would let it through
        "255.255.255.255/32",  # the limited broadcast address (inside the line above; named for the reader)
        "169.254.0.0/16",  # link-local, home of 169.254.169.254 (AWS, GCP, Azure, OpenStack metadata)
        "100.100.100.200/32",  # Alibaba Cloud metadata
        "168.63.129.16/32",  # Azure wire server
        "fe80::/10",  # IPv6 link-local
        "fd00:ec2::254/128",  # AWS metadata over IPv6
    )
)
SHARED_ADDRESS_SPACE = ipaddress.ip_network("100.64.0.0/10")  # carrier-grade NAT: private in practice
NAT64 = ipaddress.ip_network("64:ff9b::/96")
IPV4_COMPATIBLE = ipaddress.ip_network("::/96")


@dataclass(frozen=True)
class CheckedCallback:
    """A callback URL that passed the check, with the addresses delivery may connect to."""

    url: str
    scheme: str
    host: str
    """The host as written (for the Host header and TLS server name)."""
    port: int
    target: str
    """Path and query, as sent in the request line."""
    addresses: tuple[str, ...]


Resolver = Callable[[str, int], list[str]]


def embedded_ipv4(address: IPAddress) -> IPAddress:
    """Return the IPv4 address an IPv6 address carries (mapped, 6to4, NAT64, compatible), else the address."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address.sixtofour is not None:
            return address.sixtofour
        if address in NAT64 or (address in IPV4_COMPATIBLE and int(address) > 1):
            return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address


def address_refusal(address: IPAddress, *, allow_private: bool) -> str | None:
    """Say why `address` may not receive a webhook, or None when it may."""
    address = embedded_ipv4(address)
    if (
        any(address in network for network in ALWAYS_FORBIDDEN_NETWORKS if network.version == address.version)
        or address.is_link_local
        or address.is_multicast
        or address.is_unspecified
    ):
        return f"{address} is a link-local, metadata, multicast, broadcast, reserved or unspecified address"
    if address.is_loopback or address.is_private or address in SHARED_ADDRESS_SPACE:
        if allow_private:
            return None
        return f"{address} is a loopback or private address (allowed only with LPS_ALLOW_PRIVATE_CALLBACKS=true)"
    if address.is_reserved or not address.is_global:
        return f"{address} is a reserved address"
    return None


_resolver_pool: ThreadPoolExecutor | None = None
_resolver_pool_lock = threading.Lock()


def resolve(host: str, port: int) -> list[str]:
    """Resolve `host` to its addresses through the system resolver, within RESOLVE_TIMEOUT_SECONDS."""
    global _resolver_pool
    with _resolver_pool_lock:
        if _resolver_pool is None:
            _resolver_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="lps-resolve")
    future = _resolver_pool.submit(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM)
    try:
        infos = future.result(timeout=RESOLVE_TIMEOUT_SECONDS)
    except FutureTimeout as exc:
        raise CallbackUnresolvable(f"resolving {host!r} took longer than {RESOLVE_TIMEOUT_SECONDS:g} s") from exc
    except (OSError, UnicodeError) as exc:
        raise CallbackUnresolvable(f"{host!r} does not resolve ({exc})") from exc
    return list(dict.fromkeys(info[4][0] for info in infos))


class CachingResolver:
    """A resolver that asks once per (host, port): one request may name the same host a thousand times."""

    def __init__(self, resolver: Resolver = resolve):
        self._resolver = resolver
        self._answers: dict[tuple[str, int], list[str] | Exception] = {}

    def __call__(self, host: str, port: int) -> list[str]:
        key = (host, port)
        if key not in self._answers:
            try:
                self._answers[key] = self._resolver(host, port)
            except CallbackUnresolvable as exc:
                self._answers[key] = exc
        answer = self._answers[key]
        if isinstance(answer, Exception):
            raise answer
        return answer


def check_callback_url(url: str, *, allow_private: bool | None = None, resolver: Resolver = resolve) -> CheckedCallback:
    """Return the checked callback, or raise UnsafeCallbackUrl (CallbackUnresolvable when DNS fails)."""
    if allow_private is None:
        allow_private = settings.LPS_ALLOW_PRIVATE_CALLBACKS
    if len(url) > MAX_URL_LENGTH:
        raise UnsafeCallbackUrl(f"the callback_url is longer than {MAX_URL_LENGTH} characters")
    if any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in url):
        raise UnsafeCallbackUrl("the callback_url contains whitespace or control characters")
    try:
        parts = urlsplit(url)
        port = parts.port
        host = parts.hostname
    except ValueError as exc:
        raise UnsafeCallbackUrl(f"the callback_url is not a valid URL ({exc})") from exc
    if parts.scheme not in ("http", "https"):
        raise UnsafeCallbackUrl("the callback_url must be an http:// or https:// URL")
    if not host:
        raise UnsafeCallbackUrl("the callback_url has no host")
    if "@" in parts.netloc:
        raise UnsafeCallbackUrl("the callback_url must not carry credentials (user@host)")
    if port is None:
        port = 443 if parts.scheme == "https" else 80
    if port == 0:
        raise UnsafeCallbackUrl("the callback_url's port must be 1 to 65535")
    name = host.rstrip(".").lower()
    if name in METADATA_HOSTNAMES:
        raise UnsafeCallbackUrl(f"{name} is a cloud metadata host")

    try:
        literal = ipaddress.ip_address(name)
    except ValueError:
        literal = None
    if literal is not None:
        addresses = [str(literal)]
    elif name.endswith(".invalid") or name == "invalid":
        # RFC 6761: never resolves; no need to ask anyone.
        raise CallbackUnresolvable(f"{name!r} does not resolve")
    elif name == "localhost" or name.endswith(".localhost"):
        # RFC 6761: always the loopback, whatever a resolver would say.
        addresses = ["127.0.0.1", "::1"]
    else:
        addresses = resolver(name, port)
    if not addresses:
        raise CallbackUnresolvable(f"{name!r} does not resolve")
    for address in addresses:
        refusal = address_refusal(ipaddress.ip_address(address.split("%")[0]), allow_private=allow_private)
        if refusal:
            raise UnsafeCallbackUrl(f"the callback_url's host {name} is refused: {refusal}")
    target = parts.path or "/"
    if parts.query:
        target += "?" + parts.query
    return CheckedCallback(
        url=url, scheme=parts.scheme, host=host, port=port, target=target, addresses=tuple(addresses)
    )
