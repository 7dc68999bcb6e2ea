"""A meta-path finder for the submodules of a provider SDK, answering while that SDK is imported in the
background (`sdk_imports`).

`import anthropic` loads about 3,000 of the SDK's own modules, and the standard machinery spends about 44 µs
on each besides running it: the FileFinder probes every suffix, joins paths, computes the pyc path twice, goes
through several layers of loader methods. This finder answers for the submodules of the given packages from one
``os.scandir`` listing per directory, and its loader reads and checks the timestamp pyc itself. The result is
the same modules with the same attributes (``__file__``, ``__cached__``, ``__path__``, ``__spec__``) and a
standard loader class (a `SourceFileLoader` subclass), so `inspect.getsource`, `importlib.resources` and
`importlib.reload` behave as usual.

Whenever anything is out of the ordinary the finder answers None and the standard finders decide exactly as
they would without it: an extension module or a sourceless pyc competing for the name, a directory without
``__init__.py`` (a namespace portion), no ``.py`` source, ``sys.pycache_prefix``, ``-O``, ``-v``, a path entry
that is not a readable absolute directory (a zip file), a custom path hook or path importer for directories,
a non-POSIX platform. A ``path`` of several directories is searched in order, as the standard finder does:
the first directory holding the name decides, and one that holds it unusually means None.

Listings are kept while the finder answers for a package (one SDK import), not revalidated by mtime as the
FileFinder's are; `stop_answering` and `importlib.invalidate_caches()` clear them. Two threads may list the
same directory twice, nothing worse. The SDK's subdirectories get no ``sys.path_importer_cache`` entries while
the finder answers for them (the standard finder adds them when next asked). The loader falls back to the
standard `get_code` (recompile, and write the pyc unless bytecode writing is off) for a missing, stale or
hash-based pyc.
"""

from __future__ import annotations

import _imp
import io
import marshal
import os
import sys
import threading
import types
import zipimport
from collections.abc import Iterable, Sequence
from importlib.machinery import (
    BYTECODE_SUFFIXES,
    EXTENSION_SUFFIXES,
    SOURCE_SUFFIXES,
    ExtensionFileLoader,
    FileFinder,
    ModuleSpec,
    SourceFileLoader,
    SourcelessFileLoader,
)
from importlib.util import MAGIC_NUMBER

_TIMESTAMP_FLAGS = b"\x00\x00\x00\x00"
# Every suffix the standard FileFinder looks for besides ".py": any of them beside a name means None.
_OTHER_SUFFIXES = tuple(EXTENSION_SUFFIXES) + tuple(BYTECODE_SUFFIXES)
_INIT_OTHERS = tuple("__init__" + suffix for suffix in _OTHER_SUFFIXES)
_NOT_CACHED = object()
_FILE_FINDER_HOOK = "FileFinder.path_hook.<locals>.path_hook_for_FileFinder"


class SDKSourceLoader(SourceFileLoader):
    """A `SourceFileLoader` that checks the timestamp pyc beside the source itself (magic number, flags,
    source mtime and size, as PEP 552 defines them) instead of through the standard layers."""

    def __init__(self, fullname: str, path: str, bytecode_path: str) -> None:
        super().__init__(fullname, path)
        self.bytecode_path = bytecode_path

    def get_code(self, fullname: str) -> types.CodeType | None:
        if fullname == self.name:
            try:
                source = os.stat(self.path)
                with io.open_code(self.bytecode_path) as file:  # open_code: audit hooks see the read
                    data = file.read()
            except OSError:
                data = b""
            if (len(data) >= 16 and data[:4] == MAGIC_NUMBER and data[4:8] == _TIMESTAMP_FLAGS
                    and int.from_bytes(data[8:12], "little") == int(source.st_mtime) & 0xFFFFFFFF
                    and int.from_bytes(data[12:16], "little") == source.st_size & 0xFFFFFFFF):
                try:
                    code = marshal.loads(memoryview(data)[16:])
                except (EOFError, ValueError, TypeError):
                    code = None
                if isinstance(code, types.CodeType):
                    # as the standard loader does for a moved tree; typeshed lacks this CPython helper
                    _imp._fix_co_filename(code, self.path)  # type: ignore[attr-defined]
                    return code
        return super().get_code(fullname)


def _directories_use_the_standard_file_finder() -> bool:
    """True when the first path hook that takes a directory is the interpreter's FileFinder hook with the
    default loaders (a hook before it, such as the zip importer, only takes what is not a directory)."""
    default = [(ExtensionFileLoader, list(EXTENSION_SUFFIXES)), (SourceFileLoader, list(SOURCE_SUFFIXES)),
               (SourcelessFileLoader, list(BYTECODE_SUFFIXES))]
    for hook in sys.path_hooks:
        if hook is zipimport.zipimporter:
            continue
        code = getattr(hook, "__code__", None)
        if code is None or getattr(hook, "__qualname__", "") != _FILE_FINDER_HOOK:
            return False
        cells = dict(zip(code.co_freevars, [cell.cell_contents for cell in hook.__closure__ or ()], strict=True))
        details = cells.get("loader_details", ())
        return cells.get("cls") is FileFinder and [(loader, list(suffixes)) for loader, suffixes in details] == default
    return False


class SDKFinder:
    """Finds the submodules (never the top-level package) of ``packages`` with `SDKSourceLoader`.

    Meant to be put at the front of ``sys.meta_path`` once and left there, answering only while a package is
    in ``packages`` (`answer_for` / `stop_answering`): taking a finder out of ``sys.meta_path`` while another
    thread's import walks the list shifts it under that walk, which can then skip the next finder (PathFinder
    included) and fail to find a module that is there. Putting one in front only makes a walk ask a finder
    twice. Leaving it costs one call per later import that returns None at once."""

    def __init__(self, packages: Iterable[str] = ()) -> None:
        self.packages = frozenset(packages)
        self._packages_lock = threading.Lock()
        self._listings: dict[str, dict[str, os.DirEntry[str]] | None] = {}
        self._usable = (os.name == "posix" and sys.implementation.cache_tag is not None
                        and _directories_use_the_standard_file_finder()
                        and not (sys.platform.startswith(("cygwin", "darwin")) and not sys.flags.ignore_environment
                                 and "PYTHONCASEOK" in os.environ))

    def answer_for(self, package: str) -> None:
        with self._packages_lock:
            self.packages = self.packages | {package}

    def stop_answering(self, package: str) -> None:
        with self._packages_lock:
            self.packages = self.packages - {package}
        self.invalidate_caches()  # the listings were for that import only

    def invalidate_caches(self) -> None:
        self._listings = {}

    def _listing(self, directory: str) -> dict[str, os.DirEntry[str]] | None:
        """The directory's entries by name; None when it cannot be listed (missing, unreadable, a file)."""
        try:
            return self._listings[directory]
        except KeyError:
            pass
        try:
            with os.scandir(directory) as entries:
                listing: dict[str, os.DirEntry[str]] | None = {entry.name: entry for entry in entries}
        except OSError:
            listing = None
        self._listings[directory] = listing
        return listing

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: types.ModuleType | None = None) -> ModuleSpec | None:
        if path is None or fullname.partition(".")[0] not in self.packages:
            return None
        if not self._usable or sys.pycache_prefix is not None or sys.flags.optimize or sys.flags.verbose:
            return None
        name = fullname.rpartition(".")[2]
        try:
            for directory in path:
                if not isinstance(directory, str) or not directory.startswith("/"):
                    return None
                importer = sys.path_importer_cache.get(directory, _NOT_CACHED)
                if importer is not _NOT_CACHED and type(importer) is not FileFinder:
                    return None  # another path importer, or None (the standard finder skips the entry)
                directory = directory.rstrip("/")
                listing = self._listing(directory)
                if listing is None:
                    return None
                entry = listing.get(name)
                if entry is not None and entry.is_dir():
                    package_dir = f"{directory}/{name}"
                    inner = self._listing(package_dir)
                    init = inner.get("__init__.py") if inner is not None else None
                    if (inner is None or init is None or not init.is_file()
                            or any(other in inner for other in _INIT_OTHERS)):
                        return None  # a namespace portion, a compiled or sourceless __init__, unreadable
                    return self._spec(fullname, package_dir, "__init__", package_dir)
                if any(name + suffix in listing for suffix in _OTHER_SUFFIXES):
                    return None
                source = listing.get(name + ".py")
                if source is not None:
                    return self._spec(fullname, directory, name, None) if source.is_file() else None
        except OSError:  # DirEntry.is_dir()/is_file() of an entry that cannot be stat'ed
            return None
        return None

    def _spec(self, fullname: str, directory: str, stem: str, package_dir: str | None) -> ModuleSpec:
        """The spec `importlib.util.spec_from_file_location` would build for ``directory/stem.py``."""
        origin = f"{directory}/{stem}.py"
        cached = f"{directory}/__pycache__/{stem}.{sys.implementation.cache_tag}.pyc"
        spec = ModuleSpec(fullname, SDKSourceLoader(fullname, origin, cached), origin=origin)
        spec.has_location = True
        spec.cached = cached
        if package_dir is not None:
            spec.submodule_search_locations = [package_dir]
        return spec
