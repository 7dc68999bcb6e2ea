"""Chat commands written as Markdown files: `<config dir>/commands/`, and the project's `.amplifier/commands/`
and `.claude/commands/` (Claude Code's) once the project is trusted (config/trust.py lists them: a command's text
tells the model what to do). `review.md` is `/review`; `git/commit.md` is `/git:commit`. The body is the prompt,
with `$ARGUMENTS` (everything after the name) and `$1`..`$9` (its words) filled in; front matter `description`
shows in `/help`. Later places win by name: user < `.claude/commands` < `.amplifier/commands`."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from .paths import AmplifierPaths
from .trust import project_trusted

COMMAND_SUFFIX = ".md"
_NAME = re.compile(r"^/([A-Za-z0-9_][A-Za-z0-9_.:-]*)(?:\s+(.*))?$", re.DOTALL)
_POSITIONAL = re.compile(r"\$([1-9])")
MAX_COMMAND_BYTES = 256 * 1024


@dataclass(frozen=True)
class SlashCommand:
    name: str  # without the slash: "review", "git:commit"
    path: Path
    origin: str  # user | project
    description: str
    argument_hint: str | None
    body: str

    def expand(self, arguments: str) -> str:
        """The prompt: the body with `$ARGUMENTS` and `$1`..`$9` filled (missing words become empty)."""
        try:
            words = shlex.split(arguments)
        except ValueError:
            words = arguments.split()
        text = self.body.replace("$ARGUMENTS", arguments)
        text = _POSITIONAL.sub(lambda match: words[int(match.group(1)) - 1]
                               if int(match.group(1)) <= len(words) else "", text)
        if arguments and "$ARGUMENTS" not in self.body and not _POSITIONAL.search(self.body):
            text = f"{text.rstrip()}\n\n{arguments}"  # as Claude Code does: arguments are never dropped
        return text


def command_dirs(paths: AmplifierPaths) -> list[tuple[str, Path]]:
    """Where command files live, lowest precedence first; the project's only when it is trusted."""
    dirs = [("user", paths.config_dir / "commands")]
    if paths.project_root is not None and project_trusted(paths):
        dirs += [("project", paths.project_root / ".claude" / "commands"),
                 ("project", paths.project_root / ".amplifier" / "commands")]
    return dirs


def _front_matter(text: str) -> tuple[dict[str, object], str]:
    from ..errors import ConfigError
    from .yaml_document import safe_load_limited

    if not text.startswith("---"):
        return {}, text
    lines = text.splitlines(keepends=True)
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            try:  # under the limits of every YAML file: a nesting or alias bomb is no front matter, not a crash
                data = safe_load_limited("".join(lines[1:index]))
            except ConfigError:  # invalid YAML too: safe_load_limited reports both as ConfigError
                data = None
            return (data if isinstance(data, dict) else {}), "".join(lines[index + 1:])
    return {}, text


def _read_command(path: Path, name: str, origin: str) -> SlashCommand | None:
    try:
        with open(path, "rb") as handle:
            text = handle.read(MAX_COMMAND_BYTES).decode("utf-8-sig", errors="replace")
    except OSError:
        return None
    meta, body = _front_matter(text)
    description = meta.get("description")
    first = next((line.strip().lstrip("#").strip() for line in body.splitlines() if line.strip()), "")
    hint = meta.get("argument-hint")
    return SlashCommand(name=name, path=path, origin=origin,
                        description=str(description).strip() if description else first[:80],
                        argument_hint=str(hint) if hint else None, body=body.strip())


def load_commands(paths: AmplifierPaths) -> dict[str, SlashCommand]:
    """Every command by name (later places win)."""
    found: dict[str, SlashCommand] = {}
    for origin, directory in command_dirs(paths):
        if not directory.is_dir():
            continue
        for path in sorted(directory.rglob(f"*{COMMAND_SUFFIX}")):
            if not path.is_file() or any(part.startswith(".") for part in path.relative_to(directory).parts):
                continue
            relative = path.relative_to(directory).with_suffix("")
            name = ":".join(relative.parts)
            command = _read_command(path, name, origin)
            if command is not None:
                found[name] = command
    return dict(sorted(found.items()))


def split_command_line(line: str) -> tuple[str, str] | None:
    """(name, arguments) of a `/name args` line; None when the line is not shaped like a command."""
    match = _NAME.match(line.strip())
    if match is None:
        return None
    return match.group(1), (match.group(2) or "").strip()


def unknown_command_fix(paths: AmplifierPaths, commands: dict[str, SlashCommand]) -> str:
    names = ", ".join(f"/{name}" for name in commands) or "none"
    fix = f"commands here: {names}; add one as .amplifier/commands/NAME.md"
    if paths.project_root is not None and not project_trusted(paths) and any(
            (paths.project_root / relative).is_dir() for relative in (".amplifier/commands", ".claude/commands")):
        fix += "; this project's own commands wait until you trust it (`amplifier trust`)"
    return fix
