"""The interactive chat (`amplifier`, `amplifier run` without a prompt, `amplifier continue`).

Kept light on purpose: importing this package costs nothing; the REPL itself (prompt-toolkit, the kernel,
the session) is imported when `run_repl` runs, and the heavy parts only after the prompt is on screen.
"""

from __future__ import annotations

from typing import Any


def run_repl(request: Any, approval: str = "ask", first_message: str | None = None) -> int:
    """Run the chat until the user exits; returns the process exit code. ``first_message`` is sent as the
    chat's first turn (`amplifier "PROMPT"`)."""
    from .app import run_repl_sync

    return run_repl_sync(request, approval, first_message)


__all__ = ["run_repl"]
