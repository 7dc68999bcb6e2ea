"""AmplifierSession: builds a coordinator from a mount plan, mounts its modules and runs prompts."""

from __future__ import annotations

import copy
import logging
import uuid
from dataclasses import dataclass
from typing import Any

from . import events
from .coordinator import ModuleCoordinator
from .loader import ModuleLoader, module_failure_reason
from .models import SessionStatus
from .provider_instances import (
    BEFORE_LOAD_CAPABILITY,
    LOAD_FAILURE_CAPABILITY,
    check_instance_ids,
    installed_something_new,
    move_to_instance_name,
    restore_providers,
)
from .utils import redact_secrets

logger = logging.getLogger(__name__)


def safe_exception_str(error: BaseException) -> str:
    """``str(error)``, falling back to ``repr`` when the message cannot be produced (e.g. a cp1252 decode
    error on Windows, or a broken ``__str__``), so reporting a failed module never raises itself."""
    try:
        return str(error)
    except Exception:
        try:
            return repr(error)
        except Exception:
            return f"<{type(error).__name__} (message could not be printed)>"


@dataclass(frozen=True)
class ModuleFailure:
    """A provider, tool or hook that the plan named but that could not be loaded or mounted."""

    module_id: str
    section: str  # "providers" | "tools" | "hooks"
    error: str


def _module_spec(config: dict[str, Any], field: str) -> tuple[str | None, Any, dict[str, Any]]:
    """(id, source, config) of the orchestrator or context, in either the dict or the string form."""
    section = config.get("session") or {}
    spec = section.get(field)
    if isinstance(spec, dict):
        return spec.get("module"), spec.get("source"), spec.get("config") or {}
    top_level = config.get(field) or {}
    top_config = top_level.get("config") if isinstance(top_level, dict) else None
    return spec, section.get(f"{field}_source"), top_config or {}


class AmplifierSession:
    def __init__(
        self,
        config: dict[str, Any],
        loader: ModuleLoader | None = None,
        session_id: str | None = None,
        parent_id: str | None = None,
        approval_system: Any = None,
        display_system: Any = None,
        is_resumed: bool = False,
    ) -> None:
        if not config:
            raise ValueError("Configuration is required")
        session_section = config.get("session") or {}
        if not session_section.get("orchestrator"):
            raise ValueError("Configuration must specify session.orchestrator")
        if not session_section.get("context"):
            raise ValueError("Configuration must specify session.context")
        self._session_id = session_id or str(uuid.uuid4())
        self._parent_id = parent_id
        self._config = config
        self._is_resumed = is_resumed
        self.status = SessionStatus(session_id=self.session_id)
        self.failed_modules: list[ModuleFailure] = []
        self._initialized = False
        self._started = False
        self._coordinator = ModuleCoordinator(
            session=self, approval_system=approval_system, display_system=display_system
        )
        self._coordinator.hooks.set_default_fields(session_id=self.session_id, parent_id=self.parent_id)
        self.loader = loader or ModuleLoader(coordinator=self._coordinator)

    # -- identity (read-only, as 2.0.2's session exposes them) -----------------------------------------
    @property
    def session_id(self) -> str:
        return self._session_id

    @property
    def parent_id(self) -> str | None:
        return self._parent_id

    @property
    def config(self) -> dict[str, Any]:
        return self._config

    @property
    def is_resumed(self) -> bool:
        return self._is_resumed

    @property
    def initialized(self) -> bool:
        """True once ``initialize()`` has mounted the modules."""
        return self._initialized

    @property
    def coordinator(self) -> ModuleCoordinator:
        return self._coordinator

    @coordinator.setter
    def coordinator(self, value: ModuleCoordinator) -> None:
        # test doubles (MockCoordinator) adopt a session and make themselves its coordinator
        self._coordinator = value

    # -- lifecycle ---------------------------------------------------------------------------------
    async def initialize(self) -> None:
        """Mount orchestrator and context (fatal on failure), then providers, tools and hooks (recorded in
        ``failed_modules`` on failure), then run the modules' ``on_session_ready``."""
        if self._initialized:
            return
        ready_queue: list[tuple[str, Any]] = []
        for field, label in (("orchestrator", "orchestrator"), ("context", "context manager")):
            module_id, source, module_config = _module_spec(self.config, field)
            if not module_id or not isinstance(module_id, str):
                raise RuntimeError(
                    f"Cannot initialize without {label}: session.{field} names no module; "
                    f"write `{field}: <module id>` or `{field}: {{module: <module id>}}` under `session:`"
                )
            try:
                await self._mount_one(module_id, module_config, source, ready_queue)
            except Exception as error:
                raise RuntimeError(f"Cannot initialize without {label}: {safe_exception_str(error)}") from error
        check_instance_ids(self.config.get("providers") or [])
        for section in ("providers", "tools", "hooks"):
            for entry in self.config.get(section) or []:
                if not isinstance(entry, dict) or not entry.get("module"):
                    continue
                module_id = entry["module"]
                providers_before = dict(self.coordinator.get("providers") or {})
                entry_queue: list[tuple[str, Any]] = []
                try:
                    if section == "providers":
                        await self._mount_provider(entry, entry_queue, providers_before)
                    else:
                        await self._mount_one(module_id, entry.get("config") or {}, entry.get("source"), entry_queue)
                except Exception as error:
                    message = safe_exception_str(error)
                    logger.warning("failed to load %s module '%s': %s", section[:-1], module_id, message)
                    self.failed_modules.append(ModuleFailure(module_id, section, message))
                    if section == "providers":
                        await restore_providers(self.coordinator, providers_before)
                    await self._report_load_failure(section[:-1], module_id, error, entry.get("instance_id"))
                    policy = self.coordinator.get_capability(LOAD_FAILURE_CAPABILITY) if section == "providers" \
                        else None
                    if policy is not None:  # app policy may replace the provider, or abort by raising
                        await policy(self.coordinator, copy.deepcopy(entry), error)
                else:
                    ready_queue.extend(entry_queue)
        self._initialized = True
        for module_id, callback in ready_queue:
            try:
                await callback(self.coordinator)
            except Exception as error:
                message = safe_exception_str(error)
                logger.warning("on_session_ready of '%s' failed: %s", module_id, message)
                await self.coordinator.hooks.emit(
                    events.MODULE_ON_SESSION_READY_FAILED, {"module_id": module_id, "error": message}
                )
        if self.parent_id:
            data: dict[str, Any] = {"parent": self.parent_id, "session_id": self.session_id}
            self._add_metadata(data)
            await self.coordinator.hooks.emit(events.SESSION_FORK, data)

    async def _report_load_failure(
        self, module_type: str, module_id: str, error: BaseException, instance_id: Any = None
    ) -> None:
        """Emit ``module:load_failed`` so hooks can see a skipped module; a failing subscriber changes nothing."""
        data: dict[str, Any] = {"module_type": module_type, "module_id": module_id,
                                "error": safe_exception_str(error), "reason_code": module_failure_reason(error)}
        if instance_id:
            data["instance_id"] = instance_id
        try:
            await self.coordinator.hooks.emit(events.MODULE_LOAD_FAILED, data)
        except Exception as emit_error:
            logger.debug("module:load_failed handlers failed: %s", emit_error)

    async def _mount_provider(self, entry: dict[str, Any], ready_queue: list[tuple[str, Any]],
                              before: dict[str, Any]) -> None:
        """Mount one provider entry and move it to its ``instance_id``, if it has one.

        A provider that returns without mounting (it declines, e.g. for lack of a key) is not an error here:
        the app reports "no usable provider" with the keys to set, as it always has.
        """
        before_load = self.coordinator.get_capability(BEFORE_LOAD_CAPABILITY)
        if before_load is not None:
            await before_load(self.coordinator, copy.deepcopy(entry))
        await self._mount_one(entry["module"], entry.get("config") or {}, entry.get("source"), ready_queue)
        if not installed_something_new(before, self.coordinator.get("providers") or {}):
            return
        if entry.get("instance_id"):
            await move_to_instance_name(self.coordinator, entry["module"], entry["instance_id"], before)

    async def _mount_one(
        self, module_id: str | None, module_config: dict[str, Any], source: Any, ready_queue: list[tuple[str, Any]]
    ) -> None:
        if not module_id:
            raise ValueError("no module id given")
        mount_fn = await self.loader.load(module_id, module_config, source_hint=source, coordinator=self.coordinator)
        cleanup = await mount_fn(self.coordinator)
        if cleanup:
            self.coordinator.register_cleanup(cleanup)
        on_ready = getattr(mount_fn, "on_session_ready", None)
        if on_ready is not None:
            ready_queue.append((module_id, on_ready))

    def _add_metadata(self, data: dict[str, Any]) -> None:
        section = self.config.get("session") or {}
        if section.get("metadata"):
            data["metadata"] = section["metadata"]
        if section.get("raw"):
            data["raw"] = redact_secrets(self.config)

    async def execute(self, prompt: str) -> str:
        if not self._initialized:
            await self.initialize()
        if not self._started:
            self._started = True
            data: dict[str, Any] = {"session_id": self.session_id, "parent_id": self.parent_id}
            self._add_metadata(data)
            await self.coordinator.hooks.emit(events.SESSION_RESUME if self.is_resumed else events.SESSION_START, data)
        coordinator = self.coordinator
        orchestrator = coordinator.get("orchestrator")
        if orchestrator is None:
            raise RuntimeError("No orchestrator module mounted")
        context = coordinator.get("context")
        if context is None:
            raise RuntimeError("No context manager mounted")
        providers = coordinator.get("providers")
        if not providers:
            raise RuntimeError("No providers mounted")
        tools = coordinator.get("tools") or {}
        self.status.status = "running"
        try:
            result = await orchestrator.execute(
                prompt=prompt, context=context, providers=providers, tools=tools, hooks=coordinator.hooks,
                coordinator=coordinator,
            )
        except BaseException as error:
            if coordinator.cancellation.is_cancelled:
                self.status.status = "cancelled"
                await coordinator.hooks.emit(
                    events.CANCEL_COMPLETED,
                    {"was_immediate": coordinator.cancellation.is_immediate, "error": safe_exception_str(error)},
                )
            else:
                self.status.status = "failed"
                self.status.last_error = {"message": safe_exception_str(error)}
            raise
        if coordinator.cancellation.is_cancelled:
            self.status.status = "cancelled"
            await coordinator.hooks.emit(
                events.CANCEL_COMPLETED, {"was_immediate": coordinator.cancellation.is_immediate}
            )
        else:
            self.status.status = "completed"
        return result

    async def cleanup(self) -> None:
        """Emit ``session:end`` (once per initialized lifetime), then run the cleanups; ``initialized`` is
        False afterwards."""
        try:
            if self._initialized:
                self._initialized = False
                try:
                    await self.coordinator.hooks.emit(
                        events.SESSION_END, {"session_id": self.session_id, "status": self.status.status}
                    )
                except Exception as error:
                    logger.debug("session:end handlers failed: %s", error)
            await self.coordinator.cleanup()
        finally:
            self.loader.cleanup()

    async def __aenter__(self) -> AmplifierSession:
        await self.initialize()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.cleanup()

    @staticmethod
    def _merge_configs(base: dict[str, Any], overlay: dict[str, Any]) -> dict[str, Any]:
        merged = dict(base)
        for key, value in overlay.items():
            if isinstance(value, dict) and isinstance(merged.get(key), dict):
                merged[key] = AmplifierSession._merge_configs(merged[key], value)
            else:
                merged[key] = value
        return merged
