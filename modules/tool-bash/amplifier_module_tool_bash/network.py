"""Which hosts a sandboxed command may reach: tool-bash's proxy (``amplifier_support.sandbox.netproxy``) and its
decisions.

A host on the allow list (the tool's ``sandbox.network.allow``, the user's settings through capability
``sandbox.network_allow``, and the hosts the user allowed "always" for this project) goes through. Any other
host is asked in the chat (Allow once: for the rest of this command; Always allow: saved for the project through
capability ``sandbox.network_remember``; Deny), and refused when nobody can answer (capability
``approval.interactive`` false: a headless run, whatever ``--approval`` says). A refused host is named in the tool
result.
"""

from __future__ import annotations

import asyncio
import fnmatch
import logging
from typing import Any

from amplifier_support.approval_choices import ApprovalChoice
from amplifier_support.capability_names import (
    APPROVAL_INTERACTIVE,
    SANDBOX_NETWORK_ALLOW,
    SANDBOX_NETWORK_REMEMBER,
)
from amplifier_support.sandbox.netproxy import NetworkProxy

logger = logging.getLogger(__name__)
ASK_TIMEOUT = 300.0


def host_matches(host: str, patterns: list[str]) -> bool:
    """``host`` (lower case) against names, addresses and globs (``*.example.com`` also matches example.com)."""
    for pattern in patterns:
        pattern = pattern.strip().lower().rstrip(".")
        if not pattern:
            continue
        if fnmatch.fnmatchcase(host, pattern) or (pattern.startswith("*.") and host == pattern[2:]):
            return True
    return False


class NetworkGate:
    """The proxy of one bash tool and the answers given for it."""

    def __init__(self, allow: list[str], coordinator: Any) -> None:
        self.allow = list(allow)
        self.coordinator = coordinator
        self.proxy = NetworkProxy(self.decide)
        self.once: set[str] = set()  # allowed for the running command(s); cleared when none runs
        self.always: set[str] = set()
        self._asking: dict[str, asyncio.Lock] = {}

    def _capability(self, name: str) -> Any:
        getter = getattr(self.coordinator, "get_capability", None)
        try:
            return getter(name) if callable(getter) else None
        except Exception:  # a coordinator without capabilities
            return None

    def allowed(self, host: str) -> bool:
        settings = self._capability(SANDBOX_NETWORK_ALLOW)
        patterns = [*self.allow, *(settings if isinstance(settings, list) else [])]
        return host in self.once or host in self.always or host_matches(host, [str(item) for item in patterns])

    async def decide(self, host: str, port: int) -> bool:
        if self.allowed(host):
            return True
        lock = self._asking.setdefault(host, asyncio.Lock())
        async with lock:  # one question per host, however many connections are waiting on it
            if self.allowed(host):
                return True
            choice = await self._ask(host, port)
        if choice is ApprovalChoice.ALWAYS_ALLOW:
            self.always.add(host)
            remember = self._capability(SANDBOX_NETWORK_REMEMBER)
            if callable(remember):
                try:
                    remember(host)
                except Exception as error:  # the answer still holds for this session
                    logger.warning("could not save %s for this project: %s", host, error)
            return True
        if choice is ApprovalChoice.ALLOW_ONCE:
            self.once.add(host)
            return True
        return False

    async def _ask(self, host: str, port: int) -> ApprovalChoice | None:
        approvals = getattr(self.coordinator, "approval_system", None)
        if approvals is None or self._capability(APPROVAL_INTERACTIVE) is False:
            return None  # nobody to ask (a headless run, `--approval allow` included): a host needs a person
        options = [ApprovalChoice.ALLOW_ONCE.label, ApprovalChoice.ALWAYS_ALLOW.label, ApprovalChoice.DENY.label]
        prompt = (f"A sandboxed command wants to reach {host}:{port}, which is not on sandbox.network.allow.\n"
                  "Allow once: for this command. Always allow: for this project (saved in your config dir).")
        try:
            answer = await approvals.request_approval(prompt=prompt, options=options, timeout=ASK_TIMEOUT,
                                                      default="deny")
        except Exception as error:  # a timeout, or an approval system that cannot ask: refused
            logger.info("network approval for %s not given: %s", host, error)
            return None
        return ApprovalChoice.of(answer)

    def command_done(self, still_running: bool) -> str | None:
        """A line naming the hosts refused since the last call (None when none were)."""
        if not still_running:
            self.once.clear()
        refused = self.proxy.take_refused()
        if not refused:
            return None
        return ("[network: refused " + ", ".join(refused) + ": not on sandbox.network.allow and not allowed when "
                "asked. Add the host to sandbox.network.allow in your settings, or allow it when asked.]")
