"""read_file, write_file and edit_file. Blocking file work runs in a thread; nothing here raises into the
orchestrator: every failure is a ``ToolResult(success=False)`` whose message says what to do next."""

from __future__ import annotations

import asyncio
import codecs
import errno
import io
import logging
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from amplifier_core.events import ARTIFACT_READ, ARTIFACT_WRITE
from amplifier_core.models import ToolResult
from amplifier_support.capability_names import (
    APPROVAL_INTERACTIVE,
    EDITOR_FILES,
    SESSION_PROJECT_DIR,
    SESSION_SANDBOX_MODE,
)
from amplifier_support.sandbox_modes import READ_ONLY

from .names import escape_name
from .no_follow import SUPPORTED, PathChanged, open_for_listing, open_for_reading, replace_atomically
from .path_policy import PathDenied, PathPolicy

logger = logging.getLogger(__name__)

_SNIFF_BYTES = 8192
_SNIPPET_CONTEXT = 3
_MAX_LISTING = 1000
_CHUNK = 1024 * 1024  # what one read of a line nobody will see takes at most
READ_ONLY_MODE = READ_ONLY  # the sandbox mode that keeps the file tools from writing too
EDITOR_TIMEOUT = 60.0  # seconds an editor may take to hand over or take a file


@dataclass(frozen=True)
class FileLimits:
    default_read_lines: int = 2000
    max_line_length: int = 2000
    max_file_bytes: int = 10 * 1024 * 1024


class ToolFailure(Exception):
    """Raised inside a tool body to end it with this message as a failed ToolResult."""


def failure(message: str, **details: Any) -> ToolResult:
    return ToolResult(success=False, error={"message": message, **details})


def number_line(number: int, text: str) -> str:
    return f"{number:>6}\t{text}"


def looks_binary(handle: BinaryIO) -> bool:
    """NUL in the first 8 KiB; the handle is left at the start."""
    binary = b"\0" in handle.read(_SNIFF_BYTES)
    handle.seek(0)
    return binary


def open_checked(path: Path) -> BinaryIO:
    """The approved regular file, opened without following a symlink swapped in after the check."""
    return os.fdopen(open_for_reading(path), "rb")


def bounded_lines(handle: BinaryIO, cap: int) -> Iterator[tuple[bytes, bool]]:
    """Each line's first ``cap`` bytes and whether more followed; the rest of a longer line is read in chunks
    and dropped, so one 100 MB line costs ``cap`` bytes, not 100 MB (``for line in handle`` reads it whole)."""
    while True:
        head = handle.readline(cap)
        if not head:
            return
        longer = False
        if len(head) == cap and not head.endswith(b"\n"):
            while True:
                rest = handle.readline(_CHUNK)
                if not rest:
                    break
                longer = longer or rest != b"\n"
                if rest.endswith(b"\n"):
                    break
        yield head, longer


def count_lines(handle: BinaryIO) -> int:
    """How many lines are left in ``handle`` (a last line without a newline counts), reading in chunks."""
    count = 0
    last = b"\n"
    while chunk := handle.read(_CHUNK):
        count += chunk.count(b"\n")
        last = chunk[-1:]
    return count + (last != b"\n")


def _os_error_message(error: OSError, shown: str) -> str:
    if error.errno == errno.ELOOP:
        return (f"{shown} is a symbolic link loop (links that lead back to each other, never to a file); fix or "
                "remove the link.")
    if isinstance(error, FileNotFoundError):
        return (f"File not found: {shown}. Relative paths are relative to the working directory; use glob to "
                "find the file.")
    if isinstance(error, IsADirectoryError):
        return f"{shown} is a directory, not a file."
    if isinstance(error, NotADirectoryError):
        return f"A component of {shown} is a file, not a directory."
    if isinstance(error, PermissionError):
        return f"The operating system denied access to {shown} (permission denied)."
    return f"Could not access {shown}: {error.strerror or error}."


def _names_escaped(result: ToolResult) -> ToolResult:
    """Names that are not UTF-8 shown as ``\\xNN``: the one place every output and message passes."""
    if isinstance(result.output, str):
        result.output = escape_name(result.output)
    if isinstance(result.error, dict) and isinstance(result.error.get("message"), str):
        result.error["message"] = escape_name(result.error["message"])
    return result


class FilesystemTool:
    """Shared plumbing: input validation, thread offload, error mapping, artifact events."""

    name = ""
    description = ""
    input_schema: dict[str, Any] = {}

    def __init__(self, policy: PathPolicy, limits: FileLimits, coordinator: Any = None) -> None:
        self.policy = policy
        self.limits = limits
        self.coordinator = coordinator
        self._loop: asyncio.AbstractEventLoop | None = None  # where the editor's file functions run

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        if not isinstance(input, dict):
            return failure(f"{self.name} expects an object of arguments, got {type(input).__name__}.")
        event: tuple[str, dict[str, Any]] | None = None
        self._loop = asyncio.get_running_loop()
        try:
            result, event = await asyncio.to_thread(self.run, input)
        except ToolFailure as error:
            result = failure(str(error))
        except (PathDenied, PathChanged) as error:
            result = failure(str(error), type="access_denied")
        except OSError as error:
            result = failure(_os_error_message(error, error.filename or "the path"), errno=error.errno)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            logger.exception("%s failed", self.name)
            result = failure(f"{self.name} failed unexpectedly: {type(error).__name__}: {error}")
        if event is not None:
            await self._emit(*event)
        return _names_escaped(result)

    async def _emit(self, name: str, data: dict[str, Any]) -> None:
        hooks = getattr(self.coordinator, "hooks", None)
        if hooks is None:
            return
        try:
            await hooks.emit(name, data)
        except Exception:
            logger.exception("emitting %s failed", name)

    def run(self, input: dict[str, Any]) -> tuple[ToolResult, tuple[str, dict[str, Any]] | None]:
        raise NotImplementedError

    # -- writes --------------------------------------------------------------------------------------------
    def decide_write(self, raw: str) -> Path:
        """The one place a write or edit is allowed or refused: the session's sandbox mode, the protected places,
        then the path policy. Returns the real path to write."""
        if self._capability(SESSION_SANDBOX_MODE) == READ_ONLY_MODE:
            raise ToolFailure(f"{self.name} refused: this session is read-only (sandbox mode read-only, from "
                              "`--sandbox read-only` or the profile's `sandbox:`), so the model's tools change "
                              f"nothing in the project; {raw} was not written. To allow changes, start the session "
                              "with `--sandbox workspace-write`.")
        path = self.policy.check_write(raw)
        self._refuse_protected_without_a_person(raw, path)
        return path

    def _refuse_protected_without_a_person(self, raw: str, path: Path) -> None:
        """A write to a place that decides what the next session trusts (amplifier_support.protected_paths) needs
        a person: hooks-approval asks one in the chat; with nobody to ask (headless, --approval allow|deny, or no
        app saying a person answers) it is refused here, whatever rules allowed the call."""
        if self._capability(APPROVAL_INTERACTIVE) is True:
            return
        from amplifier_support.protected_paths import protected_place_of

        project = self._capability(SESSION_PROJECT_DIR) or self.policy.working_dir()
        place = protected_place_of(path, project)
        if place is not None:
            raise ToolFailure(f"{self.name} refused: {raw} is in {place.label} ({place.path}), which decides what "
                              "later sessions trust and run; nobody can be asked to approve it in this run. Make "
                              "this change yourself, or ask for it in the chat, where you are asked first.")

    def _capability(self, name: str) -> Any:
        getter = getattr(self.coordinator, "get_capability", None)
        if not callable(getter):
            return None
        try:
            return getter(name)
        except Exception:  # a coordinator without this capability
            return None

    # -- the editor's files (capability editor.files, from `amplifier acp`) ----------------------------------
    def editor_can(self, action: str) -> bool:
        files = self._capability(EDITOR_FILES)
        return isinstance(files, dict) and callable(files.get(action))

    def through_editor(self, action: str, raw: str, *arguments: Any) -> Any:
        """Run the editor's ``read``/``write`` from the tool's worker thread: it sees unsaved buffers and shows
        the edit. Called only after the same path checks as a disk access."""
        files = self._capability(EDITOR_FILES)
        assert self._loop is not None and isinstance(files, dict)
        future = asyncio.run_coroutine_threadsafe(files[action](*arguments), self._loop)
        try:
            return future.result(timeout=EDITOR_TIMEOUT)
        except Exception as error:
            future.cancel()
            verb = "hand over" if action == "read" else "take"
            raise ToolFailure(f"the editor could not {verb} {raw}: {str(error) or type(error).__name__}") from None

    # -- argument helpers ----------------------------------------------------------------------------
    @staticmethod
    def text_argument(input: dict[str, Any], key: str, allow_empty: bool = False) -> str:
        value = input.get(key)
        if not isinstance(value, str) or (not allow_empty and not value):
            raise ToolFailure(f"'{key}' is required and must be a {'string' if allow_empty else 'non-empty string'}"
                              f" (got {value!r}).")
        return value

    @staticmethod
    def int_argument(input: dict[str, Any], key: str, default: int, minimum: int) -> int:
        value = input.get(key)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            else:
                raise ToolFailure(f"'{key}' must be an integer, got {value!r}.")
        if value < minimum:
            raise ToolFailure(f"'{key}' must be at least {minimum}, got {value}.")
        return value


_FILE_PATH = {"type": "string", "description": "Path of the file: absolute, relative to the working directory, "
                                               "or starting with ~."}


class ReadFileTool(FilesystemTool):
    name = "read_file"
    description = (
        "Read a text file with numbered lines (like `cat -n`), or list a directory. Use offset (1-based line) and "
        "limit to read part of a long file. Long lines are cut. Binary files are refused."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "file_path": _FILE_PATH,
            "offset": {"type": "integer", "minimum": 0, "description": "First line to show, 1-based (default 1)."},
            "limit": {"type": "integer", "minimum": 1, "description": "How many lines to show (default 2000)."},
        },
        "required": ["file_path"],
    }

    def run(self, input: dict[str, Any]) -> tuple[ToolResult, tuple[str, dict[str, Any]] | None]:
        raw = self.text_argument(input, "file_path")
        offset = max(self.int_argument(input, "offset", 1, 0), 1)  # 0 means "from the start" too
        limit = self.int_argument(input, "limit", self.limits.default_read_lines, 1)
        path = self.policy.check_read(raw)
        if path.is_dir():
            return ToolResult(success=True, output=self._listing(path)), None
        if not path.exists():
            raise FileNotFoundError(2, "No such file", raw)
        if not path.is_file():
            raise ToolFailure(f"{raw} is not a regular file (it is a device, socket or pipe); read_file reads files.")
        with open_checked(path) as handle:
            size = os.fstat(handle.fileno()).st_size
            if looks_binary(handle):
                raise ToolFailure(f"{raw} is a binary file ({size} bytes); read_file shows text only. Inspect it "
                                  "with bash (for example `file` or `xxd | head`).")
            if self.editor_can("read"):  # what the user sees in the editor, unsaved changes included
                text = self._window(io.BytesIO(self.through_editor("read", raw, str(path)).encode("utf-8")), raw,
                                    offset, limit)
            else:
                text = self._window(handle, raw, offset, limit)
        return ToolResult(success=True, output=text), (ARTIFACT_READ, {"path": str(path), "bytes": size})

    def _window(self, handle: BinaryIO, raw: str, offset: int, limit: int) -> str:
        """Lines ``offset`` .. ``offset + limit - 1``, each read only up to what can be shown; memory is bounded
        by the result, whatever the file's size or line lengths."""
        shown: list[str] = []
        cut_lines = 0
        total = 0
        last = offset + limit - 1
        cap = self.limits.max_line_length
        for total, (head, longer) in enumerate(bounded_lines(handle, cap * 4 + 4), 1):  # UTF-8: <= 4 bytes each
            if total < offset:
                continue
            try:
                text = codecs.getincrementaldecoder("utf-8")().decode(head, final=not longer)
            except UnicodeDecodeError:
                raise ToolFailure(f"{raw} is not UTF-8 text (undecodable bytes on line {total}); inspect "
                                  "it with bash (for example `file` or `iconv`).") from None
            text = text.rstrip("\n").rstrip("\r")
            if longer or len(text) > cap:
                text = text[:cap] + f"... [line cut at {cap} characters]"
                cut_lines += 1
            shown.append(number_line(total, text))
            if total == last:
                total += count_lines(handle)
                break
        if total == 0:
            return f"({raw} is empty)"
        if not shown:
            return f"({raw} has {total} lines; offset {offset} is past the end)"
        notes = []
        if offset + len(shown) - 1 < total:
            notes.append(f"[showing lines {offset}-{offset + len(shown) - 1} of {total}; continue with offset "
                         f"{offset + len(shown)}]")
        if cut_lines:
            notes.append(f"[{cut_lines} long line(s) cut at {self.limits.max_line_length} characters]")
        return "\n".join(shown + notes)

    def _listing(self, path: Path) -> str:
        # the directory is opened by the same no-follow walk as a file, so one swapped for a symlink after
        # the check is refused instead of listing wherever the link points
        fd = open_for_listing(path) if SUPPORTED else None
        try:
            return self._list_entries(path, fd)
        finally:
            if fd is not None:
                os.close(fd)

    def _list_entries(self, path: Path, fd: int | None) -> str:
        entries = []
        with os.scandir(path if fd is None else fd) as scan:
            for entry in scan:
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                entries.append((not is_dir, entry.name, entry))
        entries.sort(key=lambda item: (item[0], item[1]))
        lines = [f"Directory {self.policy.display(path) if path != self.policy.working_dir() else path} "
                 f"({len(entries)} entries):"]
        for _, name, entry in entries[:_MAX_LISTING]:
            if entry.is_symlink():
                try:
                    target = os.readlink(entry.path) if fd is None else os.readlink(name, dir_fd=fd)
                    lines.append(f"LINK {name} -> {target}")
                except OSError:
                    lines.append(f"LINK {name}")
            elif entry.is_dir():
                lines.append(f"DIR  {name}/")
            else:
                try:
                    size = entry.stat().st_size
                except OSError:
                    size = 0
                lines.append(f"FILE {name} ({size} bytes)")
        if len(entries) > _MAX_LISTING:
            lines.append(f"[{len(entries) - _MAX_LISTING} more entries not shown; use glob to narrow down]")
        if not entries:
            lines.append("(empty directory)")
        return "\n".join(lines)


class WriteFileTool(FilesystemTool):
    name = "write_file"
    description = (
        "Create or overwrite a file with the given content (written atomically; parent directories are created; "
        "an existing file keeps its permissions). For a small change to an existing file prefer edit_file."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "file_path": _FILE_PATH,
            "content": {"type": "string", "description": "The complete new content of the file."},
        },
        "required": ["file_path", "content"],
    }

    def run(self, input: dict[str, Any]) -> tuple[ToolResult, tuple[str, dict[str, Any]] | None]:
        raw = self.text_argument(input, "file_path")
        content = self.text_argument(input, "content", allow_empty=True)
        path = self.decide_write(raw)
        data = content.encode("utf-8")
        if len(data) > self.limits.max_file_bytes:
            raise ToolFailure(f"Content is {len(data)} bytes, over the {self.limits.max_file_bytes}-byte limit "
                              "(tool-filesystem max_file_bytes).")
        if path.is_dir():
            raise ToolFailure(f"{raw} is a directory; give a file path.")
        existed = path.exists()
        if existed and not stat.S_ISREG(path.stat().st_mode):
            raise ToolFailure(f"{raw} exists and is not a regular file; write_file only writes regular files.")
        if self.editor_can("write"):
            self.through_editor("write", raw, str(path), content)
        else:
            replace_atomically(path, data)
        lines = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
        verb = "Replaced" if existed else "Created"
        message = f"{verb} {self.policy.display(path)} ({len(data)} bytes, {lines} lines)."
        event = (ARTIFACT_WRITE, {"path": str(path), "bytes": len(data), "action": verb.lower()})
        return ToolResult(success=True, output=message), event


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _to_crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


class EditFileTool(FilesystemTool):
    name = "edit_file"
    description = (
        "Replace an exact string in a file. old_string must match the file exactly (whitespace included) and be "
        "unique, unless replace_all is true; include surrounding lines to make it unique. Line endings of the "
        "file are kept. Returns the edited region with line numbers."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "file_path": _FILE_PATH,
            "old_string": {"type": "string", "description": "The exact text to replace."},
            "new_string": {"type": "string", "description": "The text to put in its place."},
            "replace_all": {"type": "boolean", "description": "Replace every occurrence (default false)."},
        },
        "required": ["file_path", "old_string", "new_string"],
    }

    def run(self, input: dict[str, Any]) -> tuple[ToolResult, tuple[str, dict[str, Any]] | None]:
        raw = self.text_argument(input, "file_path")
        old = input.get("old_string")
        new = input.get("new_string")
        if not isinstance(old, str) or not old:
            raise ToolFailure("'old_string' must be a non-empty string; to create or overwrite a file use write_file.")
        if not isinstance(new, str):
            raise ToolFailure(f"'new_string' must be a string (got {new!r}).")
        if old == new:
            raise ToolFailure("old_string and new_string are identical; nothing to change.")
        replace_all = bool(input.get("replace_all", False))
        path = self.decide_write(raw)
        if not path.is_file():
            if path.exists():
                raise ToolFailure(f"{raw} is not a regular file.")
            raise FileNotFoundError(2, "No such file", raw)
        with open_checked(path) as handle:
            if os.fstat(handle.fileno()).st_size > self.limits.max_file_bytes:
                raise ToolFailure(f"{raw} is larger than {self.limits.max_file_bytes} bytes (tool-filesystem "
                                  "max_file_bytes); edit it with bash tools instead.")
            if looks_binary(handle):
                raise ToolFailure(f"{raw} is a binary file; edit_file edits text only.")
            content = handle.read()
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError:
            raise ToolFailure(f"{raw} is not UTF-8 text; edit_file edits UTF-8 text only.") from None
        if self.editor_can("read"):  # the buffer, unsaved changes included
            text = self.through_editor("read", raw, str(path))

        crlf = text.count("\r\n") * 2 > text.count("\n")
        if crlf:
            new = _to_crlf(new)
            candidates = [_to_crlf(old), old] if "\n" in old else [old]
        else:
            candidates = [old]
        target = next((candidate for candidate in candidates if candidate in text), None)
        if target is None:
            raise ToolFailure(f"old_string was not found in {raw}. It must match exactly, including whitespace and "
                              "indentation; read the file again and copy the text.")
        count = text.count(target)
        if count > 1 and not replace_all:
            lines = []
            start = text.find(target)
            while start >= 0 and len(lines) < 10:
                lines.append(str(_line_of(text, start)))
                start = text.find(target, start + 1)
            raise ToolFailure(f"old_string occurs {count} times in {raw} (lines {', '.join(lines)}). Add "
                              "surrounding lines to make it unique, or set replace_all to replace every one.")
        first = text.find(target)
        updated = text.replace(target, new) if replace_all else text.replace(target, new, 1)
        data = updated.encode("utf-8")
        if self.editor_can("write"):
            self.through_editor("write", raw, str(path), updated)
        else:
            replace_atomically(path, data)
        replaced = count if replace_all else 1
        snippet = self._snippet(updated, first, new)
        more = f" (snippet shows the first of {replaced})" if replaced > 1 else ""
        header = f"Edited {self.policy.display(path)}: replaced {replaced} occurrence{'s' if replaced > 1 else ''}" \
                 f"{more}."
        event = (ARTIFACT_WRITE, {"path": str(path), "bytes": len(data), "action": "edit",
                                    "replacements": replaced})
        return ToolResult(success=True, output=f"{header}\n{snippet}"), event

    @staticmethod
    def _snippet(text: str, start: int, inserted: str) -> str:
        lines = text.split("\n")
        if text.endswith("\n"):
            lines.pop()
        first_line = _line_of(text, start)
        last_line = first_line + max(inserted.count("\n") - (1 if inserted.endswith("\n") else 0), 0)
        low = max(first_line - _SNIPPET_CONTEXT, 1)
        high = min(last_line + _SNIPPET_CONTEXT, len(lines))
        return "\n".join(number_line(number, lines[number - 1].rstrip("\r")) for number in range(low, high + 1))
