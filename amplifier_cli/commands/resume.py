"""`amplifier resume [ID]`: upstream's shortcut for `amplifier run --resume ID` (a unique prefix is enough);
without an ID, the latest session of this project, like `amplifier continue`."""

from __future__ import annotations

import typer


def register(root: typer.Typer) -> None:
    @root.command("resume")
    def resume(
        session_id: str = typer.Argument(None, help="Session id or unique prefix (default: the latest here)."),
        prompt: str = typer.Argument(None, help="A prompt for one more turn (default: the chat, in a terminal)."),
        output_format: str = typer.Option("text", "--output-format", "-o", help="text, json or stream-json."),
        approval: str = typer.Option("ask", "--approval", help="ask, allow or deny tool approvals."),
    ) -> None:
        """Resume a session: the chat in a terminal, or one more turn with a prompt."""
        from .launch import start

        if session_id is None:
            raise typer.Exit(start(prompt, output_format=output_format, approval=approval, continue_latest=True))
        raise typer.Exit(start(prompt, resume=session_id, output_format=output_format, approval=approval))
