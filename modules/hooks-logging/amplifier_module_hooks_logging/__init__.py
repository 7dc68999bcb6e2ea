"""hooks-logging: one ``events.jsonl`` per session, one JSON object per line per event.

Where: config ``log_dir`` when set, else the session directory the app registers as capability
``session.dir`` (looked up at mount and again in ``on_session_ready``); with neither, nothing is written and a
warning says so. Records are redacted: key-based (``amplifier_core.utils.redact_secrets``), known secret
values masked by name (``[REDACTED:NAME]``: secret-looking environment variables and capability
``secrets.values``; ``amplifier_support.secret_values``) and, when hooks-redaction is mounted, with its
``redaction.redact`` capability; the handler also runs after hooks-redaction's, so it sees the
already-redacted event data. Stream deltas (``include_deltas``) are held until their block ends and masked
together, so a secret the stream cut into pieces is masked as well. The file is created private (0600): it
holds the whole conversation.
"""

from __future__ import annotations

import json
import logging
import os
import weakref
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from pydantic import model_validator

from amplifier_core import events
from amplifier_core.models import HookResult
from amplifier_core.module_config import ModuleConfig, parse_module_config
from amplifier_core.utils import redact_secrets
from amplifier_support.capability_names import (
    OBSERVABILITY_EVENTS,
    REDACTION_REDACT,
    SECRETS_VALUES,
    SESSION_DIR,
    SESSION_WORKING_DIR,
)
from amplifier_support.secret_values import SecretValues

from .json_safe import json_safe

__amplifier_module_type__ = "hook"
__all__ = ["EventLog", "LoggingConfig", "build_record", "mount", "on_session_ready"]

logger = logging.getLogger(__name__)

MODULE_ID = "hooks-logging"
LOG_FILE = "events.jsonl"
DELTA_EVENTS = frozenset({events.CONTENT_BLOCK_DELTA, events.THINKING_DELTA, events.LLM_STREAM_BLOCK_DELTA})
MAX_PENDING = 10_000  # records kept while the log directory is not known yet


# Keys of upstream's hooks-logging. ``exclude_events: []`` (log everything) is read as ``include_deltas: true``;
# the others have no use here (the file goes where the app's session directory is, events declared by modules
# are always discovered). Accepted with a warning so upstream profiles keep their log instead of failing the mount.
UPSTREAM_KEYS = ("session_log_template", "auto_discover", "strip_raw", "exclude_events")


class LoggingConfig(ModuleConfig):
    log_dir: str | None = None
    include_deltas: bool = False
    additional_events: list[str] = []
    priority: int = -900

    @model_validator(mode="before")
    @classmethod
    def _accept_upstream_keys(cls, raw: Any) -> Any:
        if not isinstance(raw, dict) or not any(key in raw for key in UPSTREAM_KEYS):
            return raw
        present = [key for key in UPSTREAM_KEYS if key in raw]
        logger.warning("%s config: ignoring upstream key(s) %s (the log goes to the session directory or "
                       "`log_dir`; use `include_deltas` to log stream deltas); remove them from the mount plan",
                       MODULE_ID, ", ".join(present))
        kept = {key: value for key, value in raw.items() if key not in present}
        if raw.get("exclude_events") == [] and "include_deltas" not in kept:
            kept["include_deltas"] = True
        return kept


def declared_event_names(values: list[Any]) -> list[str]:
    """Event names from the ``observability.events`` capability/contributions: names or lists of names."""
    names: list[str] = []
    for value in values:
        if isinstance(value, str):
            names.append(value)
        elif isinstance(value, list | tuple | set | frozenset):
            names.extend(item for item in value if isinstance(item, str))
    return names


def build_record(event: str, data: Any, session_id: str | None, parent_id: str | None) -> dict[str, Any]:
    """The logged object: the registry's stamped timestamp and ids promoted, the rest under ``data``."""
    payload = dict(data) if isinstance(data, dict) else {"value": data}
    timestamp = payload.pop("timestamp", None) or datetime.now(UTC).isoformat()
    record_session = payload.pop("session_id", None) or session_id
    record_parent = payload.pop("parent_id", None) or parent_id
    return {
        "timestamp": json_safe(timestamp),
        "event": event,
        "session_id": json_safe(record_session),
        "parent_id": json_safe(record_parent),
        "data": redact_secrets(json_safe(payload)),
    }


class EventLog:
    """Registers the logging handler and owns the open ``events.jsonl``."""

    def __init__(self, coordinator: Any, config: LoggingConfig) -> None:
        self.coordinator = coordinator
        self.config = config
        self.path: Path | None = None
        self._file: IO[str] | None = None
        self._pending: list[str] = []
        self._held: list[tuple[str, dict[str, Any]]] = []  # stream deltas not yet logged (``flush_held``)
        self._disabled = False
        self._registered: set[str] = set()
        self._unregister: list[Callable[[], None]] = []
        given = self._capability(SECRETS_VALUES)
        self.secrets = SecretValues.from_environment(given if isinstance(given, dict) else None)

    # -- where -------------------------------------------------------------------------------------------
    def _capability(self, name: str) -> Any:
        getter = getattr(self.coordinator, "get_capability", None)
        return getter(name) if callable(getter) else None

    def resolve_directory(self) -> Path | None:
        session_id = getattr(self.coordinator, "session_id", None) or "session"
        if self.config.log_dir:
            directory = Path(self.config.log_dir.replace("{session_id}", session_id)).expanduser()
            if not directory.is_absolute():
                directory = Path(self._capability(SESSION_WORKING_DIR) or os.getcwd()) / directory
            return directory
        session_dir = self._capability(SESSION_DIR)
        return Path(session_dir) if session_dir else None

    def try_open(self) -> bool:
        """Open the log when its directory is known; writes records held back until now."""
        if self._file is not None:
            return True
        if self._disabled:
            return False
        directory = self.resolve_directory()
        if directory is None:
            return False
        path = directory / LOG_FILE
        try:
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)  # a new log directory is private
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            self._file = open(fd, "a", encoding="utf-8")  # held open for the session
        except OSError as error:
            self._disable(f"cannot open {path}: {error.strerror or error}")
            return False
        self.path = path
        pending, self._pending = self._pending, []
        for line in pending:
            self._write(line)
        return self._file is not None

    def give_up_without_directory(self) -> None:
        if self._file is None and not self._disabled and not self.try_open():
            self._disable("no log directory: set `log_dir` in the hooks-logging config, or run it in an app "
                          f"that registers the '{SESSION_DIR}' capability")

    def _disable(self, reason: str) -> None:
        logger.warning("hooks-logging: %s; events are not logged for this session", reason)
        self._disabled = True
        self._pending.clear()

    # -- writing -----------------------------------------------------------------------------------------
    def _write(self, line: str) -> None:
        if self._file is None:
            return
        try:
            self._file.write(line)
            self._file.flush()
        except UnicodeEncodeError as error:  # one odd record (encoding fails before anything is written)
            logger.warning("hooks-logging: one record could not be written to %s (%s); it is skipped",
                           self.path, error)
        except (OSError, ValueError) as error:
            self.close()
            self._disable(f"writing {self.path} failed: {error}")

    def _encode(self, event: str, data: Any) -> str:
        record = build_record(event, data, getattr(self.coordinator, "session_id", None),
                              getattr(self.coordinator, "parent_id", None))
        record = self.secrets.mask(record)
        redact = self._capability(REDACTION_REDACT)
        if callable(redact):
            try:
                record = redact(record)
            except Exception as error:
                logger.warning("hooks-logging: the %s capability failed (%s); logging key-redacted data only",
                               REDACTION_REDACT, error)
        return json.dumps(record, ensure_ascii=False, default=str) + "\n"

    async def handle(self, event: str, data: dict[str, Any]) -> HookResult:
        if self._disabled:
            return HookResult()
        if event in DELTA_EVENTS:
            # held until the next other event (the block's end): a secret the stream cut across deltas is only
            # visible, and maskable, in the deltas together
            self._held.append((event, dict(data) if isinstance(data, dict) else {"value": data}))
            return HookResult()
        self.flush_held()
        self._log(event, data)
        return HookResult()

    def flush_held(self) -> None:
        """Log the held deltas, in order, each stream's pieces masked together (``SecretValues.mask_pieces``)."""
        held, self._held = self._held, []
        streams: dict[tuple[str, Any], list[dict[str, Any]]] = {}
        for event, data in held:
            streams.setdefault((event, data.get("block_index")), []).append(data)
        for datas in streams.values():
            pieces = [data["delta"] if isinstance(data.get("delta"), str) else "" for data in datas]
            for data, piece, masked in zip(datas, pieces, self.secrets.mask_pieces(pieces), strict=True):
                if masked is not piece:
                    data["delta"] = masked
        for event, data in held:
            self._log(event, data)

    def _log(self, event: str, data: Any) -> None:
        if self._disabled:
            return
        try:
            line = self._encode(event, data)
        except Exception as error:  # logging must never break the session
            logger.warning("hooks-logging: could not serialize %s: %s", event, error)
            return
        if self._file is not None or self.try_open():
            self._write(line)
        elif len(self._pending) < MAX_PENDING:
            self._pending.append(line)
        else:
            self._disable(f"no log directory after {MAX_PENDING} events")

    # -- registration ------------------------------------------------------------------------------------
    def register(self, names: list[str]) -> None:
        for event in names:
            if event in self._registered or (event in DELTA_EVENTS and not self.config.include_deltas):
                continue
            self._registered.add(event)
            self._unregister.append(self.coordinator.hooks.register(
                event, self.handle, priority=self.config.priority, name=MODULE_ID))

    async def register_declared(self) -> None:
        declared: list[Any] = []
        capability = self._capability(OBSERVABILITY_EVENTS)
        if capability:
            declared.append(capability)
        collect = getattr(self.coordinator, "collect_contributions", None)
        if callable(collect):
            declared.extend(await collect(OBSERVABILITY_EVENTS))
        self.register(declared_event_names(declared))

    def close(self) -> None:
        if self._file is not None:
            try:
                self._file.close()
            except OSError as error:
                logger.warning("hooks-logging: closing %s failed: %s", self.path, error)
            self._file = None

    def cleanup(self) -> None:
        self.flush_held()
        for unregister in self._unregister:
            unregister()
        self._unregister.clear()
        self._registered.clear()
        self.close()


_logs_by_coordinator: weakref.WeakKeyDictionary[Any, EventLog] = weakref.WeakKeyDictionary()


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> Callable[[], None]:
    """Register the logger on every kernel event (and declared module events); returns the cleanup."""
    parsed = parse_module_config(LoggingConfig, config, MODULE_ID)
    log = EventLog(coordinator, parsed)
    log.register([*events.ALL_EVENTS, *parsed.additional_events])
    await log.register_declared()
    log.try_open()
    _logs_by_coordinator[coordinator] = log
    return log.cleanup


async def on_session_ready(coordinator: Any) -> None:
    """Every module is mounted now: subscribe to events they declared and settle where the log goes."""
    log = _logs_by_coordinator.get(coordinator)
    if log is None:
        return
    await log.register_declared()
    log.give_up_without_directory()
