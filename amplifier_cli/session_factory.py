"""Turns a profile (plus settings and flags) into a live, recorded AmplifierSession.

Everything the app contributes to a session happens here, once, for `run`, `continue`, the REPL and
sub-agents alike: the module source resolver, ${VAR} expansion at mount time only, the capabilities
modules may ask for (working dir, session dir), the transcript recording, the system instruction, the
resume of a stored transcript, and turning load failures into one clear configuration error.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from amplifier_core import AmplifierSession

from .approval_rules import SAVED_RULES_CAPABILITY, saved_rules
from .env_refs import expand_for_mount
from .errors import ConfigError, Problem
from .module_preflight import check_plan_modules, no_provider_message
from .paths import AmplifierPaths
from .plan import BuiltPlan, build_plan
from .session_request import SessionRequest  # re-exported for callers
from .session_store import SessionRecord, repair_transcript
from .session_store.locations import project_key, session_store_for  # re-exported for callers
from .session_store.recording_context import RecordingContext
from .settings import Settings, load_settings
from .usage import UsageTracker

PLAN_FILE = "mount_plan.json"


class _MountLogCapture(logging.Handler):
    """Collects what modules log while mounting (e.g. a provider saying which key is missing)."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@dataclass
class LiveSession:
    session: AmplifierSession
    record: SessionRecord
    built: BuiltPlan
    paths: AmplifierPaths
    usage: UsageTracker
    resumed: bool
    warnings: list[str] = field(default_factory=list)
    instruction_files: list[Path] = field(default_factory=list)  # AGENTS.md / AMPLIFIER.md (+ includes) loaded

    @property
    def session_id(self) -> str:
        return self.session.session_id

    @property
    def coordinator(self) -> Any:
        return self.session.coordinator

    @property
    def provider_name(self) -> str | None:
        provider = self.active_provider()
        return getattr(provider, "name", None) if provider is not None else None

    @property
    def model_name(self) -> str | None:
        provider = self.active_provider()
        if provider is None:
            return None
        for attribute in ("default_model", "model"):
            value = getattr(provider, attribute, None)
            if isinstance(value, str) and value:
                return value
        try:
            return provider.get_info().defaults.get("model")
        except Exception:
            return None

    def active_provider(self) -> Any:
        """The provider the orchestrator will use: lowest priority (default 100), first mounted on ties."""
        providers = self.coordinator.get("providers") or {}
        if not providers:
            return None

        def priority(item: Any) -> float:
            value = getattr(item, "priority", None)
            if value is None:
                value = (getattr(item, "config", None) or {}).get("priority", 100)
            return value if isinstance(value, int | float) else 100

        return min(providers.values(), key=priority)

    @property
    def tool_names(self) -> list[str]:
        return sorted(self.coordinator.get("tools") or {})

    async def execute(self, prompt: str) -> str:
        """Run one turn; metadata (turn count, status) is saved whatever happens."""
        coordinator = self.coordinator
        coordinator.reset_turn()
        coordinator.cancellation.reset()
        self.usage.start_turn()
        if self.record.metadata.first_prompt is None:
            self.record.metadata.first_prompt = prompt[:200]
        self.record.save_metadata(status="active")
        status = "failed"
        try:
            response = await self.session.execute(prompt)
            status = "cancelled" if coordinator.cancellation.is_cancelled else "completed"
            return response
        except BaseException:
            status = "cancelled" if coordinator.cancellation.is_cancelled else "failed"
            raise
        finally:
            self.record.save_metadata(turn_count=self.record.metadata.turn_count + 1, status=status)

    async def close(self) -> None:
        try:
            await self.session.cleanup()
        finally:
            self.record.close()


def _failure_problems(session: AmplifierSession) -> list[Problem]:
    return [
        Problem(
            f"{failure.section[:-1]} '{failure.module_id}' could not be loaded: {failure.error}",
            key_path=failure.section,
            fix="install the module, fix its config, or remove it from the profile",
        )
        for failure in session.failed_modules
    ]


async def open_session(
    request: SessionRequest,
    *,
    paths: AmplifierPaths | None = None,
    settings: Settings | None = None,
    approval_system: Any = None,
    display_system: Any = None,
    capabilities: dict[str, Any] | None = None,
) -> LiveSession:
    """Build, mount and (when resuming) restore a session; raise ConfigError for anything the user must fix."""
    from .sources import make_resolver

    located_by_caller = paths is not None or settings is not None
    paths = paths or AmplifierPaths.discover()
    settings = settings or load_settings(paths)
    store = session_store_for(paths)

    resumed_record: SessionRecord | None = None
    if request.resume_id is not None:
        from .session_store import AmbiguousSessionIdError, SessionNotFoundError

        try:
            resumed_record = store.find(request.resume_id)
        except (SessionNotFoundError, AmbiguousSessionIdError) as error:
            raise ConfigError.single(str(error)) from None  # the message says where to look
        saved = resumed_record.metadata
        if not located_by_caller and Path(saved.cwd) != paths.cwd and Path(saved.cwd).is_dir():
            # Resume where the session ran, from any directory: its project's profiles, settings and cwd.
            paths = AmplifierPaths.discover(cwd=Path(saved.cwd))
            settings = load_settings(paths)
        request.profile = request.profile or saved.profile
        request.provider = request.provider or (saved.provider if saved.provider_selected else None)
        request.model = request.model or saved.model_selected

    built = build_plan(settings, request.profile, provider=request.provider, model=request.model, paths=paths)
    if request.plan_overlay is not None:
        request.plan_overlay(built)

    if resumed_record is not None:
        record = resumed_record
    else:
        if request.session_id and (store.root / request.session_id).exists():
            raise ConfigError.single(
                f"session id '{request.session_id}' is already used",
                fix=f"resume it with `amplifier run --resume {request.session_id}`, or pick a new id",
            )
        try:
            record = store.create(
                cwd=paths.cwd,
                project=project_key(paths),
                session_id=request.session_id,
                parent_id=request.parent_id,
                profile=built.profile_name,
                agent=request.agent,
                provider_selected=request.provider is not None,
                provider=request.provider,
                model_selected=request.model,
            )
            (record.directory / PLAN_FILE).write_text(
                json.dumps(built.plan, indent=2, default=str), encoding="utf-8"
            )
        except OSError as error:  # nothing has run yet: the place to keep the session is unusable
            raise ConfigError.single(
                f"cannot save the session: {error.strerror or error}",
                file=error.filename or store.root,
                fix=f"make {paths.data_dir} a writable directory, or set AMPLIFIER_HOME to one",
            ) from None

    session = AmplifierSession(
        built.plan,
        session_id=record.session_id,
        parent_id=record.metadata.parent_id,
        approval_system=approval_system,
        display_system=display_system,
        is_resumed=resumed_record is not None,
    )
    coordinator = session.coordinator
    resolver = make_resolver(settings)
    try:
        check_plan_modules(built.plan, resolver)
    except ConfigError:
        await _abandon(session, record, created=resumed_record is None)
        raise
    await coordinator.mount("module-source-resolver", resolver)
    session.loader.prepare_config = expand_for_mount
    coordinator.register_capability("session.working_dir", str(paths.cwd))
    coordinator.register_capability("session.dir", str(record.directory))
    coordinator.register_capability("session.transcript_path", str(record.transcript_path))
    coordinator.register_capability(SAVED_RULES_CAPABILITY, saved_rules(settings))
    from .agents import SubAgentSpawner

    spawner = SubAgentSpawner(paths, settings)  # session.spawn / session.resume / session.depth / agents.catalog
    spawner.register(coordinator, built, capabilities or {})
    for name, value in (capabilities or {}).items():
        coordinator.register_capability(name, value)

    capture = _MountLogCapture()
    root_logger = logging.getLogger()
    root_logger.addHandler(capture)  # warnings pass the default root level; no level is changed (children
    # open concurrently, and restoring a saved level would race)
    try:
        await session.initialize()
    except RuntimeError as error:
        await _abandon(session, record, created=resumed_record is None)
        raise ConfigError.single(str(error), key_path="session", fix="check the module id and its config") from None
    finally:
        root_logger.removeHandler(capture)

    problems = _failure_problems(session)
    if problems:
        await _abandon(session, record, created=resumed_record is None)
        raise ConfigError(
            f"profile '{built.profile_name}' ({built.profile.location.path}) names modules that could not be mounted",
            problems,
        )
    if not coordinator.get("providers"):
        await _abandon(session, record, created=resumed_record is None)
        # Keep what providers said beyond "no API key", which the message below already covers.
        extra = [line for line in capture.lines if "no API key" not in line]
        said = f" Providers said: {' | '.join(extra)}" if extra else ""
        raise ConfigError.single(no_provider_message(built.plan, built.profile_name) + said, key_path="providers")

    # A context that persists to the session transcript itself (context-persistent) is not wrapped:
    # wrapping would write every message twice.
    if coordinator.get_capability("context.transcript_path") != str(record.transcript_path):
        coordinator.mount_points["context"] = RecordingContext(coordinator.get("context"), record.writer)
    live = LiveSession(session, record, built, paths, UsageTracker(), resumed=resumed_record is not None)
    live.usage.attach(coordinator.hooks)
    spawner.bind(live)
    live.warnings.extend(spawner.warnings)
    context = coordinator.get("context")
    if resumed_record is not None:
        read = record.read_transcript()
        live.warnings.extend(read.warnings)
        if read.warnings:  # restoring rewrites the transcript without the bad lines: keep their bytes
            kept = _keep_corrupt_transcript(record.transcript_path)
            live.warnings.append(f"the transcript as it was (bad lines included) is kept in {kept}")
        messages, repairs = repair_transcript(read.messages)
        if repairs:
            live.warnings.append(
                f"{record.transcript_path}: {repairs} tool call(s) never got a result (the session stopped "
                "mid-turn); marked them interrupted"
            )
        await context.set_messages(messages)
        from .instructions import instruction_files_in

        live.instruction_files = instruction_files_in(messages)
    else:
        if built.instruction:
            await context.add_message({"role": "system", "content": built.instruction})
        if built.profile.project_instructions:
            from .instructions import load_project_instructions

            loaded = load_project_instructions(paths)
            live.warnings.extend(loaded.notes)
            live.instruction_files = loaded.files
            if (message := loaded.message()) is not None:
                await context.add_message(message)
    record.save_metadata(provider=live.provider_name, model=live.model_name)
    return live


def _keep_corrupt_transcript(path: Path) -> Path:
    """Copy a transcript with unreadable lines aside (never overwriting an earlier copy) before it is rewritten."""
    import shutil

    target = path.with_name(path.name + ".corrupt")
    number = 1
    while target.exists():
        number += 1
        target = path.with_name(f"{path.name}.corrupt{number}")
    shutil.copy2(path, target)
    return target


async def _abandon(session: AmplifierSession, record: SessionRecord, *, created: bool) -> None:
    """Undo a session that never ran: unmount modules and drop a directory made for it."""
    try:
        await session.cleanup()
    finally:
        record.close()
        if created and not record.read_transcript().messages:
            import shutil

            shutil.rmtree(record.directory, ignore_errors=True)


def interactive_stdin() -> bool:
    try:
        return os.isatty(0)
    except OSError:
        return False
