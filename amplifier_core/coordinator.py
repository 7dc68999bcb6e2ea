"""The coordinator: mount points, capabilities, contribution channels and cleanup for one session.

Modules reach each other only through it. It also turns hook results into effects
(``process_hook_result``) when an orchestrator asks it to.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, Protocol

from . import events
from .approval import ApprovalTimeoutError
from .cancellation import CancellationToken
from .hooks import HookRegistry
from .models import ContextInjection, HookResult
from .sanitize import strip_control_chars

# 2.0.2's coordinator.py is a re-export, `from amplifier_core._engine import RustCoordinator as ModuleCoordinator`;
# here the class is defined below.
__all__ = ["ModuleCoordinator"]

logger = logging.getLogger(__name__)


class ModuleLoading(Protocol):
    """What the coordinator hands out as ``loader``: the session's ModuleLoader. Named by its one method here
    because the loader knows the coordinator, and the coordinator must not import it back."""

    async def load(
        self,
        module_id: str,
        config: dict[str, Any] | None = None,
        source_hint: Any = None,
        coordinator: ModuleCoordinator | None = None,
    ) -> Callable[..., Awaitable[Any]]: ...

_SINGLE_SLOTS = ("orchestrator", "context", "module-source-resolver")
_MULTI_SLOTS = ("providers", "tools")
_GRANTING_CHOICES = {"allow", "allow once", "allow always", "always allow"}
_PROMPT_LIMIT = 200


def _truncate_prompt(prompt: str) -> str:
    return prompt if len(prompt) <= _PROMPT_LIMIT else prompt[:_PROMPT_LIMIT] + "..."


async def _call_maybe_async(function: Callable[..., Any], *args: Any) -> Any:
    result = function(*args)
    if inspect.isawaitable(result):
        result = await result
    return result


class ModuleCoordinator:
    def __init__(self, session: Any, approval_system: Any = None, display_system: Any = None) -> None:
        self._session = session
        self._hooks: HookRegistry = HookRegistry()
        self._mount_points: dict[str, Any] = {
            "orchestrator": None,
            "providers": {},
            "tools": {},
            "context": None,
            "hooks": self._hooks,
            "module-source-resolver": None,
        }
        self._channels: dict[str, list[dict[str, Any]]] = {}
        self._session_state: dict[str, Any] = {}
        self._approval_system = approval_system
        self._display_system = display_system
        self._cancellation = CancellationToken()
        self._capabilities: dict[str, Any] = {}
        self._cleanup_fns: list[Any] = []  # 2.0.2's name: tests inspect it
        self._current_turn_injections = 0
        self._loader: ModuleLoading | None = None
        if approval_system is None:
            logger.debug("coordinator created without an approval system: ask_user requests will be denied")
        if display_system is None:
            logger.debug("coordinator created without a display system: hook user messages go to the log")

    # -- state (properties, as in 2.0.2: the containers are shared, the names cannot be rebound) ------
    @property
    def hooks(self) -> HookRegistry:
        return self._hooks

    @property
    def mount_points(self) -> dict[str, Any]:
        return self._mount_points

    @property
    def channels(self) -> dict[str, list[dict[str, Any]]]:
        """Contribution channels: channel name -> ``[{"name", "callback"}, ...]`` in registration order."""
        return self._channels

    @property
    def cancellation(self) -> CancellationToken:
        return self._cancellation

    @property
    def session_state(self) -> dict[str, Any]:
        """Free-form state modules share for the life of the session (upstream loop modules keep theirs here)."""
        return self._session_state

    @session_state.setter
    def session_state(self, value: dict[str, Any]) -> None:
        self._session_state = value

    @property
    def approval_system(self) -> Any:
        return self._approval_system

    @approval_system.setter
    def approval_system(self, value: Any) -> None:
        self._approval_system = value

    @property
    def display_system(self) -> Any:
        return self._display_system

    @display_system.setter
    def display_system(self, value: Any) -> None:
        self._display_system = value

    # -- read-through properties -------------------------------------------------------------------
    @property
    def session(self) -> Any:
        return self._session

    @property
    def session_id(self) -> str | None:
        return getattr(self._session, "session_id", None)

    @property
    def parent_id(self) -> str | None:
        return getattr(self._session, "parent_id", None)

    @property
    def config(self) -> dict[str, Any]:
        return getattr(self._session, "config", None) or {}

    @property
    def loader(self) -> ModuleLoading | None:
        if self._loader is not None:
            return self._loader
        return getattr(self._session, "loader", None)

    @loader.setter
    def loader(self, value: ModuleLoading | None) -> None:
        self._loader = value

    def _session_setting(self, key: str) -> Any:
        section = self.config.get("session")
        return section.get(key) if isinstance(section, dict) else None

    @property
    def injection_budget_per_turn(self) -> int | None:
        return self._session_setting("injection_budget_per_turn")

    @property
    def injection_size_limit(self) -> int | None:
        return self._session_setting("injection_size_limit")

    # -- mounting ----------------------------------------------------------------------------------
    async def mount(self, mount_point: str, module: Any, name: str | None = None) -> None:
        if mount_point not in self.mount_points:
            raise ValueError(f"Unknown mount point: {mount_point}")
        if mount_point == "hooks":
            raise ValueError("Hooks should be registered directly with the HookRegistry (coordinator.hooks.register)")
        if mount_point in _SINGLE_SLOTS:
            if self.mount_points[mount_point] is not None:
                logger.warning("replacing the module mounted at %s", mount_point)
            self.mount_points[mount_point] = module
            return
        name = name or getattr(module, "name", None)
        if not name:
            raise ValueError(f"Name required for {mount_point}")
        self.mount_points[mount_point][name] = module

    async def unmount(self, mount_point: str, name: str | None = None) -> None:
        if mount_point not in self.mount_points:
            raise ValueError(f"Unknown mount point: {mount_point}")
        if mount_point == "hooks":
            return
        if mount_point in _SINGLE_SLOTS:
            self.mount_points[mount_point] = None
            return
        if not name:
            raise ValueError(f"Name required to unmount from {mount_point}")
        self.mount_points[mount_point].pop(name, None)

    def get(self, mount_point: str, name: str | None = None) -> Any:
        if mount_point not in self.mount_points:
            raise ValueError(f"Unknown mount point: {mount_point}")
        value = self.mount_points[mount_point]
        if mount_point in _MULTI_SLOTS and name is not None:
            return value.get(name)
        return value

    # -- capabilities and contributions -------------------------------------------------------------
    def register_capability(self, name: str, value: Any) -> None:
        self._capabilities[name] = value

    def get_capability(self, name: str) -> Any:
        return self._capabilities.get(name)

    def register_contributor(self, channel: str, name: str, callback: Callable[[], Any]) -> None:
        self.channels.setdefault(channel, []).append({"name": name, "callback": callback})

    async def collect_contributions(self, channel: str) -> list[Any]:
        """Call every contributor in registration order; None is dropped, failures are skipped, and a
        cancellation stops collection with what was gathered."""
        gathered: list[Any] = []
        for contributor in list(self.channels.get(channel, ())):
            try:
                value = await _call_maybe_async(contributor["callback"])
            except asyncio.CancelledError:
                logger.warning("collection on %s cancelled at contributor %r", channel, contributor["name"])
                break
            except Exception:
                logger.exception("contributor %r on channel %s failed", contributor["name"], channel)
                continue
            if value is not None:
                gathered.append(value)
        return gathered

    # -- cleanup -----------------------------------------------------------------------------------
    def register_cleanup(self, cleanup_fn: Any) -> None:
        if cleanup_fn is not None:  # mount() returning None hands over no cleanup (2.0.2 keeps no entry)
            self._cleanup_fns.append(cleanup_fn)

    async def cleanup(self) -> None:
        """Run cleanups last-registered first; every one runs, and the first fatal interrupt is re-raised after."""
        fatal: BaseException | None = None
        for cleanup_fn in reversed(self._cleanup_fns):
            if not callable(cleanup_fn):
                continue
            try:
                await _call_maybe_async(cleanup_fn)
            except Exception:
                logger.exception("cleanup %r failed", cleanup_fn)
            except BaseException as error:  # KeyboardInterrupt, SystemExit, CancelledError
                logger.warning("cleanup %r interrupted by %s", cleanup_fn, type(error).__name__)
                fatal = fatal or error
        self._cleanup_fns.clear()
        if fatal is not None:
            raise fatal

    # -- turns and cancellation ----------------------------------------------------------------------
    def reset_turn(self) -> None:
        self._current_turn_injections = 0

    async def request_cancel(self, immediate: bool = False) -> None:
        changed = self.cancellation.request_immediate() if immediate else self.cancellation.request_graceful()
        if not changed:
            return
        await self.hooks.emit(
            events.CANCEL_REQUESTED,
            {
                "level": "immediate" if immediate else "graceful",
                "running_tools": sorted(self.cancellation.running_tools),
                "running_tool_names": self.cancellation.running_tool_names,
            },
        )
        await self.cancellation.trigger_callbacks()

    # -- hook results --------------------------------------------------------------------------------
    async def process_hook_result(self, result: HookResult, event: str, hook_name: str = "unknown") -> HookResult:
        """Apply a hook result's side effects: context injection, approval requests and user messages."""
        if result.action == "inject_context" and (result.context_injections or result.context_injection):
            result = await self._inject(result, event, hook_name)
        if result.action == "ask_user":
            return await self._ask_user(result, hook_name)
        if result.user_message:
            source = f"hook:{result.user_message_source or hook_name}"
            if self.display_system is not None:
                self.display_system.show_message(
                    message=result.user_message, level=result.user_message_level, source=source
                )
            else:
                logger.info("[%s] %s", source, result.user_message)
        if result.suppress_output:
            logger.debug("hook %s asked to suppress its output on %s", hook_name, event)
        return result

    async def _inject(self, result: HookResult, event: str, hook_name: str) -> HookResult:
        """Store the durable injections in the context and hand back what is left: the ephemeral ones, which
        are the orchestrator's to add to the next request only (as 2.0.2 does).

        Every item is checked against ``injection_size_limit`` before anything is written, so a bad item
        leaves neither a partial write nor a budget charge. A result with only the scalar fields is one item
        from ``hook_name``/``event``. With nothing left over the answer is ``continue``, its other fields kept.
        """
        items = result.context_injections or [ContextInjection(
            content=result.context_injection or "", role=result.context_injection_role, ephemeral=result.ephemeral,
            append_to_last_tool_result=result.append_to_last_tool_result, hook_name=hook_name, event=event)]
        cleaned = [(item, strip_control_chars(item.content)) for item in items]
        limit = self.injection_size_limit
        for item, content in cleaned:
            if limit is not None and len(content) > limit:
                raise ValueError(
                    f"Context injection exceeds {limit} characters ({len(content)} given by {item.hook_name})")
        tokens = sum(len(content) // 4 for _, content in cleaned)
        budget = self.injection_budget_per_turn
        if budget is not None and self._current_turn_injections + tokens > budget:
            logger.warning("hook %s exceeds the injection budget of %s tokens this turn", hook_name, budget)
        self._current_turn_injections += tokens
        context = self.mount_points.get("context")
        for item, content in cleaned:
            if not item.ephemeral and context is not None and hasattr(context, "add_message"):
                await context.add_message({
                    "role": item.role,
                    "content": content,
                    "metadata": {
                        "source": "hook",
                        "hook_name": item.hook_name,
                        "event": item.event,
                        "timestamp": datetime.now(UTC).isoformat(),
                        "requested_role": item.role,
                        "ephemeral": False,
                        "persisted": True,
                    },
                })
            logger.info("hook %s injected %d characters on %s (ephemeral=%s)", item.hook_name, len(content),
                        item.event, item.ephemeral)
        residual = [item for item in items if item.ephemeral]
        if not residual:
            return result.model_copy(update={
                "action": "continue", "context_injection": None, "context_injections": [], "ephemeral": False,
                "append_to_last_tool_result": False,
            })
        return result.model_copy(update={
            "context_injection": "\n\n".join(item.content for item in residual),
            "context_injection_role": residual[0].role,
            "ephemeral": True,
            "append_to_last_tool_result": any(item.append_to_last_tool_result for item in residual),
            "context_injections": residual,
        })

    async def _ask_user(self, result: HookResult, hook_name: str) -> HookResult:
        prompt = result.approval_prompt or "Allow this operation?"
        options = result.approval_options or ["Allow", "Deny"]
        shown = _truncate_prompt(prompt)
        if self.approval_system is None:
            return HookResult(action="deny", reason="No approval system available")
        try:
            choice = await self.approval_system.request_approval(
                prompt=prompt, options=options, timeout=result.approval_timeout, default=result.approval_default
            )
        except ApprovalTimeoutError:
            if result.approval_default == "allow":
                return HookResult(action="continue")
            return HookResult(action="deny", reason=f"Approval timeout - denied by default: {shown}")
        if isinstance(choice, str) and choice.strip().lower() in _GRANTING_CHOICES:
            return HookResult(action="continue")
        if not (isinstance(choice, str) and choice.strip().lower() == "deny"):
            logger.warning("approval for %s answered %r, which is not an allow choice: denied", hook_name, choice)
        return HookResult(action="deny", reason=f"User denied: {shown}")

    def to_dict(self) -> dict[str, Any]:
        """2.0.2's summary, key for key: names in mount/registration order, presence flags."""
        return {
            "tools": list(self.mount_points["tools"]),
            "providers": list(self.mount_points["providers"]),
            "has_orchestrator": self.mount_points["orchestrator"] is not None,
            "has_context": self.mount_points["context"] is not None,
            "capabilities": list(self._capabilities),
            "has_approval_provider": self.approval_system is not None,
            "has_display_service": self.display_system is not None,
        }
