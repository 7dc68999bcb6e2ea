"""hooks-redaction: removes secrets from event data before logging and display hooks see it.

Runs first (priority -1000) on every kernel event and every event another module declares on the
``observability.events`` channel, and replaces secrets in the shared event data in place (nested containers
the emitter owns are replaced by redacted copies, never mutated). A second handler runs last and puts the
original values back, because emitters read the event data back from the emit result (loop-basic runs the
``tool_input`` and stores the ``prompt`` it gets back): redaction is for observers, not a change to what the
session does. It also offers its redactor as the capability ``redaction.redact`` so hooks that serialize
data (hooks-logging) can redact what they write.
"""

from __future__ import annotations

import logging
import os
import weakref
from collections import OrderedDict
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from pydantic import Field, model_validator

from amplifier_core.events import ALL_EVENTS
from amplifier_core.models import HookResult
from amplifier_core.module_config import ModuleConfig, parse_module_config
from amplifier_support.capability_names import OBSERVABILITY_EVENTS, REDACTION_REDACT, SECRETS_VALUES
from amplifier_support.secret_values import secret_environment

from .patterns import REDACTED, SecretRedactor
from .restore import put_back

__amplifier_module_type__ = "hook"
__all__ = ["REDACTED", "RedactionConfig", "RedactionHook", "SecretRedactor", "mount", "on_session_ready"]

logger = logging.getLogger(__name__)

MODULE_ID = "hooks-redaction"
MAX_PENDING_RESTORES = 256
DEFAULT_ENV_VARS = [
    "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "GEMINI_API_KEY", "GITHUB_TOKEN",
]


# Keys of upstream's hooks-redaction with no use here: its rule sets are replaced by this module's patterns,
# and skipping tool:pre/post is unnecessary because emitters get their original values back. Accepted with a
# warning so upstream profiles keep their redaction instead of failing the mount.
IGNORED_UPSTREAM_KEYS = ("rules", "skip_events")


class RedactionConfig(ModuleConfig):
    @model_validator(mode="before")
    @classmethod
    def _accept_upstream_keys(cls, raw: Any) -> Any:
        if isinstance(raw, dict) and any(key in raw for key in IGNORED_UPSTREAM_KEYS):
            ignored = [key for key in IGNORED_UPSTREAM_KEYS if key in raw]
            raw = {key: value for key, value in raw.items() if key not in ignored}
            logger.warning("%s config: ignoring upstream key(s) %s, which this module does not use (it redacts "
                           "every event, and hooks never change what tools receive); remove them from the mount "
                           "plan", MODULE_ID, ", ".join(ignored))
        return raw

    env_vars: list[str] = Field(default_factory=lambda: list(DEFAULT_ENV_VARS))
    discover_env_secrets: bool = True
    allowlist: list[str] = Field(default_factory=list)
    additional_events: list[str] = Field(default_factory=list)
    priority: int = -1000
    keep_emitter_data: bool = True
    restore_priority: int = 1_000_000


def declared_event_names(values: list[Any]) -> list[str]:
    """Event names from the ``observability.events`` capability/contributions: names or lists of names."""
    names: list[str] = []
    for value in values:
        if isinstance(value, str):
            names.append(value)
        elif isinstance(value, list | tuple | set | frozenset):
            names.extend(item for item in value if isinstance(item, str))
    return names


class RedactionHook:
    """Registers the redacting handler and keeps track of what it registered, for cleanup."""

    def __init__(self, coordinator: Any, config: RedactionConfig) -> None:
        self.coordinator = coordinator
        self.config = config
        named = secret_environment() if config.discover_env_secrets else {}
        named.update({name: os.environ[name] for name in config.env_vars if os.environ.get(name)})
        given = coordinator.get_capability(SECRETS_VALUES) if hasattr(coordinator, "get_capability") else None
        if isinstance(given, dict):
            named.update({str(name): value for name, value in given.items() if isinstance(value, str)})
        self.redactor = SecretRedactor((), config.allowlist, named)
        self._registered: set[str] = set()
        self._unregister: list[Callable[[], None]] = []
        # id(data) -> (data, changes) between the redacting and the restoring handler of one emit. Emits that
        # a hook denies never reach the restorer, so the oldest entries are dropped past a bound.
        self._pending: OrderedDict[int, tuple[dict[str, Any], list[tuple[Any, Any, Any]]]] = OrderedDict()
        # The emits of the current task between the two handlers, newest last: (event, data, changes). A
        # ``modify`` hook may hand on a new dict, which the id lookup above cannot recognise; the restorer
        # then takes this task's latest open emit of the same event. Tasks get their own copy of the tuple.
        self._open: ContextVar[tuple[tuple[str, dict[str, Any], list[tuple[Any, Any, Any]]], ...]] = ContextVar(
            f"{MODULE_ID}-open-emits-{id(self)}", default=())

    async def handle(self, event: str, data: dict[str, Any]) -> HookResult:
        if not isinstance(data, dict) or not data:
            return HookResult()
        changes = self.redactor.redact_in_place(data)
        if self.config.keep_emitter_data:
            self._open.set((*self._open.get()[-(MAX_PENDING_RESTORES - 1):], (event, data, changes)))
        if not changes:
            return HookResult()
        if self.config.keep_emitter_data:
            self._pending[id(data)] = (data, changes)
            while len(self._pending) > MAX_PENDING_RESTORES:
                self._pending.popitem(last=False)
        # Not "modify": handlers share this dict already, and HookResult would hand on a copy of it, which
        # the restoring handler could not recognise.
        return HookResult()

    async def restore(self, event: str, data: dict[str, Any]) -> HookResult:
        """Last handler: give the emitter back its original values (unless a hook replaced them since)."""
        if not isinstance(data, dict):
            return HookResult()
        opened = self._take_open(event)
        entry = self._pending.pop(id(data), None)
        if entry is not None and entry[0] is data:
            for key, original, redacted in entry[1]:
                if data.get(key) is redacted:
                    data[key] = original
        elif opened is not None and opened[0] is not data:
            self._pending.pop(id(opened[0]), None)
            for key, original, redacted in opened[1]:  # a modify hook replaced the dict: match by value
                if key in data:
                    data[key] = put_back(data[key], original, redacted)
        return HookResult()

    def _take_open(self, event: str) -> tuple[dict[str, Any], list[tuple[Any, Any, Any]]] | None:
        """Remove and return this task's latest open emit of ``event`` (records above it belong to nested
        emits a hook denied, which never reached the restorer)."""
        stack = self._open.get()
        for index in range(len(stack) - 1, -1, -1):
            if stack[index][0] == event:
                self._open.set(stack[:index])
                return stack[index][1], stack[index][2]
        return None

    def register(self, events: list[str]) -> None:
        for event in events:
            if event in self._registered:
                continue
            self._registered.add(event)
            self._unregister.append(self.coordinator.hooks.register(
                event, self.handle, priority=self.config.priority, name=MODULE_ID))
            if self.config.keep_emitter_data:
                self._unregister.append(self.coordinator.hooks.register(
                    event, self.restore, priority=self.config.restore_priority, name=f"{MODULE_ID}:restore"))

    async def register_declared(self) -> None:
        """Subscribe to the module events declared so far (capability list and channel contributions)."""
        declared: list[Any] = []
        capability = self.coordinator.get_capability(OBSERVABILITY_EVENTS)
        if capability:
            declared.append(capability)
        declared.extend(await self.coordinator.collect_contributions(OBSERVABILITY_EVENTS))
        self.register(declared_event_names(declared))

    def cleanup(self) -> None:
        for unregister in self._unregister:
            unregister()
        self._unregister.clear()
        self._registered.clear()
        self._pending.clear()


_hooks_by_coordinator: weakref.WeakKeyDictionary[Any, RedactionHook] = weakref.WeakKeyDictionary()


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> Callable[[], None]:
    """Register the redactor on every known event; returns the cleanup that unregisters it."""
    parsed = parse_module_config(RedactionConfig, config, MODULE_ID)
    hook = RedactionHook(coordinator, parsed)
    hook.register([*ALL_EVENTS, *parsed.additional_events])
    await hook.register_declared()
    coordinator.register_capability(REDACTION_REDACT, hook.redactor.redact)
    _hooks_by_coordinator[coordinator] = hook
    logger.debug("hooks-redaction: %d named secret value(s) (environment and %s)", len(hook.redactor.named),
                 SECRETS_VALUES)
    return hook.cleanup


async def on_session_ready(coordinator: Any) -> None:
    """Pick up events declared by modules mounted after this one."""
    hook = _hooks_by_coordinator.get(coordinator)
    if hook is not None:
        await hook.register_declared()
