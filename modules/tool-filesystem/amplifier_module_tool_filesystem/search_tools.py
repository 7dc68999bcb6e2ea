"""glob and grep in pure Python (no ripgrep dependency, identical results everywhere).

Both walk from a root without following symlinked directories, prune excluded directory names only below
that root (a project living under ``build/`` still works), and skip entries whose real path the read policy
refuses (a symlink pointing outside cannot leak through a search).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from amplifier_core.models import ToolResult

from .file_tools import FilesystemTool, ToolFailure

DEFAULT_EXCLUDED_DIRS = (".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache",
                         ".pytest_cache", ".ruff_cache", ".tox")


@dataclass(frozen=True)
class SearchLimits:
    max_glob_results: int = 500
    max_grep_results: int = 500
    max_grep_file_bytes: int = 10 * 1024 * 1024
    max_line_length: int = 2000
    excluded_dirs: tuple[str, ...] = DEFAULT_EXCLUDED_DIRS


MAX_BRACE_ALTERNATIVES = 256


def expand_braces(pattern: str) -> list[str]:
    """``*.{py,md}`` -> ``["*.py", "*.md"]`` (nested braces expand too).

    Capped: ``{a,b}`` repeated 25 times would be 33 million patterns and hang the tool.
    """
    pending = [pattern]
    expanded: list[str] = []
    while pending:
        current = pending.pop()
        match = re.search(r"\{([^{}]*,[^{}]*)\}", current)
        if not match:
            expanded.append(current)
            continue
        for choice in reversed(match.group(1).split(",")):
            pending.append(current[: match.start()] + choice + current[match.end():])
        if len(pending) + len(expanded) > MAX_BRACE_ALTERNATIVES:
            raise ToolFailure(f"The pattern {pattern!r} expands to more than {MAX_BRACE_ALTERNATIVES} "
                              "{a,b} alternatives; use fewer braces or run several searches.")
    return expanded


def _segment_regex(segment: str) -> str:
    out = []
    index = 0
    while index < len(segment):
        char = segment[index]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = segment.find("]", index + 2)
            if end < 0:
                out.append(re.escape(char))
            else:
                body = segment[index + 1:end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                index = end
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A regex matching relative POSIX paths for one glob pattern; ``**`` spans any number of directories."""
    parts = []
    segments = pattern.strip("/").split("/")
    for position, segment in enumerate(segments):
        last = position == len(segments) - 1
        if segment == "**":
            parts.append(".*" if last else "(?:[^/]+/)*")
        else:
            parts.append(_segment_regex(segment) + ("" if last else "/"))
    return re.compile("".join(parts) + r"\Z")


class PathMatcher:
    """Matches relative paths against a glob with braces; a pattern without ``/`` matches the file name."""

    def __init__(self, pattern: str) -> None:
        self.by_name = "/" not in pattern
        self.regexes = [glob_regex(choice) for choice in expand_braces(pattern)]

    def matches(self, relative: str) -> bool:
        subject = relative.rsplit("/", 1)[-1] if self.by_name else relative
        return any(regex.match(subject) for regex in self.regexes)


def _walk_files(root: Path, excluded: tuple[str, ...], max_depth: int | None = None) -> Iterator[tuple[Path, str]]:
    """(path, relative posix path) of every file below ``root``; symlinked directories are not entered."""
    root_text = str(root)
    for directory, dirnames, filenames in os.walk(root_text, followlinks=False):
        relative_dir = os.path.relpath(directory, root_text)
        depth = 0 if relative_dir == "." else relative_dir.count(os.sep) + 1
        dirnames[:] = sorted(name for name in dirnames if name not in excluded)
        if max_depth is not None and depth + 1 >= max_depth:
            dirnames[:] = []
        for filename in sorted(filenames):
            relative = filename if relative_dir == "." else f"{relative_dir.replace(os.sep, '/')}/{filename}"
            yield Path(directory, filename), relative


def _literal_prefix(pattern: str) -> tuple[str, str]:
    """Split ``src/pkg/**/*.py`` into the wildcard-free directory ``src/pkg`` and the rest ``**/*.py``."""
    segments = pattern.split("/")
    literal: list[str] = []
    for segment in segments[:-1]:
        if any(char in segment for char in "*?[{"):
            break
        literal.append(segment)
    return "/".join(literal), "/".join(segments[len(literal):])


class GlobTool(FilesystemTool):
    name = "glob"
    description = (
        "Find files by glob pattern, newest first (for example `**/*.py`, `src/**/*.{ts,tsx}`). `*` stays within "
        "one directory and `**` spans directories, so `*.md` matches only the top level of path and `**/*.md` "
        "matches at any depth. Version-control and dependency directories (.git, node_modules, ...) are skipped."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "Glob pattern relative to path."},
            "path": {"type": "string", "description": "Directory to search (default: the working directory)."},
        },
        "required": ["pattern"],
    }

    def __init__(self, *args: Any, search_limits: SearchLimits, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.search_limits = search_limits

    def run(self, input: dict[str, Any]) -> tuple[ToolResult, None]:
        pattern = self.text_argument(input, "pattern").strip()
        root = self.policy.check_read(input.get("path") or ".")
        if not root.is_dir():
            raise ToolFailure(f"path {input.get('path')!r} is not a directory; glob searches directories.")
        if os.path.isabs(os.path.expanduser(pattern)) or pattern.startswith("~"):
            raise ToolFailure("pattern must be relative; put the directory in 'path' (for example path='/src', "
                              "pattern='**/*.py').")
        if ".." in pattern.split("/"):
            raise ToolFailure("pattern must not contain '..'; put the directory to search in 'path' instead.")
        found: list[tuple[float, str]] = []
        for choice in expand_braces(pattern):
            prefix, rest = _literal_prefix(choice)
            start = (root / prefix).resolve(strict=False) if prefix else root
            if not start.is_dir() or not self.policy.may_read(start):
                continue
            regex = glob_regex(rest)
            depth = None if "**" in rest else rest.count("/") + 1
            for path, relative in _walk_files(start, self.search_limits.excluded_dirs, depth):
                if not regex.match(relative) or not self.policy.may_read(path):
                    continue
                try:
                    mtime = path.stat().st_mtime
                except OSError:
                    continue
                found.append((mtime, self.policy.display(Path(os.path.abspath(path)))))
        unique = {shown: mtime for mtime, shown in found}
        ordered = sorted(unique.items(), key=lambda item: (-item[1], item[0]))
        limit = self.search_limits.max_glob_results
        lines = [shown for shown, _ in ordered[:limit]]
        if not lines:
            return ToolResult(success=True, output=f"No files match {pattern!r} under {root}."), None
        if len(ordered) > limit:
            lines.append(f"[{len(ordered) - limit} more files not shown (max {limit}); use a narrower pattern]")
        return ToolResult(success=True, output="\n".join(lines)), None


_OUTPUT_MODES = {"content": "content", "files_with_matches": "files_with_matches", "files": "files_with_matches",
                 "count": "count"}


class GrepTool(FilesystemTool):
    name = "grep"
    description = (
        "Search file contents with a Python regular expression. output_mode: files_with_matches (default, file "
        "paths), content (matching lines as path:line:text, with -A/-B/-C context), count (matches per file). "
        "Filter files with glob (for example `*.py` or `src/**/*.ts`). Binary files and .git are skipped."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "Regular expression (Python `re` syntax)."},
            "path": {"type": "string", "description": "File or directory to search (default: working directory)."},
            "glob": {"type": "string", "description": "Only search files matching this glob."},
            "output_mode": {"type": "string", "enum": ["files_with_matches", "content", "count"],
                            "description": "What to return (default files_with_matches)."},
            "-i": {"type": "boolean", "description": "Case-insensitive search."},
            "-n": {"type": "boolean", "description": "Show line numbers in content mode (default true)."},
            "-A": {"type": "integer", "minimum": 0, "description": "Lines of context after each match."},
            "-B": {"type": "integer", "minimum": 0, "description": "Lines of context before each match."},
            "-C": {"type": "integer", "minimum": 0, "description": "Lines of context before and after."},
            "head_limit": {"type": "integer", "minimum": 1, "description": "Return at most this many entries."},
        },
        "required": ["pattern"],
    }

    def __init__(self, *args: Any, search_limits: SearchLimits, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.search_limits = search_limits

    def run(self, input: dict[str, Any]) -> tuple[ToolResult, None]:
        pattern = self.text_argument(input, "pattern")
        flags = re.IGNORECASE if input.get("-i") or input.get("case_insensitive") else 0
        try:
            regex = re.compile(pattern, flags)
        except re.error as error:
            raise ToolFailure(f"Invalid regular expression {pattern!r}: {error}. Escape special characters such "
                              "as ( [ { . * + ? with a backslash to match them literally.") from None
        mode = _OUTPUT_MODES.get(str(input.get("output_mode") or "files_with_matches"))
        if mode is None:
            raise ToolFailure(f"output_mode must be one of files_with_matches, content, count (got "
                              f"{input.get('output_mode')!r}).")
        context = self.int_argument(input, "-C", 0, 0)
        before = self.int_argument(input, "-B", context, 0)
        after = self.int_argument(input, "-A", context, 0)
        limit = self.int_argument(input, "head_limit", self.search_limits.max_grep_results, 1)
        show_numbers = input.get("-n", True) is not False
        root = self.policy.check_read(input.get("path") or ".")
        name_filter = PathMatcher(input["glob"]) if isinstance(input.get("glob"), str) and input["glob"] else None

        entries: list[str] = []
        files_matched = 0
        total_matches = 0
        capped = False
        for path, relative in self._candidates(root):
            if name_filter and not name_filter.matches(relative):
                continue
            lines = self._text_lines(path)
            if lines is None:
                continue
            hits = [index for index, line in enumerate(lines) if regex.search(line)]
            if not hits:
                continue
            files_matched += 1
            total_matches += len(hits)
            shown = self.policy.display(Path(os.path.abspath(path)))
            if mode == "files_with_matches":
                entries.append(shown)
            elif mode == "count":
                entries.append(f"{shown}:{len(hits)}")
            else:
                entries.extend(self._content(shown, lines, hits, before, after, show_numbers))
            if len(entries) >= limit:
                capped = True
                break
        if not entries:
            return ToolResult(success=True, output=f"No matches for {pattern!r} in {root}."), None
        output = entries[:limit]
        if capped:
            output.append(f"[results stopped at {limit} entries; narrow the search with path or glob, or raise "
                          "head_limit]")
        elif mode == "count":
            output.append(f"[{total_matches} matches in {files_matched} files]")
        return ToolResult(success=True, output="\n".join(output)), None

    def _candidates(self, root: Path) -> Iterator[tuple[Path, str]]:
        if root.is_file():
            yield root, root.name
            return
        if root.exists() and not root.is_dir():
            raise ToolFailure(f"{root} is not a regular file or a directory (it is a device, socket or pipe); "
                              "grep searches files.")
        if not root.is_dir():
            raise FileNotFoundError(2, "No such file or directory", str(root))
        for path, relative in _walk_files(root, self.search_limits.excluded_dirs):
            if self.policy.may_read(path):
                yield path, relative

    def _text_lines(self, path: Path) -> list[str] | None:
        """The file's lines, or None to skip it: unreadable, too big, binary, or not a regular file. A FIFO's
        ``open()`` would wait for a writer forever, so it opens non-blocking and is dropped after ``fstat``."""
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return None
        with os.fdopen(fd, "rb") as handle:
            try:
                status = os.fstat(fd)
                if not stat.S_ISREG(status.st_mode) or status.st_size > self.search_limits.max_grep_file_bytes:
                    return None
                data = handle.read(self.search_limits.max_grep_file_bytes + 1)
            except OSError:
                return None
        if b"\0" in data[:8192]:
            return None
        return data.decode("utf-8", errors="replace").splitlines()

    def _content(self, shown: str, lines: list[str], hits: list[int], before: int, after: int,
                 numbers: bool) -> list[str]:
        out: list[str] = []
        hit_set = set(hits)
        last_printed = -1
        cap = self.search_limits.max_line_length
        for hit in hits:
            low = max(hit - before, 0, last_printed + 1)
            high = min(hit + after, len(lines) - 1)
            if out and (before or after) and low > last_printed + 1:
                out.append("--")
            for index in range(low, high + 1):
                separator = ":" if index in hit_set else "-"
                text = lines[index] if len(lines[index]) <= cap else lines[index][:cap] + "..."
                number = f"{index + 1}{separator}" if numbers else ""
                out.append(f"{shown}{separator}{number}{text}")
            last_printed = max(last_printed, high)
        return out
