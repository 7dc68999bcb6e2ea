"""Where a bundle reference points: one file on disk, fetched through the git cache when it is a git URL.

A reference (in `includes:`, `context.include`, `agents.include`, or given to `-P`) is one of:
- `git+URL[@ref][#subdirectory=path]`: cloned once into the git cache; `path` is relative to the repository root;
- a path (`./x.md`, `../x`, `/abs`, `~/x`, `dir/x`): relative to the directory of the file that declares it;
- `namespace:path`: `path` inside the root directory of the bundle whose `bundle.name` is `namespace`;
- a bare name: a bundle already named so in this load, else a profile/bundle found by name (project > user >
  bundled profile directories).

A bundle file is found from a path by trying, in order: the path itself, `path.yaml`, `path.yml`, `path.md`, then
`path/bundle.md`, `path/bundle.yaml`, `path/bundle.yml`.

Namespaces: every bundle registers its `bundle.name` -> its root (the directory holding its file) when it is read,
before its own includes are resolved, so a bundle may include its own parts (`mine:behaviors/x`). A bundle
fetched from git also registers the repository's root bundle (the nearest `bundle.md`/`bundle.yaml` above it
inside the checkout), as upstream does, so a behaviour file can refer to its repository's namespace. The
first bundle to claim a name keeps it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ...config.source_uri import GitSource, is_path_like, parse_source
from ...errors import AmplifierError

BUNDLE_FILE_NAMES = ("bundle.md", "bundle.yaml", "bundle.yml")
BUNDLE_FILE_SUFFIXES = (".yaml", ".yml", ".md")


class ReferenceNotFound(Exception):
    """A reference that leads nowhere; the caller adds the file and key path that hold it."""

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix


@dataclass(frozen=True)
class Namespace:
    root: Path
    file: Path


@dataclass
class ReferenceResolver:
    """Resolves references for one load, and holds the namespaces its bundles registered."""

    fetch_git: Callable[[GitSource], Path]  # checkout root for url@ref (the git cache)
    namespaces: dict[str, Namespace] = field(default_factory=dict)

    def register(self, name: str | None, file: Path) -> None:
        if name and name not in self.namespaces:
            self.namespaces[name] = Namespace(file.parent, file)

    def bundle_file(self, ref: str, base_dir: Path, find_named: Callable[[str], Path | None]) -> tuple[Path, str]:
        """(bundle file, origin) for an include; origin is 'git' or 'include'. Relative paths are relative to
        `base_dir` (the declaring file's directory); `find_named` looks a bare name up in the profile dirs."""
        if ref.startswith("git+"):
            target = self.git_path(ref)
            found = find_bundle_file(target)
            if found is None:
                raise ReferenceNotFound(f"no bundle file at '{ref}'", _candidates_fix(target))
            return found, "git"
        if self._is_path(ref):
            base = self._path(ref, base_dir)
            found = find_bundle_file(base)
            if found is None:
                raise ReferenceNotFound(f"no bundle file at {base}", _candidates_fix(base))
            return found, "include"
        if ":" in ref:
            base = self.namespaced_path(ref)
            found = find_bundle_file(base)
            if found is None:
                raise ReferenceNotFound(f"'{ref}' is not a bundle file in namespace '{ref.split(':', 1)[0]}'",
                                        _candidates_fix(base))
            return found, "include"
        if ref in self.namespaces:
            return self.namespaces[ref].file, "include"
        found = find_named(ref)
        if found is None:
            known = ", ".join(sorted(self.namespaces)) or "none yet"
            raise ReferenceNotFound(
                f"no bundle or profile named '{ref}'",
                f"use a relative path (./{ref}.md), 'namespace:path' (namespaces so far: {known}), a git+ URL, "
                "or put the file in .amplifier/profiles/",
            )
        return found, "include"

    def file(self, ref: str, declaring_file: Path) -> Path:
        """A context or agent file: `namespace:path`, a path, or a bare relative path inside the declaring
        bundle's directory; the file must exist."""
        if ref.startswith("git+"):
            path = self.git_path(ref)
        elif ":" in ref and not self._is_path(ref):
            path = self.namespaced_path(ref)
        else:
            path = self._path(ref if self._is_path(ref) else f"./{ref}", declaring_file.parent)
        if not path.is_file():
            raise ReferenceNotFound(f"file '{ref}' not found ({path})", "check the path, or create the file")
        return path

    def namespaced_path(self, ref: str) -> Path:
        namespace, _, relative = ref.partition(":")
        if namespace not in self.namespaces:
            known = ", ".join(sorted(self.namespaces)) or "none"
            raise ReferenceNotFound(
                f"unknown namespace '{namespace}' in '{ref}' (namespaces known here: {known})",
                f"include the bundle named '{namespace}' before this entry, or use a relative path or git+ URL",
            )
        relative_path = Path(relative)
        if relative_path.is_absolute() or ".." in relative_path.parts:
            raise ReferenceNotFound(f"'{ref}' leaves the bundle '{namespace}'",
                                    "give a path inside the bundle's directory, without '..'")
        return self.namespaces[namespace].root / relative_path

    def git_path(self, ref: str) -> Path:
        try:
            source = parse_source(ref)
            if not isinstance(source, GitSource):
                raise ReferenceNotFound(f"'{ref}' is not a git URL", "write git+https://host/repo@ref")
            root = self.fetch_git(GitSource(source.url, source.ref))
        except AmplifierError as error:
            detail = error.problems[0].message if error.problems else error.message
            raise ReferenceNotFound(f"cannot fetch '{ref}': {detail}",
                                    "check the URL and the @ref, and that the repository is reachable") from error
        target = root / source.subdirectory if source.subdirectory else root
        self._register_repository_root(target, root)
        return target

    def _register_repository_root(self, target: Path, checkout: Path) -> None:
        """Upstream's rule: a bundle inside a repository also sees the namespace of the repository's root bundle."""
        current = target if target.is_dir() else target.parent
        while True:
            for name in ("bundle.md", "bundle.yaml"):
                candidate = current / name
                if candidate.is_file():
                    self.register(read_bundle_name(candidate), candidate)
                    return
            if current == checkout or checkout not in current.parents:
                return
            current = current.parent

    @staticmethod
    def _is_path(ref: str) -> bool:
        """`./x`, `/x`, `~/x`, and also `dir/x` (a slash and no namespace): a name has no slash."""
        return is_path_like(ref) or ("/" in ref and ":" not in ref)

    @staticmethod
    def _path(ref: str, base_dir: Path) -> Path:
        import os

        path = Path(ref.removeprefix("file://")).expanduser()
        return Path(os.path.normpath(path if path.is_absolute() else base_dir / path))


def find_bundle_file(base: Path) -> Path | None:
    candidates = [base, *(base.with_name(base.name + suffix) for suffix in BUNDLE_FILE_SUFFIXES)]
    candidates += [base / name for name in BUNDLE_FILE_NAMES]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    return None


def read_bundle_name(path: Path) -> str | None:
    """`bundle.name` of a file, or None when it has none or cannot be read (the full read reports errors)."""
    from ...config.yaml_document import load_yaml_document
    from ...errors import ConfigError

    try:
        data = load_yaml_document(path).data
    except ConfigError:
        return None
    meta = data.get("bundle") if isinstance(data, dict) else None
    name = meta.get("name") if isinstance(meta, dict) else None
    return name if isinstance(name, str) and name else None


def _candidates_fix(base: Path) -> str:
    return (f"create {base.name}.md or {base.name}.yaml there, or {base.name}/bundle.md, or fix the reference")
