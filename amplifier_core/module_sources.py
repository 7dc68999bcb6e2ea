"""How the loader asks the app where a module lives. The names deliberately shadow the builtin
``ModuleNotFoundError`` and are not ImportError subclasses, as upstream."""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, Protocol, runtime_checkable


class ModuleNotFoundError(Exception):  # upstream name, shadows the builtin on purpose
    """No layer of the resolver knows the module; the loader then falls back to installed packages."""


class ModuleLoadError(Exception):
    """The module was found but cannot be made importable (bad ref, failed fetch, missing dependency)."""


class ModuleSource(ABC):
    @abstractmethod
    def resolve(self) -> Path:
        """Return a directory the module can be imported from; raise ModuleNotFoundError on failure."""


@runtime_checkable
class ModuleSourceResolver(Protocol):
    def resolve(self, module_id: str, source_hint: Any = None, profile_hint: Any = None) -> ModuleSource: ...
