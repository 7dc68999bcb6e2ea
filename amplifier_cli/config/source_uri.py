"""Module source URIs: `git+<url>[@ref][#subdirectory=path]`, `file://`, absolute, relative, `~`, package name."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from ..errors import ConfigError


@dataclass(frozen=True)
class GitSource:
    url: str
    ref: str | None = None  # None = the remote's default branch
    subdirectory: str | None = None

    def uri(self) -> str:
        text = f"git+{self.url}"
        if self.ref:
            text += f"@{self.ref}"
        if self.subdirectory:
            text += f"#subdirectory={self.subdirectory}"
        return text


@dataclass(frozen=True)
class PathSource:
    path: Path


@dataclass(frozen=True)
class PackageSource:
    name: str


SourceSpec = GitSource | PathSource | PackageSource


def is_path_like(uri: str) -> bool:
    return uri.startswith(("/", "./", "../", "~", "file://")) or uri in (".", "..") or _is_windows_path(uri)


def _is_windows_path(uri: str) -> bool:
    return len(uri) > 2 and uri[1] == ":" and uri[2] in "\\/"


def parse_source(uri: str, base_dir: Path | None = None) -> SourceSpec:
    """Parse a source URI; relative paths are taken relative to `base_dir` (the declaring file's directory)."""
    uri = uri.strip()
    if not uri:
        raise ConfigError.single("empty module source", fix="use git+URL@ref, a path, or remove the source key")
    if uri.startswith("git+"):
        return _parse_git(uri[4:], uri)
    if uri.startswith("file://"):
        return PathSource(Path(unquote(urlparse(uri).path)))
    if is_path_like(uri):
        path = Path(uri).expanduser()
        if not path.is_absolute():
            path = (base_dir or Path.cwd()) / path
        return PathSource(Path(_normpath(path)))
    return PackageSource(uri)


def normalize_source_uri(uri: str, base_dir: Path | None) -> str:
    """Make relative/`~`/file:// paths absolute (so they mean the same wherever they are read); others unchanged."""
    spec = parse_source(uri, base_dir)
    return str(spec.path) if isinstance(spec, PathSource) else uri


def _normpath(path: Path) -> str:
    import os

    return os.path.normpath(str(path))


def _parse_git(rest: str, original: str) -> GitSource:
    subdirectory = None
    if "#" in rest:
        rest, fragment = rest.split("#", 1)
        for part in fragment.split("&"):
            key, _, value = part.partition("=")
            if key == "subdirectory" and value:
                subdirectory = value.strip("/")
                if ".." in Path(subdirectory).parts:
                    raise ConfigError.single(
                        f"#subdirectory={value} in source {original} must stay inside the repository",
                        fix="give a path relative to the repository root, without '..'",
                    )
            else:
                raise ConfigError.single(
                    f"unsupported fragment '#{fragment}' in source {original}", fix="use #subdirectory=<path>"
                )
    # The ref is an '@' in the path part, so `ssh://git@host/...` user info is not mistaken for one.
    if "://" in rest:
        scheme, after = rest.split("://", 1)
        authority, slash, path = after.partition("/")
        head, path_part = f"{scheme}://{authority}{slash}", path
    elif ":" in rest and not rest.startswith("/"):  # scp-like user@host:path
        authority, _, path = rest.partition(":")
        head, path_part = f"{authority}:", path
    else:
        head, path_part = "", rest
    ref = None
    if "@" in path_part:
        path_part, ref = path_part.split("@", 1)
        if not ref:
            raise ConfigError.single(f"empty ref after '@' in source {original}", fix="write @<branch|tag|commit>")
    url = head + path_part
    if not path_part and not head:
        raise ConfigError.single(f"missing repository URL in source {original}", fix="write git+https://host/repo")
    return GitSource(url=url, ref=ref, subdirectory=subdirectory)
