"""Importing a module from a path under its real name: the one canonical module object that the loader mounts
and the validators inspect (as 2.0.2: validating never makes a second copy).

Its own file because both the loader and validation need it, and validation sits above the loader.
"""

from __future__ import annotations

import importlib
import sys
import threading
from pathlib import Path
from types import ModuleType

__all__ = ["SourceConflictError", "import_module_from_path"]

_PATH_IMPORT_LOCK = threading.RLock()  # one path import at a time (they move sys.path around)


class SourceConflictError(ImportError):
    """A package of that import name (or one of its submodules) is already imported from another source."""


def import_module_from_path(module_path: str | Path) -> ModuleType:
    """Import the module at ``module_path`` (a package directory or a ``.py`` file) under its real name, the
    way the loader will, and return that canonical module object.

    Refuses (ImportError) rather than replace anything when a module or submodule of that name is already
    imported from somewhere else. The parent directory is put first on sys.path for the import only (back
    where it was afterwards). Path imports are serialised by a lock of ours, never the interpreter's global
    import lock: holding that across an import deadlocks with any other thread mid-import (the REPL warm-up,
    the provider SDK imported in the background).
    """
    path = Path(module_path)
    source = (path / "__init__.py") if path.is_dir() else path
    name = path.name if path.is_dir() else path.stem
    existing = sys.modules.get(name)
    if existing is not None and getattr(existing, "__file__", None) == str(source):
        return existing  # already the canonical module (every later session's mount): no scan, no lock
    package_root = source.parent.resolve()
    parent_entry = str(path.parent if path.is_dir() else source.parent)
    with _PATH_IMPORT_LOCK:
        for cached_name, cached in list(sys.modules.items()):
            if not cached_name.startswith(name + "."):
                continue
            cached_file = getattr(cached, "__file__", None)
            if cached_file is None or not Path(cached_file).resolve().is_relative_to(package_root):
                raise SourceConflictError(f"Refusing to import '{name}' from {source}: cached submodule "
                                          f"'{cached_name}' is from {cached_file}")
        existing = sys.modules.get(name)
        if existing is not None:
            existing_file = getattr(existing, "__file__", None)
            if existing_file is not None and Path(existing_file).resolve() == source.resolve():
                return existing
            raise SourceConflictError(f"Refusing to import '{name}' from {source}: it is already loaded from "
                                      f"{existing_file}")
        was_present = parent_entry in sys.path
        follower = None
        if was_present:
            index = sys.path.index(parent_entry)
            follower = sys.path[index + 1] if index + 1 < len(sys.path) else None
            del sys.path[index]
        sys.path.insert(0, parent_entry)
        try:
            module = importlib.import_module(name)
        finally:
            _restore_path_entry(parent_entry, was_present, follower)
    imported_file = getattr(module, "__file__", None)
    if imported_file is None or Path(imported_file).resolve() != source.resolve():
        raise SourceConflictError(f"Refusing to validate '{name}' from {source}: Python imported {imported_file}")
    return module


def _restore_path_entry(entry: str, was_present: bool, follower: str | None) -> None:
    """Take the entry put first for an import off sys.path again (matched by value: the imported code may
    have rebuilt sys.path); when it was there before, put it back in front of the entry it preceded."""
    for index, value in enumerate(sys.path):
        if value == entry:
            del sys.path[index]
            break
    if was_present:
        if follower is not None and follower in sys.path:
            sys.path.insert(sys.path.index(follower), entry)
        else:
            sys.path.append(entry)
