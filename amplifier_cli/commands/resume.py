"""`amplifier resume [ID]`: upstream's shortcut for `amplifier run --resume ID` (a unique prefix is enough);
without an ID, the latest session of this project, like `amplifier continue`, with the same options."""

from __future__ import annotations

from typing import Any

import typer

from .session_options import with_resume_options


def register(root: typer.Typer) -> None:
    @root.command("resume")
    @with_resume_options
    def resume(
        session_id: str = typer.Argument(None, help="Session id or unique prefix (default: the latest here)."),
        prompt: str = typer.Argument(None, help="A prompt for one more turn (default: the chat, in a terminal)."),
        *,
        options: dict[str, Any],
    ) -> None:
        """Resume a session: the chat in a terminal, or one more turn with a prompt."""
        from .launch import start

        if session_id is None:
            raise typer.Exit(start(prompt, continue_latest=True, **options))
        raise typer.Exit(start(prompt, resume=session_id, **options))
