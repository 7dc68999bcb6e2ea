"""One-shot runs (`amplifier run "prompt"`, `amplifier continue "prompt"`): open or resume a session, run one
turn, print the result in the chosen format, and map the outcome to an exit code."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal, TextIO

from amplifier_core import LLMError
from amplifier_core.cassette import ReplayMismatch
from amplifier_support.capability_names import REDACTION_REDACT, UI_OUTPUT, UI_RENDERS_ANSWER

from ..config.trust import project_trust
from ..errors import AmplifierError
from ..sessions.factory import LiveSession, SessionRequest, interactive_stdin, open_session
from ..sessions.interrupts import TurnInterrupted, run_interruptible
from .approval_systems import ApprovalMode, approval_for
from .display_system import StderrDisplay
from .output_formats import StreamJsonWriter, write_json_line
from .working_pause import PausingApproval, PausingDisplay, bind_pausing_systems, pausing, stop_indicator

OutputFormat = Literal["text", "json", "stream-json"]
EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_BUDGET, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


@dataclass
class OneShotOptions:
    prompt: str
    output_format: OutputFormat = "text"
    approval: ApprovalMode = "ask"
    max_turns: int | None = None
    images: list[dict[str, Any]] = field(default_factory=list)  # ImageBlocks sent with the prompt (--image)


def ui_output_for(output_format: OutputFormat) -> dict[str, Any]:
    """What the display hooks (hooks-streaming-ui) should do, given where machine output goes.

    Text on a terminal: the UI streams the answer to stdout. Otherwise the UI writes progress to stderr and
    leaves the answer to the app, which prints only the final answer (text) or JSON on stdout."""
    stdout_is_terminal = sys.stdout.isatty()
    # the working indicator: text runs only, on stderr only, and only when stderr is a terminal
    working = sys.stderr if output_format == "text" and sys.stderr.isatty() else None
    if output_format == "text" and stdout_is_terminal:
        return {"stream": sys.stdout, "show_answer_text": True, "mode": "oneshot", "color": None,
                "working_stream": working}
    return {"stream": sys.stderr, "show_answer_text": False, "mode": "oneshot", "color": None,
            "working_stream": working}


def _say_on_stderr(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def _max_turns_overlay(max_turns: int | None):
    if max_turns is None:
        return None

    def overlay(built: Any) -> None:
        session = built.plan.setdefault("session", {})
        orchestrator = session.get("orchestrator")
        if isinstance(orchestrator, str):
            orchestrator = {"module": orchestrator}
        orchestrator = dict(orchestrator or {})
        orchestrator["config"] = {**(orchestrator.get("config") or {}), "max_iterations": max_turns}
        session["orchestrator"] = orchestrator

    return overlay


def _result_record(
    live: LiveSession | None, status: str, response: str | None, started: float, error: str | None = None
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "type": "result",
        "session_id": live.session_id if live else None,
        "status": status,
        "response": response,
        "usage": live.usage.turn.as_dict() if live else None,
        "provider": live.provider_name if live else None,
        "model": live.model_name if live else None,
        "duration_ms": int((time.monotonic() - started) * 1000),
        "num_turns": live.usage.turn.requests if live else 0,
    }
    cost = live.usage.turn.known_cost() if live else None
    record["cost_usd"] = float(cost) if cost is not None else None  # a number; null when a price is unknown
    if live is not None and live.usage.turn.unpriced_models:
        record["unpriced_models"] = list(live.usage.turn.unpriced_models)
    if live is not None:
        record["trust"] = project_trust(live.paths).summary()
    if error is not None:
        record["error"] = error
    return record


_SECRET_ENV_SUFFIXES = ("_KEY", "_TOKEN", "_SECRET", "_PASSWORD")


def _redacted(live: LiveSession, text: str) -> str:
    """``text`` without secrets, for errors printed to the terminal: servers sometimes echo the key back.

    Uses hooks-redaction's redactor when the profile mounts it, and always masks credential env values."""
    redact = live.coordinator.get_capability(REDACTION_REDACT)
    if callable(redact):
        try:
            text = str(redact(text))
        except Exception:  # a broken redactor must not hide the error itself
            pass
    for name, value in os.environ.items():
        if len(value) >= 8 and name.upper().endswith(_SECRET_ENV_SUFFIXES) and value in text:
            text = text.replace(value, f"[{name} redacted]")
    return text


@contextmanager
def _stdout_for_records(fmt: OutputFormat) -> Iterator[TextIO]:
    """The stream the result goes to. Machine formats own stdout: while they run, anything else written there
    (a module's print, a UI configured for stdout, a child process on fd 1) goes to stderr instead."""
    if fmt == "text":
        yield sys.stdout
        return
    original = sys.stdout
    original.flush()
    saved_fd: int | None = None
    records: TextIO = original
    try:
        descriptor = original.fileno()
    except (AttributeError, OSError, ValueError):
        descriptor = None  # not a real file (e.g. captured in-process): redirecting sys.stdout is enough
    if descriptor == 1:
        saved_fd = os.dup(1)
        records = open(saved_fd, "w", encoding="utf-8", closefd=False)
        os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        yield records
    finally:
        sys.stdout = original
        if saved_fd is not None:
            records.close()
            os.dup2(saved_fd, 1)
            os.close(saved_fd)


def command_prompt(prompt: str) -> str:
    """`amplifier run "/name args"`: the prompt of the chat command `/name` (config/slash_commands.py), filled in.
    A line shaped like a command that names none is a usage error listing the commands there are."""
    from ..config.paths import AmplifierPaths
    from ..config.slash_commands import load_commands, split_command_line, unknown_command_fix
    from ..errors import UsageError

    parts = split_command_line(prompt) if prompt.startswith("/") else None
    if parts is None:
        return prompt
    name, arguments = parts
    paths = AmplifierPaths.discover()
    commands = load_commands(paths)
    if name not in commands:
        raise UsageError.single(f"/{name} is not a command here", fix=unknown_command_fix(paths, commands))
    sys.stderr.write(f"(command /{name} from {commands[name].path})\n")
    return commands[name].expand(arguments)


async def run_one_shot(request: SessionRequest, options: OneShotOptions) -> int:
    with _stdout_for_records(options.output_format) as out:
        return await _run_one_shot(request, options, out)


async def _run_one_shot(request: SessionRequest, options: OneShotOptions, out: TextIO) -> int:
    started = time.monotonic()
    fmt = options.output_format
    options.prompt = command_prompt(options.prompt)
    request.plan_overlay = _max_turns_overlay(options.max_turns)
    approval = approval_for(options.approval, interactive=interactive_stdin() and sys.stderr.isatty())
    live: LiveSession | None = None
    try:
        live = await open_session(
            request,
            approval_system=PausingApproval(approval),
            display_system=PausingDisplay(StderrDisplay()),
            capabilities={UI_OUTPUT: ui_output_for(fmt)},
        )
    except AmplifierError as error:
        if fmt != "text":
            write_json_line(out, _result_record(None, "error", None, started, error.render()))
        raise
    try:
        for warning in live.warnings:
            sys.stderr.write(f"warning: {warning}\n")
        if fmt == "text":
            provider = live.provider_name or "?"
            sys.stderr.write(
                f"[{live.built.profile_name}] {provider} · {live.model_name or 'default model'}"
                f" · session {live.session_id[:8]}\n"
            )
            sys.stderr.flush()
        elif fmt == "stream-json":
            writer = StreamJsonWriter(out)
            writer.write(
                {
                    "type": "init",
                    "session_id": live.session_id,
                    "profile": live.built.profile_name,
                    "provider": live.provider_name,
                    "model": live.model_name,
                    "tools": live.tool_names,
                    "resumed": live.resumed,
                    "trust": project_trust(live.paths).summary(),
                }
            )
            writer.attach(live.coordinator.hooks)
        bind_pausing_systems(live.coordinator)
        try:
            try:
                response = await run_interruptible(live.coordinator,
                                                   lambda: live.execute(options.prompt, options.images),
                                                   notify=pausing(live.coordinator, _say_on_stderr))
            finally:
                stop_indicator(live.coordinator)  # also when the turn failed or was interrupted
        except TurnInterrupted:
            sys.stderr.write(f"Interrupted. Resume with: amplifier run --resume {live.session_id[:8]}\n")
            if fmt != "text":
                write_json_line(out, _result_record(live, "interrupted", None, started))
            return EXIT_INTERRUPTED
        except ReplayMismatch as error:  # --replay: the run asked what the cassette never recorded
            sys.stderr.write(f"Error: {error}\n")
            if fmt != "text":
                write_json_line(out, _result_record(live, "error", None, started, str(error)))
            return EXIT_USAGE
        except LLMError as error:
            message = _redacted(live, f"{type(error).__name__}: {error}")
            sys.stderr.write(f"Error: {message}\n")
            if fmt != "text":
                write_json_line(out, _result_record(live, "error", None, started, message))
            return EXIT_FAILURE
        except Exception as error:  # a bug somewhere: machine readers still get their final record
            if fmt != "text":
                message = _redacted(live, f"{type(error).__name__}: {error}")
                write_json_line(out, _result_record(live, "error", None, started, message))
            raise
        stop = live.usage.budget_stop  # a budget cancelled the turn gracefully (sessions/budget)
        if stop is not None:
            return _budget_end(live, stop, response, started, out, fmt)
        interrupted = live.coordinator.cancellation.is_cancelled  # stopped gracefully after a running tool
        if interrupted:
            sys.stderr.write(f"Interrupted. Resume with: amplifier run --resume {live.session_id[:8]}\n")
        if fmt == "text":
            if response and not live.coordinator.get_capability(UI_RENDERS_ANSWER):
                out.write(response + ("\n" if not response.endswith("\n") else ""))
            out.flush()
        else:
            write_json_line(out, _result_record(live, "interrupted" if interrupted else "success", response, started))
        return EXIT_INTERRUPTED if interrupted else EXIT_OK
    finally:
        await live.close()


def _budget_end(live: LiveSession, stop: Any, response: str | None, started: float, out: TextIO,
                fmt: OutputFormat) -> int:
    """A budget ended the turn: say which, with the figures; exit 3 (README: exit codes)."""
    sys.stderr.write(f"Stopped: {stop.message()}. Resume with: amplifier run --resume {live.session_id[:8]}\n")
    if fmt == "text":
        if response:
            out.write(response + ("\n" if not response.endswith("\n") else ""))
        out.flush()
    else:
        record = _result_record(live, "budget", response, started)
        record.update(stop_reason="budget", budget=stop.as_dict(), session_usage=live.usage.session.as_dict())
        write_json_line(out, record)
    return EXIT_BUDGET


def run_one_shot_sync(request: SessionRequest, options: OneShotOptions) -> int:
    try:
        return asyncio.run(run_one_shot(request, options))
    except KeyboardInterrupt:
        sys.stderr.write("Interrupted.\n")
        return EXIT_INTERRUPTED
