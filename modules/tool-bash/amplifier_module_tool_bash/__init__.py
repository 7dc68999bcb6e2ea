"""tool-bash: run shell commands for the agent, safely bounded.

Every command runs with ``bash -c`` in its own process group, stdin from /dev/null, in the session's working
directory, confined by the OS sandbox (``sandbox`` config; Landlock + no_new_privs, see sandboxing.py), without
credential-like environment variables (``pass_env`` names those it may see).
A timeout or an immediate cancellation ends the whole group and keeps the partial output. A safety policy
checks every command the line could run first (see policy.py and amplifier_support.shell), off the event
loop and within POLICY_CHECK_SECONDS.
Background commands are tracked and ended at cleanup; ``bash_output`` reads them.
"""

from __future__ import annotations

import asyncio
import logging
import os
import tempfile
from dataclasses import dataclass
from typing import IO, Any, Literal

from pydantic import Field, field_validator

from amplifier_core.events import POLICY_VIOLATION, TOOL_PRE
from amplifier_core.models import ToolResult
from amplifier_core.module_config import ModuleConfig, parse_module_config
from amplifier_support.capability_names import (
    SANDBOX_RUN_UNCONFINED_ONCE,
    SANDBOX_STATUS,
    SECRETS_VALUES,
    SESSION_WORKING_DIR,
)
from amplifier_support.credentials import passed, without_credentials
from amplifier_support.sandbox import Confinement
from amplifier_support.sandbox.settings import config_under_session_sandbox
from amplifier_support.sandbox.watch import Snapshot

from .network import NetworkGate
from .policy import CommandPolicy, PolicyDecision, validate_patterns
from .process_runner import RunOutcome, end_background, end_group, run_in_group, shell_argv, start_background
from .sandboxing import SandboxConfig, ToolSandbox, app_places

__amplifier_module_type__ = "tool"
__all__ = ["BashConfig", "BashOutputTool", "BashTool", "SandboxConfig", "mount"]

logger = logging.getLogger(__name__)
POLICY_CHECK_SECONDS = 10.0

MODULE_ID = "tool-bash"
_QUIET_ENV = {"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}


class SafetyOverrides(ModuleConfig):
    allow: list[str] = Field(default_factory=list)
    block: list[str] = Field(default_factory=list)

    @field_validator("allow", "block")
    @classmethod
    def _valid_patterns(cls, patterns: list[str]) -> list[str]:
        return validate_patterns(patterns)


class BashConfig(ModuleConfig):
    working_dir: str | None = None
    timeout: float = Field(default=120.0, gt=0)
    max_timeout: float = Field(default=600.0, gt=0)
    max_output_bytes: int = Field(default=100_000, ge=1_000)
    kill_grace_seconds: float = Field(default=2.0, ge=0)
    safety_profile: Literal["strict", "standard", "permissive", "unrestricted"] = "strict"
    allowed_commands: list[str] = Field(default_factory=list)
    denied_commands: list[str] = Field(default_factory=list)
    safety_overrides: SafetyOverrides = Field(default_factory=SafetyOverrides)
    max_concurrent: int | None = Field(default=None, ge=1)
    require_approval: bool = False
    sandbox: SandboxConfig = Field(default_factory=SandboxConfig)
    pass_env: list[str] = Field(default_factory=list)
    """Names (or globs) of credential-like environment variables commands may see anyway."""

    @field_validator("allowed_commands", "denied_commands")
    @classmethod
    def _valid_patterns(cls, patterns: list[str]) -> list[str]:
        return validate_patterns(patterns)


@dataclass
class _BackgroundJob:
    job_id: str
    command: str
    process: Any
    log: IO[bytes]  # an unnamed temp file (O_TMPFILE): the raw output, secrets included, is in no named file
    read_offset: int = 0
    confinement: Confinement | None = None  # to compare the protected places with ``places`` at each read
    places: Snapshot | None = None


def _error(message: str, output: str | None = None, **details: Any) -> ToolResult:
    return ToolResult(success=False, output=output, error={"message": message, **details})


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "did not report an exit code"
    if code < 0:
        return f"was killed by signal {-code}"
    return f"exited with code {code}"


class BashTool:
    """The ``bash`` tool. Never raises from ``execute``; failures are ``ToolResult(success=False)``."""

    name = "bash"
    description = (
        "Run a bash command in the project's working directory and return its combined stdout/stderr and "
        "exit code. stdin is closed (interactive programs get EOF). Commands are checked by a safety policy "
        "and run in an OS sandbox (by default writes only inside the project and the temp dir). "
        "Long-running servers or watchers: set run_in_background and read them with bash_output. "
        "Output over the limit keeps its beginning and end."
    )

    def __init__(self, config: BashConfig, coordinator: Any = None) -> None:
        self.config = config
        self.coordinator = coordinator
        self.policy = CommandPolicy(
            profile=config.safety_profile,
            denied=[*config.denied_commands, *config.safety_overrides.block],
            allowed=config.allowed_commands,
            exempt=config.safety_overrides.allow,
        )
        self.sandbox = ToolSandbox(config.sandbox)
        self.network = NetworkGate(config.sandbox.allowed_hosts, coordinator)
        self.jobs: dict[str, _BackgroundJob] = {}
        self._lingering_groups: set[int] = set()
        self._running: set[asyncio.Event] = set()
        self._job_counter = 0

    @property
    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The bash command line to run."},
                "timeout": {
                    "type": "number",
                    "description": f"Seconds before the command is killed (default {self.config.timeout:g}, "
                                   f"max {self.config.max_timeout:g}).",
                },
                "run_in_background": {
                    "type": "boolean",
                    "description": "Start the command and return at once; read its output with bash_output.",
                },
            },
            "required": ["command"],
        }

    def get_metadata(self) -> dict[str, Any]:
        """For approval systems: whether this tool asks before running, and the active safety profile."""
        return {"requires_approval": self.config.require_approval, "safety_profile": self.config.safety_profile,
                "sandbox": self.config.sandbox.mode}

    # -- environment ---------------------------------------------------------------------------------
    def workspace(self) -> str:
        """The session's working directory (the project): what workspace-write lets commands write."""
        base = None
        if self.coordinator is not None:
            try:
                base = self.coordinator.get_capability(SESSION_WORKING_DIR)
            except Exception:  # a coordinator without capabilities
                base = None
        return str(base) if base else os.getcwd()

    def sandbox_status(self) -> dict[str, Any]:
        return self.sandbox.status(self.workspace())

    def working_dir(self) -> str:
        base = self.workspace()
        if self.config.working_dir:
            return os.path.join(base, os.path.expanduser(self.config.working_dir))
        return base

    def _environment(self) -> dict[str, str]:
        """Ours, without credential-like variables (``amplifier_support.credentials``) and without any variable
        holding a value the app knows to be secret (capability ``secrets.values``: a provider key under any
        name), unless ``pass_env`` names it; plus the quiet pager settings."""
        known: dict[str, str] = {}
        getter = getattr(self.coordinator, "get_capability", None)
        try:
            given = getter(SECRETS_VALUES) if callable(getter) else None
        except Exception:  # a coordinator without capabilities
            given = None
        if isinstance(given, dict):
            known = {str(name): value for name, value in given.items() if isinstance(value, str) and value}
        pass_env = self.config.pass_env
        env = without_credentials(os.environ, pass_env, known)
        values = set(known.values())
        env = {name: value for name, value in env.items() if value not in values or passed(name, pass_env)}
        return {**env, **_QUIET_ENV}

    # -- execute -------------------------------------------------------------------------------------
    async def execute(self, input: dict[str, Any]) -> ToolResult:
        try:
            return await self._execute(input if isinstance(input, dict) else {})
        except asyncio.CancelledError:
            raise
        except Exception as error:  # never raise into the orchestrator
            logger.exception("bash tool failed")
            return _error(f"bash tool failed unexpectedly: {type(error).__name__}: {error}")

    async def _execute(self, input: dict[str, Any]) -> ToolResult:
        command = input.get("command")
        if not isinstance(command, str) or not command.strip():
            return _error("'command' is required: pass the bash command line to run as a non-empty string.")
        timeout = input.get("timeout")
        if timeout is None:
            timeout = self.config.timeout
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
            return _error(f"'timeout' must be a positive number of seconds, got {timeout!r}.")
        timeout = min(float(timeout), self.config.max_timeout)

        try:  # parsing is linear but not free: off the event loop, and bounded
            decision = await asyncio.wait_for(asyncio.to_thread(self.policy.check, command), POLICY_CHECK_SECONDS)
        except TimeoutError:
            decision = PolicyDecision(False, f"could not be checked within {POLICY_CHECK_SECONDS:g} s",
                                      command[:120], "check-timeout")
        if not decision.allowed:
            await self._report_violation(command, decision)
            return _error(self._refusal(decision), rule=decision.rule, command=decision.command)

        cwd = self.working_dir()
        if not os.path.isdir(cwd):
            return _error(f"The working directory {cwd} does not exist; check tool-bash working_dir.")
        if self._cancelled_now():
            return _error("Not run: the session is being cancelled.")
        confinement = self.sandbox.for_workspace(self.workspace())
        confinement.tidy()  # stand-ins an earlier, interrupted command left
        unconfined = self.sandbox.take_unconfined_grant(command)
        refusal = None if unconfined else confinement.refusal()
        if refusal is not None:
            return _error(refusal, rule="sandbox.required")
        proxy = None
        if not unconfined and confinement.proxied:
            await self.network.proxy.start()
            proxy = self.network.proxy.socket_path
        argv = shell_argv(command) if unconfined else confinement.argv(shell_argv(command), proxy)
        if input.get("run_in_background"):
            return self._start_job(command, argv, cwd, confinement)
        if self.config.max_concurrent is not None and len(self._running) >= self.config.max_concurrent:
            return _error(f"Not run: {len(self._running)} bash commands are already running (max_concurrent = "
                          f"{self.config.max_concurrent}); wait for one to finish.")
        places = confinement.snapshot()
        outcome = await self._run(argv, cwd, timeout)
        sandbox_note = None
        if unconfined:
            sandbox_note = "[ran outside the sandbox: the user approved this once]"
        else:  # also on exit 0: a script may go on after a refused write
            sandbox_note = confinement.explain(outcome.output, cwd)
        refused_hosts = self.network.command_done(still_running=self._busy())
        if refused_hosts:
            sandbox_note = refused_hosts if not sandbox_note else f"{sandbox_note} {refused_hosts}"
        return self._result(outcome, timeout, sandbox_note, confinement if not unconfined else None,
                            confinement.changed(places))

    def _refusal(self, decision: PolicyDecision) -> str:
        return (f"Blocked by the bash safety policy (profile {self.config.safety_profile}, rule {decision.rule}): "
                f"`{decision.command}` {decision.reason}. Every command of a compound line is checked. Use a "
                "narrower command; to permit it, a user can add a pattern to tool-bash safety_overrides.allow.")

    async def _report_violation(self, command: str, decision: PolicyDecision) -> None:
        hooks = getattr(self.coordinator, "hooks", None)
        if hooks is None:
            return
        try:
            await hooks.emit(POLICY_VIOLATION, {"tool_name": self.name, "command": command,
                                                  "blocked_command": decision.command, "rule": decision.rule,
                                                  "reason": decision.reason})
        except Exception:
            logger.exception("emitting policy:violation failed")

    def _cancelled_now(self) -> bool:
        cancellation = getattr(self.coordinator, "cancellation", None)
        return bool(getattr(cancellation, "is_immediate", False))

    async def on_cancel(self) -> None:
        """Cancellation callback: an immediate cancel ends every command that is running now."""
        if self._cancelled_now():
            for event in list(self._running):
                event.set()

    async def _run(self, argv: list[str], cwd: str, timeout: float) -> RunOutcome:
        cancel_event = asyncio.Event()
        self._running.add(cancel_event)
        try:
            outcome = await run_in_group(
                argv, cwd=cwd, env=self._environment(), timeout=timeout,
                max_output_bytes=self.config.max_output_bytes, kill_grace=self.config.kill_grace_seconds,
                cancel_event=cancel_event,
            )
        finally:
            self._running.discard(cancel_event)
        if outcome.lingering_pgid is not None:
            self._lingering_groups.add(outcome.lingering_pgid)
        return outcome

    def _result(self, outcome: RunOutcome, timeout: float, sandbox_note: str | None = None,
                confinement: Any = None, places_changed: str | None = None) -> ToolResult:
        text = outcome.output if outcome.output else "(no output)"
        notes = []
        if outcome.timed_out:
            notes.append(f"[timed out after {timeout:g}s: the command's process group was killed; output above is "
                         "partial]")
            message = (f"Command timed out after {timeout:g} seconds (partial output kept). Give it a larger "
                       f"timeout (max {self.config.max_timeout:g}) or use run_in_background.")
        elif outcome.cancelled:
            notes.append("[cancelled: the command's process group was killed; output above is partial]")
            message = "Command cancelled by the user (partial output kept)."
        elif outcome.exit_code != 0:
            notes.append(f"[exit code {outcome.exit_code}]")
            message = f"Command {_describe_exit(outcome.exit_code)}."
        else:
            message = ""
        details: dict[str, Any] = {}
        if sandbox_note:
            notes.append(sandbox_note if sandbox_note.startswith("[") else f"[{sandbox_note}]")
            if message and confinement is not None:  # a refusal explained: say it first
                message = f"{message} {sandbox_note}"
                details["sandbox"] = {"mode": confinement.policy.mode, "rule": confinement.rule()}
        if places_changed:
            notes.append(f"[{places_changed}]")
        if outcome.lingering_pgid is not None:
            notes.append(f"[note: processes it started are still running (process group {outcome.lingering_pgid}); "
                         "they are stopped when the session ends. Use run_in_background for servers.]")
        output = text.rstrip("\n") + ("\n" + "\n".join(notes) if notes else "")
        if message:
            return _error(message, output=output, exit_code=outcome.exit_code, timed_out=outcome.timed_out,
                          cancelled=outcome.cancelled, **details)
        return ToolResult(success=True, output=output)

    # -- background jobs -----------------------------------------------------------------------------
    def _start_job(self, command: str, argv: list[str], cwd: str, confinement: Confinement) -> ToolResult:
        self._job_counter += 1
        job_id = f"bg{self._job_counter}"
        log = tempfile.TemporaryFile(prefix="amplifier-bash-")  # closed at cleanup
        places = confinement.snapshot()
        try:
            process = start_background(argv, cwd=cwd, env=self._environment(), log=log)
        except BaseException:
            log.close()
            raise
        self.jobs[job_id] = _BackgroundJob(job_id, command, process, log, confinement=confinement, places=places)
        return ToolResult(success=True, output=(
            f"Started in the background as {job_id} (pid {process.pid}). Read its output with bash_output "
            f"(id {job_id!r}); it is stopped when the session ends."))

    async def read_job(self, job_id: str, stop: bool = False) -> ToolResult:
        job = self.jobs.get(job_id)
        if job is None:
            known = ", ".join(sorted(self.jobs)) or "none"
            return _error(f"No background command with id {job_id!r} (known: {known}).")
        if stop and job.process.poll() is None:
            await end_background(job.process, self.config.kill_grace_seconds)
        code = job.process.poll()
        status = "running" if code is None else _describe_exit(code)
        limit = self.config.max_output_bytes
        try:
            size = os.fstat(job.log.fileno()).st_size
            start = max(job.read_offset, size - limit)  # only the last `limit` bytes are returned: seek there
            data = os.pread(job.log.fileno(), max(size - start, 0), start)
        except (OSError, ValueError) as error:
            return _error(f"Could not read the output of {job_id}: {error}")
        skipped = start - job.read_offset
        if code is None:
            # while it runs, whole lines only: a line (a key) cut between two reads would land in two results,
            # where neither half can be recognised as a secret and masked
            end = data.rfind(b"\n")
            if end >= 0:
                data = data[: end + 1]
            elif len(data) < limit:
                data = b""
        job.read_offset = start + len(data)
        note = f"[... first {skipped} bytes of new output skipped ...]\n" if skipped else ""
        text = data.decode("utf-8", errors="replace")
        body = note + text if text else "(no new output)"
        if job.confinement is not None and job.places is not None:  # each change reported once, at the next read
            now = job.confinement.snapshot()
            changed = job.confinement.changed(job.places)
            job.places = now
            if changed:
                body = f"{body.rstrip()}\n[{changed.replace('this command ran', 'this job ran')}]"
        refused_hosts = self.network.command_done(still_running=self._busy())
        if refused_hosts:
            body = f"{body.rstrip()}\n{refused_hosts}"
        return ToolResult(success=True, output=f"{job_id} ({job.command!r}): {status}\n{body}")

    def _busy(self) -> bool:
        """Whether a foreground command or a background job is still running."""
        return bool(self._running) or any(job.process.poll() is None for job in self.jobs.values())

    async def cleanup(self) -> None:
        """End every background job and every group left behind by a foreground command; drop the logs."""
        for job in list(self.jobs.values()):
            try:
                await end_background(job.process, self.config.kill_grace_seconds)
            except Exception:
                logger.exception("stopping background command %s failed", job.job_id)
        for pgid in list(self._lingering_groups):
            await end_group(pgid, self.config.kill_grace_seconds)
        self._lingering_groups.clear()
        for event in list(self._running):
            event.set()
        for job in self.jobs.values():
            job.log.close()
        await self.network.proxy.close()
        await asyncio.to_thread(self.sandbox.tidy, self.workspace(), 2.0)  # no stand-in outlives the session


class BashOutputTool:
    """``bash_output``: new output and status of a command started with run_in_background."""

    name = "bash_output"
    description = ("Read the new output and the status of a command started by bash with run_in_background; "
                   "set stop to end it (its whole process group).")
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "description": "The id bash returned, e.g. 'bg1'."},
            "stop": {"type": "boolean", "description": "End the command before reading (default false)."},
        },
        "required": ["id"],
    }

    def __init__(self, bash: BashTool) -> None:
        self.bash = bash

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        try:
            job_id = input.get("id") if isinstance(input, dict) else None
            if not isinstance(job_id, str) or not job_id:
                return _error("'id' is required: pass the id bash returned for the background command (e.g. 'bg1').")
            return await self.bash.read_job(job_id, stop=bool(input.get("stop")))
        except asyncio.CancelledError:
            raise
        except Exception as error:
            logger.exception("bash_output failed")
            return _error(f"bash_output failed unexpectedly: {type(error).__name__}: {error}")


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> Any:
    """Mount ``bash`` and ``bash_output``; the returned cleanup ends background and leftover processes."""
    config = config_under_session_sandbox(config, coordinator)  # the profile's and --sandbox's
    parsed = parse_module_config(BashConfig, config, MODULE_ID)
    tool = BashTool(parsed, coordinator)
    await coordinator.mount("tools", tool, name=tool.name)
    output_tool = BashOutputTool(tool)
    await coordinator.mount("tools", output_tool, name=output_tool.name)
    cancellation = getattr(coordinator, "cancellation", None)
    if cancellation is not None and hasattr(cancellation, "on_cancel"):
        cancellation.on_cancel(tool.on_cancel)
    coordinator.register_capability(SANDBOX_STATUS, tool.sandbox_status)
    coordinator.register_capability(SANDBOX_RUN_UNCONFINED_ONCE, tool.sandbox.grant_unconfined_once)
    unregister = coordinator.hooks.register(TOOL_PRE, tool.sandbox.drop_stale_grants, priority=-20,
                                            name=f"{MODULE_ID}:sandbox-grants")
    tool.sandbox.places = app_places(coordinator)
    tool.sandbox.warn_once(tool.workspace())
    tool.sandbox.tidy(tool.workspace())  # stand-ins a session that crashed mid-command left behind

    async def cleanup() -> None:
        unregister()
        await tool.cleanup()

    return cleanup
