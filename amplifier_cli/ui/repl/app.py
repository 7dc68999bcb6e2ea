"""The chat loop: prompt on screen first, session opened behind it, one turn per submitted input.

Order at start: banner (and the resumed history) -> prompt. Meanwhile a thread imports the kernel and the
provider SDKs, and the session is opened in the event loop as soon as the kernel is in; the first turn
waits for it only if the user was quicker.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from typing import Any, TextIO

from prompt_toolkit.patch_stdout import patch_stdout

from amplifier_support.capability_names import SESSION_END_REASON, UI_OUTPUT, UI_RENDERS_ANSWER

from ... import __version__
from ...config.paths import AmplifierPaths
from ...config.trust import project_trust
from .input import ReplCompleter, build_prompt_session, history_path, open_history
from .output import LiveStdout, say
from .typeahead import enter_typed_ahead_sends

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class SessionOpenFailed(Exception):
    """Opening the session failed while the prompt was up; the error is reported after the prompt closes."""


class Repl:
    def __init__(self, request: Any, approval_mode: str, out: TextIO) -> None:
        self.request = request
        self.approval_mode = approval_mode
        self.out = out  # the real stdout (the streaming UI gets a LiveStdout over it)
        self.paths = AmplifierPaths.discover()
        self.live: Any = None
        self.opener: asyncio.Task[Any] | None = None
        self.approval: Any = None
        self.exit_code = EXIT_OK
        self.prompt_session: Any = None
        self.completer: ReplCompleter | None = None
        self.project_commands: dict[str, Any] = {}  # /NAME from Markdown files (config/slash_commands.py)
        self.first_message: str | None = None  # `amplifier "PROMPT"`: sent before the first prompt is shown

    # -- mode -----------------------------------------------------------------------------------------------
    @property
    def mode(self) -> str:
        return getattr(self.request, "mode", "normal") or "normal"

    def set_mode(self, mode: str, *, announce: bool = True) -> str:
        """Switch plan mode for the next tool calls (the session's gate reads the capability at each call);
        returns the line that says so (printed unless ``announce`` is False)."""
        self.request.mode = mode
        if self.live is not None:
            self.live.set_mode(mode)
        line = f"Mode: {mode}" + (" (the model may read and think; writes and commands are refused)"
                                  if mode == "plan" else "")
        if announce:
            say(line, "ok")
        return line

    def toggle_mode(self) -> str:
        """Shift-Tab at the prompt: the other mode; the prompt prints the returned line above itself."""
        return self.set_mode("normal" if self.mode == "plan" else "plan", announce=False)

    # -- session ------------------------------------------------------------------------------------------
    def start_opening(self) -> None:
        from .warmup import start_warmup

        core_ready = start_warmup(self.request, self.paths)
        self.opener = asyncio.ensure_future(self._open(core_ready))
        self.opener.add_done_callback(self._opened)

    async def _open(self, core_ready: Any) -> Any:
        await asyncio.wrap_future(core_ready)
        from ...config.settings import load_settings
        from ...sessions.factory import open_session
        from ..approval_systems import approval_for
        from ..working_pause import PausingApproval, PausingDisplay, bind_pausing_systems
        from .approval import ReplApproval
        from .display import ReplDisplay

        settings = load_settings(self.paths)
        if self.approval_mode == "ask":
            self.approval = ReplApproval(self.paths)
        else:
            self.approval = approval_for(self.approval_mode, interactive=True)  # type: ignore[arg-type]
        ui_output = {"stream": LiveStdout(self.out), "show_answer_text": True, "mode": "repl", "color": None,
                     "working_stream": LiveStdout(self.out)}
        live = await open_session(
            self.request,
            paths=self.paths,
            settings=settings,
            approval_system=PausingApproval(self.approval),
            display_system=PausingDisplay(ReplDisplay()),
            capabilities={UI_OUTPUT: ui_output},
        )
        if isinstance(self.approval, ReplApproval):
            self.approval.coordinator = live.coordinator
        bind_pausing_systems(live.coordinator)
        return live

    def _opened(self, task: asyncio.Task[Any]) -> None:
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            app = self.prompt_session.app if self.prompt_session is not None else None
            if app is not None and app.is_running:
                app.exit(exception=SessionOpenFailed())
            return
        self.live = task.result()
        for warning in self.live.warnings:
            say(f"warning: {warning}", "warning")
        if self.completer is not None:  # MCP prompts are slash commands once their servers are connected
            self.completer.set_extra_commands(
                [("/" + p["command"], p["description"] or "MCP prompt") for p in self.live.mcp_prompts()])
            self.completer.set_resource_source(self.live.coordinator)  # @server:uri of MCP resources
        say(self.session_line(), "dim")

    def session_line(self) -> str:
        live = self.live
        return (f"[{live.built.profile_name}] {live.provider_name or '?'} · "
                f"{live.model_name or 'default model'} · session {live.session_id[:8]}")

    async def session(self) -> Any:
        """The open session (waiting for it if needed); None when it failed to open (error reported)."""
        if self.live is not None:
            return self.live
        assert self.opener is not None
        if not self.opener.done():
            say("(waiting for the session to open…)", "dim")
        try:
            return await self.opener
        except Exception as error:
            self.report_open_failure(error)
            return None

    def report_open_failure(self, error: BaseException) -> None:
        from ...errors import AmplifierError

        if isinstance(error, AmplifierError):
            say(f"Error: {error.render()}", "error")
            self.exit_code = error.exit_code
        else:
            say(f"Error: could not open the session: {type(error).__name__}: {error}", "error")
            self.exit_code = EXIT_FAILURE

    async def switch_to(self, request: Any) -> None:
        """Close the current session and open ``request`` (/resume, /fork) under the chat's ``--sandbox``: a
        session switched to must not run commands under a looser sandbox than the chat was started with."""
        await self.close_session(end_reason="resume")
        request.sandbox = getattr(self.request, "sandbox", None)
        self.request = request
        self.live = None
        self.show_resumed_history()
        self.start_opening()

    async def close_session(self, end_reason: str = "prompt_input_exit") -> None:
        """``end_reason``: Claude Code's SessionEnd reason, for hooks (the person left the chat, or switched)."""
        if self.opener is not None and not self.opener.done():
            self.opener.cancel()
            try:
                await self.opener
            except BaseException:
                pass
        if self.live is not None:
            self.live.coordinator.register_capability(SESSION_END_REASON, end_reason)
            await self.live.close()

    # -- screen ---------------------------------------------------------------------------------------------
    def show_resumed_history(self) -> None:
        if not self.request.resume_id:
            return
        from ...sessions.factory import session_store_for
        from .history_view import show_history

        try:
            record = session_store_for(self.paths).find(self.request.resume_id)
        except LookupError:
            return  # open_session reports it properly
        show_history(record.read_transcript().messages, record.session_id)

    # -- the loop -------------------------------------------------------------------------------------------
    @staticmethod
    def guard_sigint() -> None:
        """Between prompts and turns a Ctrl-C is ignored instead of ending the chat. Turns, `!cmd` and the
        prompt take SIGINT over while they run and drop it when done (asyncio's remove_signal_handler
        restores the default, which raises KeyboardInterrupt), so this is re-installed before each prompt."""
        try:
            asyncio.get_running_loop().add_signal_handler(signal.SIGINT, lambda: None)
        except (NotImplementedError, RuntimeError, ValueError):
            pass

    async def run(self) -> int:
        from .commands import COMMANDS

        say(f"amplifier {__version__} — Enter sends · Alt-Enter or Ctrl-J: new line · /help · Ctrl-D exits", "dim")
        self.show_resumed_history()
        project = self.paths.project_root or self.paths.cwd  # as session_factory.project_key, without the kernel
        history, warning = open_history(history_path(self.paths.data_dir, project))
        if warning:
            say(f"warning: {warning}", "warning")
        from ...config.slash_commands import load_commands

        self.project_commands = load_commands(self.paths)
        self.completer = ReplCompleter([(name, description) for name, description, _ in COMMANDS]
                                       + [(f"/{name}", command.description)
                                          for name, command in self.project_commands.items()], self.paths.cwd)
        self.prompt_session = build_prompt_session(history, self.completer, mode=lambda: self.mode,
                                                   toggle_mode=self.toggle_mode)
        self.start_opening()
        with enter_typed_ahead_sends():  # an Enter typed during a turn still sends
            try:
                if self.first_message and not await self.send_first_message(self.first_message):
                    return self.exit_code
                while True:
                    self.guard_sigint()
                    self.out.write("\n")
                    self.out.flush()
                    try:
                        with patch_stdout(raw=True):
                            text = await self.prompt_session.prompt_async()
                    except KeyboardInterrupt:
                        continue  # a SIGINT from outside (the Ctrl-C key clears the line in place: input.py)
                    except EOFError:
                        break
                    except SessionOpenFailed:
                        assert self.opener is not None
                        self.report_open_failure(self.opener.exception() or RuntimeError("unknown"))
                        return self.exit_code
                    self.guard_sigint()
                    if not await self.handle(text):
                        break
                    if self.exit_code != EXIT_OK and self.live is None and self.opener is not None \
                            and self.opener.done():
                        return self.exit_code
            finally:
                await self.close_session()
                try:
                    asyncio.get_running_loop().remove_signal_handler(signal.SIGINT)
                except (NotImplementedError, RuntimeError, ValueError):
                    pass
        if self.live is not None and self.live.record.has_messages:  # an empty chat is not kept (see the store)
            say(f"Session {self.live.session_id[:8]} saved. Resume with: amplifier continue", "dim")
        return self.exit_code

    async def send_first_message(self, text: str) -> bool:
        """Show the message as if typed at the prompt, then handle it; False ends the chat (also when the
        session could not open: the error is reported)."""
        from .input import PROMPT

        self.out.write(f"\n{PROMPT}{text}\n")
        self.out.flush()
        keep_going = await self.handle(text)
        return keep_going and not (self.exit_code != EXIT_OK and self.live is None)

    async def handle(self, text: str) -> bool:
        """Act on one submitted input; False ends the chat."""
        stripped = text.strip()
        if not stripped:
            return True
        if stripped.lower() in ("exit", "quit"):
            return False
        if stripped.startswith("/"):
            from .commands import run_command

            return await run_command(self, stripped)
        if stripped.startswith("!"):
            from .shell import run_shell

            status = await run_shell(stripped[1:].strip(), self.paths.cwd)
            if status:
                say(f"[exit code {status}]", "dim")
            return True
        from .mentions import expand_prompt_mentions

        expanded = await expand_prompt_mentions(text, self.paths.cwd, self.session)
        if expanded.problems:
            for problem in expanded.problems:
                say(problem, "error")
            say("Not sent. Fix the mention (or remove the @) and send again; Up brings the text back.", "dim")
            return True
        for path in [*expanded.attached, *expanded.resources]:
            say(f"attached {path}", "dim")
        await self.turn(expanded.prompt, expanded.images)
        return True

    async def turn(self, prompt: str, images: list[dict[str, Any]] | None = None) -> None:
        from ...sessions.interrupts import TurnControl
        from ...sessions.turns import run_turn

        live = await self.session()
        if live is None:
            return

        from ..working_pause import pausing, stop_indicator

        def notify(message: str) -> None:
            self.out.write("\n" + message + "\n")
            self.out.flush()

        try:
            outcome = await run_turn(live, prompt, images, control=TurnControl(live.coordinator,
                                                                             pausing(live.coordinator, notify)),
                                     sigint=True)
        finally:
            stop_indicator(live.coordinator)  # also when the turn failed or was interrupted
            self.guard_sigint()  # the turn dropped its SIGINT handler: the default would kill us
        ending = outcome.ending
        for line in outcome.background_lines():
            say(f"{line} (the model can read it with task_output)", "dim")
        if ending == "budget_spent":  # a reached budget ends the chat's spending for good
            say(f"The {outcome.budget_stop.message()}; no more model calls in this chat."
                " Resume it with a higher limit: amplifier run --resume " + live.session_id[:8], "warning")
            return
        if ending == "interrupted":
            say("\nInterrupted. What was done is saved in the transcript; carry on or /exit.", "warning")
            return
        if ending == "provider_error":
            say(f"\nError from the model provider: {type(outcome.error).__name__}: {outcome.error}", "error")
            return
        if ending in ("error", "replay_mismatch"):
            say(f"\nError: {type(outcome.error).__name__}: {outcome.error}", "error")
            return
        response = outcome.response
        if not live.coordinator.get_capability(UI_RENDERS_ANSWER):
            self.out.write(response + ("" if response.endswith("\n") else "\n"))
            self.out.flush()
        if ending == "budget":
            say(f"Stopped: {outcome.budget_stop.message()}. What was done is saved.", "warning")
        elif ending == "stopped":
            say("Stopped (Ctrl-C). What was done is saved.", "warning")
        from ..turn_notify import notify_turn_end

        notify_turn_end(live.built.settings, self.out)


async def run_repl_async(request: Any, approval: str, first_message: str | None = None) -> int:
    repl = Repl(request, approval, sys.stdout)
    repl.first_message = first_message
    return await repl.run()


def ask_trust_first() -> None:
    """Before anything of the project runs (its MCP servers start with the session, before the first
    keystroke), show what an untrusted project ships and ask whether to trust it."""
    paths = AmplifierPaths.discover()
    if project_trust(paths).needs_trust:
        from ..trust_prompt import ask_to_trust

        ask_to_trust(paths, project_trust(paths), out=sys.stdout)


def run_repl_sync(request: Any, approval: str, first_message: str | None = None) -> int:
    try:
        ask_trust_first()
        return asyncio.run(run_repl_async(request, approval, first_message))
    except KeyboardInterrupt:
        sys.stdout.write("\nInterrupted.\n")
        return EXIT_INTERRUPTED
