"""Turns a profile (plus settings and flags) into a live, recorded AmplifierSession.

Everything the app contributes to a session happens here, once, for `run`, `continue`, the REPL and
sub-agents alike: the module source resolver, ${VAR} expansion at mount time only, the capabilities
modules may ask for (working dir, session dir), the transcript recording, the system instruction, the
resume of a stored transcript, and turning load failures into one clear configuration error.

`open_session` reads as its steps: locate (a resumed session and where it ran), plan, record, mount,
check providers, then restore the stored transcript or seed a new context.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from amplifier_core import AmplifierSession
from amplifier_support.capability_names import (
    APP_USER_CONFIG_DIR,
    APPROVAL_INTERACTIVE,
    APPROVAL_RULES,
    CONTEXT_TRANSCRIPT_PATH,
    MCP_ELICIT,
    MCP_OAUTH_STORE,
    MODEL_ROLE_RESOLVER,
    ROUTING_RESOLVE_ROLE,
    SANDBOX_NETWORK_ALLOW,
    SANDBOX_NETWORK_REMEMBER,
    SECRETS_VALUES,
    SESSION_DIR,
    SESSION_PROJECT_DIR,
    SESSION_PROJECT_TRUSTED,
    SESSION_SANDBOX,
    SESSION_SANDBOX_MODE,
    SESSION_TRANSCRIPT_PATH,
    SESSION_WORKING_DIR,
)
from amplifier_support.sandbox.settings import session_sandbox

from ..config.approval_rules import network_allow, save_network_host, saved_rules
from ..config.env_refs import expand_for_mount
from ..config.paths import AmplifierPaths
from ..config.settings import Settings, load_settings
from ..config.trust import project_trust, project_trusted
from ..errors import ConfigError, Problem
from ..plans.module_preflight import check_plan_modules, no_provider_message
from ..plans.plan import BuiltPlan, build_plan
from ..plans.sandbox_mode import plan_sandbox_mode
from .live import LiveSession  # re-exported for callers
from .request import SessionRequest  # re-exported for callers
from .sdk_imports import start_sdk_import
from .secrets import session_secrets
from .session_approval import SessionApproval
from .spawner import SubAgentSpawner
from .store import SessionRecord, SessionStore, repair_transcript, since_last_compaction
from .store.locations import project_key, session_store_for  # re-exported for callers
from .store.recording_context import RecordingContext
from .tool_call_context import record_tool_calls
from .usage import UsageTracker

__all__ = ["LiveSession", "SessionRequest", "interactive_stdin", "open_session", "project_key", "session_store_for"]

PLAN_FILE = "mount_plan.json"


class _MountLogCapture(logging.Handler):
    """Collects what modules log while mounting (e.g. a provider saying which key is missing)."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@dataclass
class _Located:
    """Where a session runs: its paths and settings, and the stored record when it is being resumed."""

    paths: AmplifierPaths
    settings: Settings
    store: SessionStore
    resumed: SessionRecord | None


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
    located = _locate(request, paths, settings)
    built = _plan(request, located)
    from ..plans.skill_dirs import fetch_skill_sources

    mount_plan = fetch_skill_sources(built.plan, located.paths.git_cache_dir)  # git skill sources: cached checkouts
    start_sdk_import(built.plan)  # overlaps resolution, mounting and the first turn's set-up
    if located.resumed is not None:
        located.resumed.lock()  # one process per session (SessionInUseError names the one that has it)
    record = located.resumed or _create_record(request, located, built)
    stored = _read_stored(record) if located.resumed is not None else None
    created = located.resumed is None
    if approval_system is not None and not isinstance(approval_system, SessionApproval):  # a child has its parent's
        approval_system = SessionApproval(approval_system)
    session = AmplifierSession(
        mount_plan,
        session_id=record.session_id,
        parent_id=record.metadata.parent_id,
        approval_system=approval_system,
        display_system=display_system,
        is_resumed=not created,
    )
    if isinstance(approval_system, SessionApproval) and approval_system.coordinator is None:
        approval_system.coordinator = session.coordinator  # the accept-edits rule reads this session's mode
    try:
        spawner, mount_log = await _mount(session, record, built, located, capabilities or {}, request)
        if request.cassette is not None:  # before the check: a replay needs no key, so no mounted provider
            from .cassettes import attach_session

            attach_session(session.coordinator, request.cassette, record.secrets)
        _check_providers(session, built, mount_log)
    except ConfigError:
        await _abandon(session, record, created=created)
        raise
    try:
        tracker = _usage_tracker(request, built, session)
    except ConfigError:
        await _abandon(session, record, created=created)
        raise
    live = _attach(session, record, built, located, spawner, tracker)
    if created:
        await _seed_context(live)
    else:
        assert stored is not None
        await _restore_context(live, stored)
    record.save_metadata(provider=live.provider_name, model=live.model_name)
    return live


def _locate(request: SessionRequest, paths: AmplifierPaths | None, settings: Settings | None) -> _Located:
    """Find the stored session a resume names, and run from its project; fill the request from its metadata."""
    located_by_caller = paths is not None or settings is not None
    paths = paths or AmplifierPaths.discover()
    from ..config.key_store import load_key_store

    load_key_store(paths)  # keys saved by `provider use` / `init`, for names the environment does not set
    settings = settings or load_settings(paths)
    store = session_store_for(paths)
    if request.resume_id is None:
        return _Located(paths, settings, store, None)

    from .store import AmbiguousSessionIdError, SessionNotFoundError

    try:
        resumed = store.find(request.resume_id)
    except (SessionNotFoundError, AmbiguousSessionIdError) as error:
        raise ConfigError.single(str(error)) from None  # the message says where to look
    saved = resumed.metadata
    if not located_by_caller and Path(saved.cwd) != paths.cwd and Path(saved.cwd).is_dir():
        # Resume where the session ran, from any directory: its project's profiles, settings and cwd.
        paths = AmplifierPaths.discover(cwd=Path(saved.cwd))
        settings = load_settings(paths)
    request.profile = request.profile or saved.profile
    request.provider = request.provider or (saved.provider if saved.provider_selected else None)
    request.model = request.model or saved.model_selected
    return _Located(paths, settings, store, resumed)


def _plan(request: SessionRequest, located: _Located) -> BuiltPlan:
    """The mount plan: profile + settings + flags, then the caller's overlay (a sub-agent's partial plan)."""
    built = build_plan(located.settings, request.profile, provider=request.provider, model=request.model,
                       max_tokens=request.max_tokens,
                       paths=located.paths)
    if request.plan_overlay is not None:
        request.plan_overlay(built)
    if request.parent_id is None:  # a sub-agent's spending counts against its parent's budget, not its own
        from .budget_setup import apply_max_turns, session_budget

        request.budget = session_budget(built, request.budget)
        apply_max_turns(built.plan, request.budget.max_turns)
    return built


def _create_record(request: SessionRequest, located: _Located, built: BuiltPlan) -> SessionRecord:
    """A new session directory with metadata.json and the plan it runs, before anything runs."""
    store, paths = located.store, located.paths
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
        record.secrets = session_secrets(built.plan)
        record.write_private_file(PLAN_FILE, json.dumps(built.plan, indent=2, default=str))
    except OSError as error:  # nothing has run yet: the place to keep the session is unusable
        raise ConfigError.single(
            f"cannot save the session: {error.strerror or error}",
            file=error.filename or store.root,
            fix=f"make {paths.data_dir} a writable directory, or set AMPLIFIER_HOME to one",
        ) from None
    return record


async def _mount(session: AmplifierSession, record: SessionRecord, built: BuiltPlan, located: _Located,
                 capabilities: dict[str, Any], request: SessionRequest) -> tuple[SubAgentSpawner, list[str]]:
    """Give the session what the app contributes (resolver, ${VAR} expansion, capabilities), then mount every
    module; return the spawner and what modules logged while mounting."""
    from ..plans.sources import make_resolver

    coordinator = session.coordinator
    resolver = make_resolver(located.settings)
    check_plan_modules(built.plan, resolver)
    await coordinator.mount("module-source-resolver", resolver)
    session.loader.prepare_config = expand_for_mount
    coordinator.register_capability(SESSION_WORKING_DIR, str(located.paths.cwd))
    # the project root (where .amplifier/ is; the cwd when there is none) and the user config dir: hook-shell
    # runs hooks in the project and reads <config dir>/hooks/hooks.json; tool-mcp reads the mcp.json files there
    coordinator.register_capability(SESSION_PROJECT_DIR, str(located.paths.project_root or located.paths.cwd))
    coordinator.register_capability(APP_USER_CONFIG_DIR, str(located.paths.config_dir))
    # whether the project's own MCP servers, hooks and other code-running files may take effect (config/trust.py);
    # modules that read project files (tool-mcp, hook-shell) read them only when this is True
    coordinator.register_capability(SESSION_PROJECT_TRUSTED, project_trusted(located.paths))
    # whether a person answers approval prompts: what must never pass unasked is refused when nobody can answer
    coordinator.register_capability(APPROVAL_INTERACTIVE,
                                    bool(getattr(session.coordinator.approval_system, "asks_a_person", False)))
    from ..config.mcp_oauth_store import McpOAuthStore  # MCP servers' OAuth tokens, in the 0600 key store

    coordinator.register_capability(MCP_OAUTH_STORE, McpOAuthStore(located.paths))
    ask_form = getattr(session.coordinator.approval_system, "ask_form", None)
    if callable(ask_form) and getattr(session.coordinator.approval_system, "asks_a_person", False):
        coordinator.register_capability(MCP_ELICIT, ask_form)  # the chat asks MCP elicitation forms; else declined
    coordinator.register_capability(SESSION_DIR, str(record.directory))
    coordinator.register_capability(SESSION_TRANSCRIPT_PATH, str(record.transcript_path))
    coordinator.register_capability(APPROVAL_RULES, saved_rules(located.settings))
    # the hosts sandboxed commands reach through tool-bash's proxy without asking, and where "Always allow" goes
    coordinator.register_capability(SANDBOX_NETWORK_ALLOW, network_allow(located.settings))
    coordinator.register_capability(SANDBOX_NETWORK_REMEMBER, lambda host: save_network_host(located.paths, host))
    # the profile's `sandbox:` and `--sandbox`, which the confined modules (tool-bash, hook-shell) apply to their own
    # keys at mount; a sub-agent's request carries its parent's --sandbox (spawner.py)
    sandbox = session_sandbox(built.profile.sandbox, request.sandbox)
    coordinator.register_capability(SESSION_SANDBOX, sandbox)
    from .native_modules import process_wrapper  # native (amplifier.toml transport = "rust") modules run confined

    session.loader.wrap_process = process_wrapper(sandbox, str(located.paths.cwd))
    coordinator.register_capability(SESSION_SANDBOX_MODE, plan_sandbox_mode(built.plan, sandbox))
    from .model_roles import MatrixRoleResolver, role_resolver

    resolve_role = role_resolver(located.settings, built.plan, lambda: coordinator.get("providers") or {})
    coordinator.register_capability(ROUTING_RESOLVE_ROLE, resolve_role)
    coordinator.register_capability(MODEL_ROLE_RESOLVER, MatrixRoleResolver(resolve_role))
    if record.secrets is None:  # a resumed record: the plan was rebuilt, so are its secrets
        record.secrets = session_secrets(built.plan)
    coordinator.register_capability(SECRETS_VALUES, dict(record.secrets.items()))
    # session.spawn / session.resume / session.depth / agents.catalog
    spawner = SubAgentSpawner(located.paths, located.settings, _opener_with(request.cassette))
    spawner.register(coordinator, built, capabilities)
    from .plan_mode import register_mode_gate  # plan mode refuses writes whatever the profile mounts

    register_mode_gate(coordinator, request.mode)
    record_tool_calls(coordinator)  # which call an approval question is about (tool_call_context.py)
    for name, value in capabilities.items():
        coordinator.register_capability(name, value)

    capture = _MountLogCapture()
    root_logger = logging.getLogger()
    root_logger.addHandler(capture)  # warnings pass the default root level; no level is changed (children
    # open concurrently, and restoring a saved level would race)
    try:
        await session.initialize()
    except RuntimeError as error:
        raise ConfigError.single(str(error), key_path="session", fix="check the module id and its config") from None
    finally:
        root_logger.removeHandler(capture)

    problems = _failure_problems(session)
    if problems:
        raise ConfigError(
            f"profile '{built.profile_name}' ({built.profile.location.path}) names modules that could not be mounted",
            problems,
        )
    return spawner, capture.lines


def _opener_with(cassette: Any) -> Any:
    """``open_session`` for sub-agents: they record to / replay from their parent's cassette."""
    if cassette is None:
        return open_session

    async def open_child(request: SessionRequest, **options: Any) -> LiveSession:
        request.cassette = cassette
        return await open_session(request, **options)

    return open_child


def _failure_problems(session: AmplifierSession) -> list[Problem]:
    return [
        Problem(
            f"{failure.section[:-1]} '{failure.module_id}' could not be loaded: {failure.error}",
            key_path=failure.section,
            fix="install the module, fix its config, or remove it from the profile",
        )
        for failure in session.failed_modules
    ]


def _check_providers(session: AmplifierSession, built: BuiltPlan, mount_log: list[str]) -> None:
    """A session without a mounted provider cannot answer: say which keys or settings are missing."""
    if session.coordinator.get("providers"):
        return
    # Keep what providers said beyond "no API key", which the message below already covers.
    extra = [line for line in mount_log if "no API key" not in line]
    said = f" Providers said: {' | '.join(extra)}" if extra else ""
    raise ConfigError.single(no_provider_message(built.plan, built.profile_name) + said, key_path="providers")


def _usage_tracker(request: SessionRequest, built: BuiltPlan, session: AmplifierSession) -> UsageTracker:
    """Prices from the profile; the budget only for a top-level session (see `_plan`)."""
    from .budget import Budget
    from .budget_setup import usage_tracker

    budget = request.budget if request.parent_id is None and request.budget is not None else Budget()
    model = LiveSession(session, None, built, None, None, False).model_name  # type: ignore[arg-type]
    return usage_tracker(built, budget, model)


def _attach(session: AmplifierSession, record: SessionRecord, built: BuiltPlan, located: _Located,
            spawner: SubAgentSpawner, tracker: UsageTracker) -> LiveSession:
    """Record every message to the transcript, track usage, and hand the spawner its live parent."""
    coordinator = session.coordinator
    # A context that persists to the session transcript itself (context-persistent) is not wrapped:
    # wrapping would write every message twice.
    if coordinator.get_capability(CONTEXT_TRANSCRIPT_PATH) != str(record.transcript_path):
        coordinator.mount_points["context"] = RecordingContext(coordinator.get("context"), record.writer)
    live = LiveSession(session, record, built, located.paths, tracker, resumed=located.resumed is not None)
    if project_trust(located.paths).needs_trust and record.metadata.parent_id is None:  # said once, by the top session
        live.warnings.append(project_trust(located.paths).ignored_line())
    live.usage.attach(coordinator.hooks)
    live.turn_facts.attach(coordinator.hooks)
    live.usage.on_budget_reached = lambda stop: coordinator.cancellation.request_graceful()
    if record.metadata.parent_id is None:  # a sub-agent's changes are inside its parent's `task` call
        from .checkpoints import INDEX_FILE, Checkpointer, ShadowRepo

        repo = ShadowRepo(located.paths.data_dir, located.paths.files_root, record.directory / INDEX_FILE)
        checkpointer = Checkpointer(repo, record)
        checkpointer.warn = lambda text: sys.stderr.write(f"warning: {text}\n")
        checkpointer.attach(coordinator.hooks)
    spawner.bind(live)
    live.warnings.extend(spawner.warnings)
    sandbox = live.sandbox_status()
    if sandbox and sandbox.get("warning"):  # off, or less than asked: never a silent downgrade
        live.warnings.append(str(sandbox["warning"]))
    return live


@dataclass
class _Stored:
    """A resumed session's transcript, read (and repaired on disk) before any module is mounted."""

    messages: list[dict[str, Any]]
    warnings: list[str]


def _read_stored(record: SessionRecord) -> _Stored:
    """Read the stored transcript and repair what a crash left half-written, in the file itself, before mounting:
    a context manager that keeps the session's transcript itself (context-persistent) reads it at mount and must
    find it whole and repaired, the conversation before a /compact included.

    A long transcript is hundreds of thousands of objects that live as long as the session: the cyclic garbage
    collector is paused while they are built (it would scan the growing heap again and again) and they are then
    moved out of its reach (``gc.freeze``, once the context holds them), so no later collection walks them again.
    They hold no reference cycles; reference counting still frees them."""
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        read = record.read_transcript(read_only=True)  # what the context stores: built read-only, never copied
        warnings = list(read.warnings)
        if read.warnings:  # the repaired file leaves the bad lines out: keep their bytes
            kept = _keep_corrupt_transcript(record.transcript_path)
            warnings.append(f"the transcript as it was (bad lines included) is kept in {kept}")
        messages, repairs = repair_transcript(read.messages)
        if repairs:
            warnings.append(f"{record.transcript_path}: {repairs} tool call(s) never got a result (the session "
                            "stopped mid-turn); marked them interrupted")
        if repairs or read.warnings:  # the whole file, bad lines out and calls answered
            record.writer.rewrite(messages)
        return _Stored(messages, warnings)
    finally:
        if enabled:
            gc.enable()


async def _restore_context(live: LiveSession, stored: _Stored) -> None:
    """Put the stored conversation back into the context: from the last /compact on (the lines before it stay in
    the file, not in the context)."""
    import gc

    live.warnings.extend(stored.warnings)
    context = live.coordinator.get("context")
    in_force = since_last_compaction(stored.messages)
    if isinstance(context, RecordingContext):
        await context.restore(in_force)  # the transcript already holds them: no rewrite of a long file
    else:
        await context.set_messages(in_force)  # context-persistent: equal to what it read itself, a no-op
    from .instructions import instruction_files_in

    live.instruction_files = instruction_files_in(stored.messages)
    gc.freeze()


async def _seed_context(live: LiveSession) -> None:
    """A new session starts with the profile's instruction and the project's AGENTS.md / AMPLIFIER.md."""
    context = live.coordinator.get("context")
    built = live.built
    if built.instruction:
        await context.add_message({"role": "system", "content": built.instruction})
    if built.profile.project_instructions:
        from .instructions import load_project_instructions

        loaded = load_project_instructions(live.paths)
        live.warnings.extend(loaded.notes)
        live.instruction_files = loaded.files
        if (message := loaded.message()) is not None:
            await context.add_message(message)


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
