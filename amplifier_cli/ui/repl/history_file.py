"""The project's input history on disk: private (0600 in a 0700 directory), and with known secret values
masked, because a key pasted into the prompt would otherwise stay in a file for good."""

from __future__ import annotations

import os
from pathlib import Path

from prompt_toolkit.history import FileHistory, History, InMemoryHistory


class MaskedFileHistory(FileHistory):
    """prompt_toolkit's file history, masking secret values (the secret-looking environment variables) as
    ``[REDACTED:NAME]`` before a line is written. The kernel's masking is imported at the first stored line,
    not at start (the REPL shows its prompt before importing the kernel)."""

    def store_string(self, string: str) -> None:
        from amplifier_support.secret_values import SecretValues

        super().store_string(SecretValues.from_environment().mask_text(string))


def open_history(path: Path) -> tuple[History, str | None]:
    """The history file at ``path`` (created private, made private if it was not), or an in-memory one and a
    warning when it cannot be written."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(path.parent, 0o700)
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
        os.chmod(path, 0o600)
        return MaskedFileHistory(str(path)), None
    except OSError as error:
        return InMemoryHistory(), f"input history is not saved: cannot write {path} ({error.strerror})"
