"""Which network addresses web_fetch may reach. Decided on resolved IP addresses, never on hostname text,
so DNS names pointing inside the network, decimal IPs and IPv4-mapped IPv6 cannot slip through."""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

_METADATA = {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")}


class AddressRefused(Exception):
    """The URL's host resolves to an address the policy does not allow."""


_EMBEDDING_PREFIXES = (
    ipaddress.ip_network("64:ff9b::/96"),    # NAT64 well-known prefix: a gateway translates to the IPv4 inside
    ipaddress.ip_network("64:ff9b:1::/48"),  # local-use NAT64
    ipaddress.ip_network("::ffff:0:0:0/96"),  # IPv4-translated (SIIT)
    ipaddress.ip_network("::/96"),            # IPv4-compatible (deprecated); :: and ::1 are judged as themselves
)


def embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 form carries (mapped, NAT64, 6to4, translated, compatible), if any."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if int(address) <= 1:
        return None
    for prefix in _EMBEDDING_PREFIXES:
        if address in prefix:
            return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def address_class(address: IPAddress) -> str | None:
    """Why ``address`` is off limits ("loopback", "private", ...), or None for a public address.

    An IPv6 address carrying an IPv4 one is judged by that IPv4 address: ``64:ff9b::7f00:1`` reaches
    127.0.0.1 through a NAT64 gateway as surely as ``::ffff:127.0.0.1`` does on the host.
    """
    if isinstance(address, ipaddress.IPv6Address):
        inner = embedded_ipv4(address)
        if inner is not None:
            return address_class(inner)
    if address in _METADATA:
        return "cloud metadata"
    if address.is_loopback:
        return "loopback"
    if address.is_link_local:
        return "link-local"
    if address.is_unspecified:
        return "unspecified"
    if address.is_multicast:
        return "multicast"
    if address.is_private:
        return "private"
    if not address.is_global:
        return "reserved"
    return None


@dataclass(frozen=True)
class AddressPolicy:
    """Refuses non-public addresses unless a host name or network is explicitly allowed."""

    allowed_hosts: frozenset[str] = frozenset()
    allowed_networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def from_config(cls, allowed: list[str]) -> AddressPolicy:
        hosts: set[str] = set()
        networks: list[IPNetwork] = []
        for item in allowed:
            try:
                networks.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                hosts.add(item.lower().rstrip("."))
        return cls(frozenset(hosts), tuple(networks))

    def check(self, host: str, addresses: list[IPAddress]) -> None:
        if host.lower().rstrip(".") in self.allowed_hosts:
            return
        for address in addresses:
            if any(address in network for network in self.allowed_networks):
                continue
            reason = address_class(address)
            if reason is not None:
                raise AddressRefused(
                    f"refused: {host} resolves to {address}, a {reason} address. web_fetch only reaches public "
                    "addresses (allow it explicitly with the tool-web config key allowed_hosts)"
                )


def resolve_host(host: str, port: int) -> list[IPAddress]:
    """All addresses ``host`` resolves to (an IP literal resolves to itself)."""
    try:
        return [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        pass
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    addresses: list[IPAddress] = []
    for info in infos:
        address = ipaddress.ip_address(info[4][0].split("%")[0])
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise OSError(f"{host} did not resolve to any address")
    return addresses
