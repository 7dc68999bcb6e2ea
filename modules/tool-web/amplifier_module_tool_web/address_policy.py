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


def address_class(address: IPAddress) -> str | None:
    """Why ``address`` is off limits ("loopback", "private", ...), or None for a public address."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address_class(address.ipv4_mapped)
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
