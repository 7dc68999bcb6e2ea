"""User-facing error types. Each carries where the problem is and how to fix it, and maps to an exit code
(2 = configuration or usage, 1 = runtime), so commands never format exceptions themselves."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Problem:
    """One thing wrong in one place: rendered as `file:line: key.path: message (fix: ...)`."""

    message: str
    file: Path | str | None = None
    line: int | None = None
    key_path: str | None = None
    fix: str | None = None

    def render(self) -> str:
        where = ""
        if self.file is not None:
            where = str(self.file)
            if self.line is not None:
                where += f":{self.line}"
            where += ": "
        key = f"{self.key_path}: " if self.key_path else ""
        fix = f" (fix: {self.fix})" if self.fix else ""
        return f"{where}{key}{self.message}{fix}"


class AmplifierError(Exception):
    """Base of every error the CLI reports without a traceback."""

    exit_code = 1

    def __init__(self, message: str, problems: list[Problem] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.problems = list(problems or [])

    def render(self) -> str:
        if not self.problems:
            return self.message
        if len(self.problems) == 1 and self.message == self.problems[0].message:
            return self.problems[0].render()
        return "\n".join([self.message, *(f"  - {p.render()}" for p in self.problems)])


class ConfigError(AmplifierError):
    """Bad settings, profile, mount plan or module source: the user must edit something (exit 2)."""

    exit_code = 2

    @classmethod
    def single(
        cls,
        message: str,
        *,
        file: Path | str | None = None,
        line: int | None = None,
        key_path: str | None = None,
        fix: str | None = None,
    ) -> ConfigError:
        return cls(message, [Problem(message, file=file, line=line, key_path=key_path, fix=fix)])


class UsageError(ConfigError):
    """A command was called wrongly (unknown name, bad option combination); exit 2."""


class RuntimeFailure(AmplifierError):
    """Something failed while doing the work (git fetch, validation run); exit 1."""

    exit_code = 1


def report_failure(error: AmplifierError | OSError, *, verbose: bool = False) -> int:
    """Say on stderr how a command failed and return its exit code; a traceback only with ``verbose``.

    Shared by the Typer group and the typer-free start of `amplifier run`, so both end alike: an
    AmplifierError is its message and code; a reader of our stdout that went away (`| head`) is silence and 1,
    with stdout pointed at /dev/null so the interpreter's final flush cannot fail again; any other OSError is
    the file or directory we could not use, and 1.
    """
    import sys

    if isinstance(error, BrokenPipeError):
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    if verbose:
        import traceback

        traceback.print_exception(error, file=sys.stderr)
    if isinstance(error, AmplifierError):
        sys.stderr.write(f"Error: {error.render()}\n")
        return error.exit_code
    where = f"{error.filename}: " if error.filename else ""
    sys.stderr.write(
        f"Error: {where}{error.strerror or error} (fix: check that the path exists, is writable and the disk "
        "has space; --verbose shows where it happened)\n"
    )
    return 1
