"""Project instruction files: `AGENTS.md`, `AMPLIFIER.md`, `CLAUDE.md` and (project only) `CLAUDE.local.md`
from the user config dir and the project root, added to a new session as one system message so every session in
a project follows the same house rules, whichever agent they were written for. Order, later taking precedence:
the user's files, then the project's, each in the order of INSTRUCTION_FILE_NAMES; a file already added (one
file imports or links another, or AGENTS.md is a symlink to CLAUDE.md) is not added again.

`@path` in a file includes another file, resolved relative to the including file and loaded once (nested
includes too, up to a few levels). An include must stay inside the directory tree it was found in (the
project root, or the user config dir): anything else - `@../x`, an absolute path, a symlink pointing out -
is refused and reported, never read. The project's own AGENTS.md/AMPLIFIER.md must also resolve inside the
project (a symlink from a cloned repository to ~/.ssh/id_rsa is refused); the user's own files in the config
dir may be symlinks anywhere (dotfiles). `@name` without `/` or `.` is a mention, not a path, and is left alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config.paths import AmplifierPaths

INSTRUCTION_FILE_NAMES = ("AGENTS.md", "AMPLIFIER.md", "CLAUDE.md", "CLAUDE.local.md")
USER_ONLY_EXCLUDED = ("CLAUDE.local.md",)  # a personal file beside a project's CLAUDE.md; not a user-wide one
MESSAGE_SOURCE = "project_instructions"
MAX_FILE_CHARS = 64_000
MAX_INCLUDE_DEPTH = 5
_MENTION = re.compile(r"(?:^|(?<=\s))@([^\s`]+)")
_TRAILING = ".,;:!?)]}'\""
_INLINE_CODE = re.compile(r"`[^`\n]*`")


@dataclass
class ProjectInstructions:
    text: str | None = None  # the system message content; None when no file was found
    files: list[Path] = field(default_factory=list)  # every file read, includes too, in order
    notes: list[str] = field(default_factory=list)  # refused or missing includes, truncations

    def message(self) -> dict[str, Any] | None:
        if not self.text:
            return None
        return {
            "role": "system",
            "content": self.text,
            "metadata": {"source": MESSAGE_SOURCE, "files": [str(path) for path in self.files]},
        }


@dataclass
class _Loaded:
    path: Path
    text: str
    included_from: Path | None


def instruction_roots(paths: AmplifierPaths) -> list[tuple[str, Path]]:
    """(label, directory) pairs to look in, general first: the user config dir, then the project root."""
    roots = [("the user config dir", paths.config_dir)]
    if paths.project_root is not None:
        roots.append(("the project", paths.project_root))
    return roots


def load_project_instructions(paths: AmplifierPaths) -> ProjectInstructions:
    result = ProjectInstructions()
    loaded: list[_Loaded] = []
    seen: set[Path] = set()
    for label, root in instruction_roots(paths):
        for name in INSTRUCTION_FILE_NAMES:
            if label != "the project" and name in USER_ONLY_EXCLUDED:
                continue
            path = root / name
            if not path.is_file():
                continue
            if label == "the project" and not path.resolve().is_relative_to(root.resolve()):
                # a cloned repository must not be able to send e.g. ~/.ssh/id_rsa to the model as "rules"
                result.notes.append(f"{path} is a symlink to {path.resolve()}, outside the project; refused, "
                                    "not included")
                continue
            _load_file(path, root.resolve(), label, None, 0, loaded, seen, result.notes)
    if not loaded:
        return result
    result.files = [item.path for item in loaded]
    blocks = [
        "Instruction files for this session (user-wide first, then the project's; a later file takes "
        "precedence where they differ). Follow them unless the user says otherwise."
    ]
    for item in loaded:
        origin = f' included_from="{item.included_from}"' if item.included_from else ""
        blocks.append(f'<file path="{item.path}"{origin}>\n{item.text.strip()}\n</file>')
    result.text = "\n\n".join(blocks)
    return result


def _load_file(
    path: Path, root: Path, label: str, included_from: Path | None, depth: int,
    loaded: list[_Loaded], seen: set[Path], notes: list[str],
) -> None:
    resolved = path.resolve()
    if resolved in seen:
        return
    seen.add(resolved)
    try:
        with open(resolved, "rb") as handle:  # bounded: an included multi-GB file must not be loaded whole
            text = handle.read(MAX_FILE_CHARS * 4 + 4).decode("utf-8", errors="replace")
    except OSError as error:
        notes.append(f"{path}: cannot read it ({error.strerror or error}); not included")
        return
    if len(text) > MAX_FILE_CHARS:
        notes.append(f"{path}: longer than {MAX_FILE_CHARS} characters; only the start is included")
        text = text[:MAX_FILE_CHARS]
    loaded.append(_Loaded(path, text, included_from))
    for line_number, target in _includes(text):
        where = f"{path}:{line_number}: @{target}"
        candidate = Path(target).expanduser()
        if not candidate.is_absolute():
            candidate = path.parent / candidate
        candidate = candidate.resolve()
        if not candidate.is_relative_to(root):
            notes.append(f"{where} points outside {label} ({root}); refused, not included")
            continue
        if not candidate.is_file():
            notes.append(f"{where}: no such file; not included")
            continue
        if depth + 1 > MAX_INCLUDE_DEPTH:
            notes.append(f"{where}: includes nested deeper than {MAX_INCLUDE_DEPTH} levels; not included")
            continue
        _load_file(candidate, root, label, path, depth + 1, loaded, seen, notes)


def _includes(text: str) -> list[tuple[int, str]]:
    """(line number, path) of every `@path` outside fenced code blocks and inline code spans."""
    found: list[tuple[int, str]] = []
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced:
            continue
        for match in _MENTION.finditer(_INLINE_CODE.sub(" ", line)):
            target = match.group(1).rstrip(_TRAILING)
            if target and ("/" in target or "." in target):
                found.append((number, target))
    return found


def instruction_files_in(messages: list[dict[str, Any]]) -> list[Path]:
    """The files a (resumed) transcript's project-instructions message was built from."""
    for message in messages:
        metadata = message.get("metadata") if isinstance(message, dict) else None
        if isinstance(metadata, dict) and metadata.get("source") == MESSAGE_SOURCE:
            return [Path(item) for item in metadata.get("files") or [] if isinstance(item, str)]
    return []
