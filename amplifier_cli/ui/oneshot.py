"""One-shot runs (`amplifier run "prompt"`, `amplifier continue "prompt"`): open or resume a session, run one
turn, print the result in the chosen format, and map the outcome to an exit code."""

from __future__ import annotations

import asyncio
import sys
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any, Literal, TextIO

from amplifier_support.capability_names import SESSION_SUBAGENTS, UI_OUTPUT, UI_RENDERS_ANSWER

from ..config.trust import project_trust
from ..errors import AmplifierError
from ..sessions.factory import LiveSession, SessionRequest, interactive_stdin, open_session
from ..sessions.interrupts import TurnControl
from ..sessions.turns import TurnOutcome, run_turn
from .approval_systems import ApprovalMode, approval_for
from .display_system import StderrDisplay
from .output_formats import StreamJsonWriter, write_json_line
from .protocol_stdout import reserved_stdout
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
    if name not in commands and name.lower().startswith("mcp__"):
        return prompt  # an MCP prompt: served once the session is open (sessions/mcp_prompt_input)
    if name not in commands:
        raise UsageError.single(f"/{name} is not a command here", fix=unknown_command_fix(paths, commands))
    sys.stderr.write(f"(command /{name} from {commands[name].path})\n")
    return commands[name].expand(arguments)


async def run_one_shot(request: SessionRequest, options: OneShotOptions) -> int:
    fmt = options.output_format
    with reserved_stdout() if fmt != "text" else nullcontext(sys.stdout) as out:
        started = time.monotonic()
        options.prompt = command_prompt(options.prompt)
        request.plan_overlay = _max_turns_overlay(options.max_turns)
        try:
            live = await _open(request, options)
        except AmplifierError as error:
            if fmt != "text":
                write_json_line(out, _result_record(None, "error", None, started, error.render()))
            raise
        try:
            from ..sessions.mcp_prompt_input import prepare_run_prompt  # /mcp__server__prompt, @server:uri

            options.prompt, options.images = await prepare_run_prompt(live, options.prompt, options.images)
            _announce(live, fmt, out)
            bind_pausing_systems(live.coordinator)
            control = TurnControl(live.coordinator, pausing(live.coordinator, _say_on_stderr))
            try:
                outcome = await run_turn(live, options.prompt, options.images, control=control, sigint=True)
            finally:
                stop_indicator(live.coordinator)  # also when the turn failed or was interrupted
            hub = live.coordinator.get_capability(SESSION_SUBAGENTS)
            if outcome.background and hub is not None:  # the run ends here: so do its children, before `result`
                for line in outcome.background_lines():
                    sys.stderr.write(f"{line}; it stops now, with this run\n")
                await hub.stop_background(live.session_id)
            return _report(live, outcome, started, out, fmt)
        finally:
            await live.close()


async def _open(request: SessionRequest, options: OneShotOptions) -> LiveSession:
    approval = approval_for(options.approval, interactive=interactive_stdin() and sys.stderr.isatty())
    return await open_session(
        request,
        approval_system=PausingApproval(approval),
        display_system=PausingDisplay(StderrDisplay()),
        capabilities={UI_OUTPUT: ui_output_for(options.output_format)},
    )


def _announce(live: LiveSession, fmt: OutputFormat, out: TextIO) -> None:
    """Warnings, then the session line (text) or the `init` record (stream-json, which then follows the events)."""
    for warning in live.warnings:
        sys.stderr.write(f"warning: {warning}\n")
    if fmt == "text":
        sys.stderr.write(f"[{live.built.profile_name}] {live.provider_name or '?'} · "
                         f"{live.model_name or 'default model'} · session {live.session_id[:8]}\n")
        sys.stderr.flush()
    elif fmt == "stream-json":
        writer = StreamJsonWriter(out)
        writer.write({"type": "init", "session_id": live.session_id, "profile": live.built.profile_name,
                      "provider": live.provider_name, "model": live.model_name, "tools": live.tool_names,
                      "resumed": live.resumed, "trust": project_trust(live.paths).summary()})
        writer.attach(live.coordinator.hooks)
        hub = live.coordinator.get_capability(SESSION_SUBAGENTS)
        if hub is not None:
            writer.attach_children(hub)


def _report(live: LiveSession, outcome: TurnOutcome, started: float, out: TextIO, fmt: OutputFormat) -> int:
    """The outcome on stderr and stdout (text or the final JSON record), as an exit code."""
    ending = outcome.ending
    if ending in ("budget", "budget_spent"):
        return _budget_end(live, outcome.budget_stop, outcome.response, started, out, fmt)
    if ending in ("interrupted", "stopped"):
        sys.stderr.write(f"Interrupted. Resume with: amplifier run --resume {live.session_id[:8]}\n")
    if ending == "interrupted":
        if fmt != "text":
            write_json_line(out, _result_record(live, "interrupted", None, started))
        return EXIT_INTERRUPTED
    if ending in ("replay_mismatch", "provider_error", "error"):
        assert outcome.error is not None
        if ending == "replay_mismatch":  # --replay: the run asked what the cassette never recorded
            message = str(outcome.error)
        else:
            message = live.redacted(f"{type(outcome.error).__name__}: {outcome.error}")
        if fmt != "text":  # machine readers get their final record, a bug included
            write_json_line(out, _result_record(live, "error", None, started, message))
        if ending == "error":
            raise outcome.error
        sys.stderr.write(f"Error: {message}\n")
        return EXIT_USAGE if ending == "replay_mismatch" else EXIT_FAILURE
    response = outcome.response
    if fmt == "text":
        if response and not live.coordinator.get_capability(UI_RENDERS_ANSWER):
            out.write(response + ("\n" if not response.endswith("\n") else ""))
        out.flush()
    else:
        write_json_line(out, _result_record(live, "interrupted" if ending == "stopped" else "success", response,
                                            started))
    return EXIT_INTERRUPTED if ending == "stopped" else EXIT_OK


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
