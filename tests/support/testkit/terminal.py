"""Programs in a real pseudo-terminal (pexpect) for the terminal tests."""

from __future__ import annotations

from typing import Any

import pexpect


def spawn_in_terminal(command: str, args: list[str], **options: Any) -> pexpect.spawn:
    """``pexpect.spawn(command, args, **options)`` without pexpect's 50 ms sleep before every send. The sleep guards
    against typing before the program reads; these tests type only after waiting for what the program prints."""
    child = pexpect.spawn(command, args, **options)
    child.delaybeforesend = None
    return child
