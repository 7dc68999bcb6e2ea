"""`!cmd` runs a shell command in the working directory with the terminal attached; its output is shown,
not sent to the model. Ctrl-C goes to the command (same terminal), not to the chat."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from .typeahead import terminal_as_the_user_had_it


async def run_shell(command: str, cwd: Path) -> int:
    """Run ``command`` with bash (sh when bash is missing); returns its exit status."""
    shell = "/bin/bash" if os.path.exists("/bin/bash") else "/bin/sh"
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, lambda: None)  # the child gets the terminal's SIGINT itself
        installed = True
    except (NotImplementedError, RuntimeError, ValueError):
        installed = False
    try:
        with terminal_as_the_user_had_it():  # a program reading lines gets the Enter key as it expects
            process = await asyncio.create_subprocess_exec(shell, "-c", command, cwd=str(cwd))
            return await process.wait()
    finally:
        if installed:  # back to ignoring it (removing would restore the default, which ends the chat)
            loop.add_signal_handler(signal.SIGINT, lambda: None)
