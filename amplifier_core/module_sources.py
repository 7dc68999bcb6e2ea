"""How the loader asks the app where a module lives. The names deliberately shadow the builtin
``ModuleNotFoundError`` and are not ImportError subclasses, as upstream."""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, Protocol


class ModuleNotFoundError(Exception):  # upstream name, shadows the builtin on purpose
    """No layer of the resolver knows the module; the loader then falls back to installed packages."""


class ModuleLoadError(Exception):
    """The module was found but cannot be made importable (bad ref, failed fetch, missing dependency)."""


class ModuleSource(ABC):
    @abstractmethod
    def resolve(self) -> Path:
        """Return a directory the module can be imported from; raise ModuleNotFoundError on failure."""


class ModuleSourceResolver(Protocol):
    def resolve(self, module_id: str, source_hint: Any = None, profile_hint: Any = None) -> ModuleSource: ...


class FileSystemModuleSource:
    """Module search paths plus @mention mappings, behind public getters so callers need not reach into
    private attributes of whatever source object an app hands them."""

    def __init__(self, paths: list[str] | None = None) -> None:
        self._paths: list[str] = list(paths) if paths else []
        self._bundle_mappings: dict[str, str] = {}

    def get_module_paths(self) -> list[str]:
        """The configured search paths (a copy)."""
        return list(self._paths)

    def get_mention_mappings(self) -> dict[str, str]:
        """Mention -> path mappings (a copy); empty when the source has none."""
        return dict(self._bundle_mappings)
