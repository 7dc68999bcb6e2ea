"""The layered ModuleSourceResolver mounted at `module-source-resolver`.

Layers, first hit wins: env `AMPLIFIER_MODULE_<ID>` -> workspace `.amplifier/modules/<id>/` -> settings
`sources.<id>` -> the plan's `source:` hint -> installed packages (entry points `amplifier.modules`).
A returned path makes the kernel import the module from there, even if a package with that id is installed.

One exception in the plan layer: upstream's bundles name each module by its canonical repository
(`git+https://github.com/microsoft/amplifier-module-<id>@...`). For an id amplifier bundles, that hint means
"this module", and the bundled implementation answers (no clone, works offline). To run upstream's own code
anyway, name it where the user decides: `amplifier source add <id> <url>` or `AMPLIFIER_MODULE_<ID>`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from amplifier_core.module_ids import PACKAGE_PREFIX, package_name
from amplifier_core.module_manifest import MANIFEST_FILE
from amplifier_core.module_sources import ModuleLoadError, ModuleNotFoundError, ModuleSource

from ...config.source_uri import GitSource, PackageSource, PathSource, SourceSpec, parse_source
from ...errors import AmplifierError
from .dependencies import check_module_dependencies
from .git_cache import GitCache

LAYERS = ("env", "workspace", "settings", "plan", "package")
BUNDLING_DISTRIBUTION = "amplifier"  # the distribution whose entry points are the bundled modules
_UPSTREAM_MODULE_REPO = re.compile(
    r"git\+https://github\.com/microsoft/amplifier-module-(?P<id>[A-Za-z0-9_-]+?)(?:\.git)?/?(?:@[^#]*)?(?:#.*)?")


def env_var_name(module_id: str) -> str:
    return "AMPLIFIER_MODULE_" + module_id.upper().replace("-", "_")


@dataclass(frozen=True)
class LayerAnswer:
    """What one layer said about a module: `found` with a location, or why not."""

    layer: str
    found: bool
    detail: str


class ResolvedModuleSource(ModuleSource):
    """A source chosen by a layer; `resolve()` does the work (clone, checks) lazily and returns the directory."""

    def __init__(self, module_id: str, layer: str, spec: SourceSpec, cache: GitCache, uri: str) -> None:
        self.module_id = module_id
        self.layer = layer
        self.spec = spec
        self.uri = uri
        self._cache = cache

    def resolve(self) -> Path:
        try:
            if isinstance(self.spec, GitSource):
                directory = self._cache.ensure(self.spec, self.module_id)
            elif isinstance(self.spec, PathSource):
                directory = module_dir_from_path(self.module_id, self.spec.path, self.layer)
            else:
                directory = installed_package_dir(self.module_id, self.spec.name)
        except AmplifierError as exc:
            raise ModuleLoadError(f"module '{self.module_id}' ({self.layer}: {self.uri}): {exc.render()}") from exc
        check_module_dependencies(self.module_id, directory)
        return directory

    def __repr__(self) -> str:
        return f"ResolvedModuleSource({self.module_id!r}, layer={self.layer!r}, uri={self.uri!r})"


class LayeredModuleResolver:
    """Implements the kernel's ModuleSourceResolver protocol (`resolve(module_id, source_hint, profile_hint)`)."""

    def __init__(
        self,
        *,
        git_cache: GitCache,
        settings_sources: Mapping[str, str] | None = None,
        workspace_dir: Path | None = None,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.git_cache = git_cache
        self.settings_sources = dict(settings_sources or {})
        self.workspace_dir = workspace_dir
        self.env = os.environ if env is None else env
        self.cwd = cwd or Path.cwd()

    def resolve(self, module_id: str, source_hint: Any = None, profile_hint: Any = None) -> ResolvedModuleSource:
        hint = source_hint if source_hint is not None else profile_hint
        answers = []
        for layer in LAYERS:
            answer, source = self._ask(layer, module_id, hint)
            answers.append(answer)
            if source is not None:
                return source
        raise ModuleNotFoundError(not_found_message(module_id, answers))

    def explain(self, module_id: str, source_hint: Any = None) -> list[LayerAnswer]:
        """Every layer's answer (not just the winner), for `amplifier source show`."""
        return [self._ask(layer, module_id, source_hint)[0] for layer in LAYERS]

    def _ask(self, layer: str, module_id: str, hint: Any) -> tuple[LayerAnswer, ResolvedModuleSource | None]:
        uri: str | None = None
        base: Path | None = self.cwd
        if layer == "env":
            name = env_var_name(module_id)
            uri = self.env.get(name) or None
            if uri is None:
                return LayerAnswer(layer, False, f"{name} not set"), None
        elif layer == "workspace":
            if self.workspace_dir is None:
                return LayerAnswer(layer, False, "no project directory"), None
            candidate = self.workspace_dir / module_id
            if not candidate.is_dir():
                return LayerAnswer(layer, False, f"{candidate} does not exist"), None
            if not any(candidate.rglob("*.py")) and not (candidate / MANIFEST_FILE).is_file() \
                    and not any(candidate.glob("*.wasm")):
                return LayerAnswer(layer, False, f"{candidate} holds no Python files nor an {MANIFEST_FILE} "
                                   "(uninitialised submodule?)"), None
            uri = str(candidate)
        elif layer == "settings":
            uri = self.settings_sources.get(module_id)
            if uri is None:
                return LayerAnswer(layer, False, f"no sources.{module_id} in settings"), None
        elif layer == "plan":
            if not hint:
                return LayerAnswer(layer, False, "the plan gives no source"), None
            if not isinstance(hint, str):
                from ..mount_plan import source_object_to_uri

                hint = source_object_to_uri(hint)
            uri = hint
            if upstream_repo_of_bundled(module_id, uri):
                return LayerAnswer(layer, False, f"{uri} is upstream's repository of a module amplifier bundles: "
                                   "the bundled one is used (set sources.<id> to fetch it)"), None
        else:
            location = installed_entry_point(module_id)
            if location is None:
                return LayerAnswer(layer, False, f"no installed entry point '{module_id}' in amplifier.modules"), None
            uri = location
            spec: SourceSpec = PackageSource(location)
            return LayerAnswer(layer, True, f"entry point -> {location}"), ResolvedModuleSource(
                module_id, layer, spec, self.git_cache, uri
            )
        try:
            spec = parse_source(uri, base)
        except AmplifierError as exc:
            return LayerAnswer(layer, False, f"invalid source {uri!r}: {exc.render()}"), None
        return LayerAnswer(layer, True, uri), ResolvedModuleSource(module_id, layer, spec, self.git_cache, uri)


def upstream_repo_of_bundled(module_id: str, uri: str) -> bool:
    """`uri` is upstream's canonical repository of `module_id`, and amplifier itself provides that module."""
    match = _UPSTREAM_MODULE_REPO.fullmatch(uri.strip())
    if match is None or match.group("id") != module_id:
        return False
    from amplifier_core.loader import installed_entry_point as kernel_entry_point

    entry = kernel_entry_point(module_id)
    distribution = getattr(getattr(entry, "dist", None), "name", None)
    return distribution == BUNDLING_DISTRIBUTION


def not_found_message(module_id: str, answers: list[LayerAnswer]) -> str:
    lines = [f"Module '{module_id}' not found. Each place that was checked:"]
    lines += [f"  {answer.layer:<10} {answer.detail}" for answer in answers]
    lines.append(
        f"Fix: add 'source: <git+URL@ref | path>' to the module entry, run "
        f"'amplifier source add {module_id} <URI>', or install a package providing it."
    )
    return "\n".join(lines)


def module_dir_from_path(module_id: str, path: Path, layer: str) -> Path:
    """The directory to import from: the given dir, or its parent when it *is* the package dir."""
    if not path.exists():
        raise ModuleLoadError(f"module '{module_id}' ({layer}): path {path} does not exist")
    if not path.is_dir():
        raise ModuleLoadError(f"module '{module_id}' ({layer}): {path} is not a directory")
    if path.name == package_name(module_id) and (path / "__init__.py").is_file():
        return path.parent
    if not (path / package_name(module_id) / "__init__.py").is_file() and not any(path.glob(PACKAGE_PREFIX + "*")):
        if (path / MANIFEST_FILE).is_file() or any(path.glob("*.wasm")):
            return path  # a module in another language (amplifier.toml: gRPC, native, WASM); the loader reads it
        raise ModuleLoadError(
            f"module '{module_id}' ({layer}): {path} has no package {package_name(module_id)}/__init__.py "
            f"(nor an {MANIFEST_FILE} for a gRPC, native or WASM module)"
        )
    return path


def installed_entry_point(module_id: str) -> str | None:
    """`package:attr` of the installed entry point for this id, without importing it (the kernel's cached
    scan of installed distributions: scanning them again per module cost ~10 ms each)."""
    from amplifier_core.loader import installed_entry_point as kernel_entry_point

    entry = kernel_entry_point(module_id)
    return entry.value if entry is not None else None


def installed_package_dir(module_id: str, name: str) -> Path:
    """Directory holding an installed top-level package (found by spec, never imported)."""
    import importlib.util

    top = name.split(":", 1)[0].split(".", 1)[0].strip()
    if "-" in top:  # a distribution name like amplifier-module-tool-x
        top = top.replace("-", "_")
    spec = importlib.util.find_spec(top)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleLoadError(f"module '{module_id}': installed package '{top}' cannot be located")
    return Path(next(iter(spec.submodule_search_locations))).parent
