"""Variables hooks hand to later hooks: upstream's hook-shell (and Claude Code) give each hook a file in
``AMPLIFIER_ENV_FILE`` / ``CLAUDE_ENV_FILE``; ``VAR=value`` or ``export VAR=value`` lines a hook writes there are in
the environment of every hook that runs after it in the session. The file lives in a private temp folder (the
sandbox lets hooks write there) that is removed when the module is unmounted."""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

ENV_FILE_VARIABLES = ("AMPLIFIER_ENV_FILE", "CLAUDE_ENV_FILE")
_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$")


class HookEnvFile:
    def __init__(self) -> None:
        self._folder: Path | None = None

    @property
    def path(self) -> Path:
        """Created on first use, so sessions whose hooks never run make no folder."""
        if self._folder is None:
            self._folder = Path(tempfile.mkdtemp(prefix="amplifier-hook-env-"))
            (self._folder / "hooks.env").touch(mode=0o600)
        return self._folder / "hooks.env"

    def variables(self) -> dict[str, str]:
        """The variables written so far (later lines win); quotes around a value are removed."""
        if self._folder is None:
            return {}
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return {}
        found: dict[str, str] = {}
        for line in text.splitlines():
            match = _LINE.match(line)
            if match is None:
                continue
            value = match.group(2).strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            found[match.group(1)] = value
        return found

    def remove(self) -> None:
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None
