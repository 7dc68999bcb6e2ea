"""tool-filesystem: read_file, write_file, edit_file, glob and grep, confined to allowed paths.

Reads and writes are allowed under the working directory by default (``allowed_read_paths`` /
``allowed_write_paths`` widen or narrow that), never inside ``denied_paths`` (secrets such as ~/.ssh), and
always judged on the fully resolved real path, so ``..``, symlinks and ``~`` cannot escape.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import Field

from amplifier_core.module_config import ModuleConfig, parse_module_config
from amplifier_support.capability_names import FILESYSTEM_READ_ROOTS, SESSION_WORKING_DIR

from .file_tools import EditFileTool, FileLimits, FilesystemTool, ReadFileTool, WriteFileTool
from .path_policy import DEFAULT_DENIED_PATHS, PathDenied, PathPolicy
from .search_tools import DEFAULT_EXCLUDED_DIRS, GlobTool, GrepTool, SearchLimits

__amplifier_module_type__ = "tool"
__all__ = ["EditFileTool", "FilesystemConfig", "GlobTool", "GrepTool", "PathDenied", "PathPolicy", "ReadFileTool",
           "WriteFileTool", "build_tools", "mount"]

MODULE_ID = "tool-filesystem"


class FilesystemConfig(ModuleConfig):
    working_dir: str | None = None
    allowed_read_paths: list[str] | None = None
    allowed_write_paths: list[str] | None = None
    denied_paths: list[str] = Field(default_factory=lambda: list(DEFAULT_DENIED_PATHS))
    extra_denied_paths: list[str] = Field(default_factory=list)  # added to denied_paths (keeps the default list)
    max_file_bytes: int = Field(default=10 * 1024 * 1024, ge=1)
    max_line_length: int = Field(default=2000, ge=80)
    default_read_lines: int = Field(default=2000, ge=1)
    max_glob_results: int = Field(default=500, ge=1)
    max_grep_results: int = Field(default=500, ge=1)
    max_grep_file_bytes: int = Field(default=10 * 1024 * 1024, ge=1)
    excluded_dirs: list[str] = Field(default_factory=lambda: list(DEFAULT_EXCLUDED_DIRS))


def _working_dir_source(config: FilesystemConfig, coordinator: Any) -> Any:
    """A callable giving the working directory now: config, else capability ``session.working_dir``, else cwd."""

    def working_dir() -> Path:
        base: Any = None
        if coordinator is not None:
            try:
                base = coordinator.get_capability(SESSION_WORKING_DIR)
            except Exception:  # a coordinator without capabilities
                base = None
        base_path = Path(str(base)) if base else Path(os.getcwd())
        if config.working_dir:
            return base_path / os.path.expanduser(config.working_dir)
        return base_path

    return working_dir


def _extra_read_roots(coordinator: Any) -> Any:
    """Directories other modules open for reading (capability ``filesystem.read_roots``: tool-skills' skill
    folders, so a skill's files can be read wherever the user keeps their skills)."""
    if coordinator is None:
        return None

    def roots() -> list[str]:
        try:
            value = coordinator.get_capability(FILESYSTEM_READ_ROOTS)
        except Exception:  # a coordinator without capabilities
            return []
        return [str(item) for item in value] if isinstance(value, list | tuple) else []

    return roots


def build_tools(config: FilesystemConfig, coordinator: Any = None) -> list[FilesystemTool]:
    """The five tools sharing one path policy (useful to embed them without a coordinator)."""
    policy = PathPolicy(
        working_dir=_working_dir_source(config, coordinator),
        read_roots=config.allowed_read_paths,
        write_roots=config.allowed_write_paths,
        denied=(*config.denied_paths, *config.extra_denied_paths),
        extra_read_roots=_extra_read_roots(coordinator),
    )
    limits = FileLimits(default_read_lines=config.default_read_lines, max_line_length=config.max_line_length,
                        max_file_bytes=config.max_file_bytes)
    search = SearchLimits(max_glob_results=config.max_glob_results, max_grep_results=config.max_grep_results,
                          max_grep_file_bytes=config.max_grep_file_bytes, max_line_length=config.max_line_length,
                          excluded_dirs=tuple(config.excluded_dirs))
    return [
        ReadFileTool(policy, limits, coordinator),
        WriteFileTool(policy, limits, coordinator),
        EditFileTool(policy, limits, coordinator),
        GlobTool(policy, limits, coordinator, search_limits=search),
        GrepTool(policy, limits, coordinator, search_limits=search),
    ]


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> None:
    """Mount read_file, write_file, edit_file, glob and grep. Nothing to clean up."""
    parsed = parse_module_config(FilesystemConfig, config, MODULE_ID)
    for tool in build_tools(parsed, coordinator):
        await coordinator.mount("tools", tool, name=tool.name)
    return None
