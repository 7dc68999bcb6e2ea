"""Choosing the profile or bundle sessions use (`profile use`, `bundle use|add`): the choice is loaded and
checked as `run` would check it, so a wrong one fails here and not at the next run, then written to settings."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from ..config.bundle_settings import normalize_bundle_uri
from ..config.paths import AmplifierPaths
from ..config.settings import Scope, load_settings, update_scope, writable_scope_path
from ..errors import UsageError
from .profile_listing import validate_profile
from .profiles.loader import load_profile


def use_profile(name: str, scope: Scope, paths: AmplifierPaths | None = None) -> Any:
    paths = paths or AmplifierPaths.discover()
    from ..errors import ConfigError, Problem

    writable_scope_path(paths, scope)
    try:
        settings = load_settings(paths)
    except ConfigError as error:  # `run` would stop on these files whichever profile is chosen: fix them first
        fix = "correct this settings file first: no profile can run while it is invalid"
        problems = [replace(problem, fix=problem.fix or fix) for problem in error.problems]
        raise ConfigError(error.message, problems or [Problem(error.message, fix=fix)]) from None
    validate_profile(name, settings)  # as `run` would: never make a profile active that cannot run
    profile = load_profile(name, paths)
    return update_scope(paths, scope, ("profile", "active"), profile.name)


def _paths(paths: AmplifierPaths | None) -> AmplifierPaths:
    return paths or AmplifierPaths.discover()


def use_bundle(name: str, scope: Scope, paths: AmplifierPaths | None = None) -> Path:
    """Load (so a wrong name fails here, not at the next run), then write `bundle.active` at the scope."""
    paths = _paths(paths)
    writable_scope_path(paths, scope)
    settings = load_settings(paths)
    load_profile(settings.bundle_reference(name), paths)
    return update_scope(paths, scope, ("bundle", "active"), name)


def add_bundle(uri: str, alias: str | None, scope: Scope, paths: AmplifierPaths | None = None) -> tuple[str, Path]:
    """Register a bundle's path or git URL under its `bundle.name` (or `alias`); loaded first to check it."""
    paths = _paths(paths)
    writable_scope_path(paths, scope)
    target = normalize_bundle_uri(uri, paths.cwd)
    loaded = load_profile(target, paths)
    name = alias or _bundle_name(loaded) or Path(target.split("#")[0].split("@")[0]).stem
    if not name or "/" in name or ":" in name:
        raise UsageError.single(f"cannot derive a plain name for {uri}", fix="give one with --name NAME")
    return name, update_scope(paths, scope, ("bundle", "added", name), target)


def _bundle_name(loaded: Any) -> str | None:
    from ..config.yaml_document import load_yaml_document

    data = load_yaml_document(loaded.location.path).data
    meta = (data.get("bundle") or data.get("profile") or {}) if isinstance(data, dict) else {}
    return meta.get("name") if isinstance(meta, dict) else None
