"""Routing matrices in upstream Amplifier's format (`name`, `description`, `updated`, `roles: {role:
{description, candidates: [{provider, model, config?}]}}`), found in the user's `<config dir>/routing/` then
the bundled ones; settings `routing.matrix` chooses one and `routing.overrides` replaces a role's candidates
(`base` in an override list stands for the matrix's own candidates at that place). A role resolves to the first
candidate whose provider the session mounts; a glob model (`claude-sonnet-*`) is matched, as upstream does,
against the models that provider lists (`provider models`), highest version first, and a candidate whose glob
matches none of them is passed over."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..errors import ConfigError
from .paths import AmplifierPaths, bundled_profiles_dir
from .schema_errors import validate_document
from .yaml_document import load_yaml_document

DEFAULT_MATRIX = "balanced"
REQUIRED_ROLES = ("general", "fast")


class Candidate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    provider: str = Field(min_length=1)
    model: str = Field(min_length=1)
    config: dict[str, Any] | None = None


class Role(BaseModel):
    model_config = ConfigDict(extra="forbid")

    description: str = ""
    candidates: list[Candidate]


class MatrixFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = ""
    updated: str | None = None
    roles: dict[str, Role]


@dataclass(frozen=True)
class Matrix:
    name: str
    path: Path
    origin: str  # user | bundled
    data: MatrixFile


def matrix_dirs(paths: AmplifierPaths) -> list[tuple[str, Path]]:
    return [("user", paths.config_dir / "routing"), ("bundled", bundled_profiles_dir() / "routing")]


def matrix_files(paths: AmplifierPaths) -> list[tuple[str, str, Path]]:
    """(name, origin, path), a user file shadowing a bundled one of the same name."""
    seen: dict[str, tuple[str, str, Path]] = {}
    for origin, directory in matrix_dirs(paths):
        if directory.is_dir():
            for path in sorted(directory.glob("*.yaml")) + sorted(directory.glob("*.yml")):
                seen.setdefault(path.stem, (path.stem, origin, path))
    return sorted(seen.values())


def load_matrix(name: str, paths: AmplifierPaths) -> Matrix:
    for stem, origin, path in matrix_files(paths):
        if stem == name:
            doc = load_yaml_document(path)
            model, problems = validate_document(MatrixFile, doc)
            if problems:
                raise ConfigError(f"routing matrix '{name}' ({path}) is not valid", problems)
            missing = [role for role in REQUIRED_ROLES if role not in model.roles]
            if missing:
                raise ConfigError.single(f"defines no {', '.join(missing)} role (every matrix needs general and fast)",
                                         file=path, key_path="roles", fix=f"add a '{missing[0]}:' role")
            return Matrix(name, path, origin, model)
    available = ", ".join(stem for stem, _, _ in matrix_files(paths)) or "none"
    raise ConfigError.single(f"no routing matrix '{name}' (available: {available})",
                             fix=f"pick one of those, or put {name}.yaml in {paths.config_dir / 'routing'}")


def active_matrix_name(settings: Any) -> str:
    return ((settings.merged.get("routing") or {}).get("matrix")) or DEFAULT_MATRIX


def role_candidates(matrix: Matrix, role: str, overrides: dict[str, Any] | None) -> list[Candidate]:
    base = list(matrix.data.roles[role].candidates) if role in matrix.data.roles else []
    override = (overrides or {}).get(role)
    if not override:
        return base
    chosen: list[Candidate] = []
    for item in override:
        if item == "base":
            chosen.extend(base)
        elif isinstance(item, dict):
            chosen.append(Candidate.model_validate(item))
    return chosen


ModelLister = Callable[[str], Awaitable[list[str] | None]]
"""provider id -> the model names it offers (None when they cannot be known); asked only for a glob."""

_DATE_SUFFIX = re.compile(r"-(?:\d{4}-\d{2}-\d{2}|\d{8})$")
_DIGITS = re.compile(r"(\d+)")


def is_glob(model: str) -> bool:
    return any(mark in model for mark in "*?[")


def version_rank(name: str) -> tuple[list[Any], int]:
    """Sort key, higher = newer: digit runs compare as numbers (4-10 above 4-7), a trailing snapshot date is
    ignored (claude-opus-4-7 above claude-opus-4-20250514) and on a tie the shorter name (the alias) wins."""
    parts = _DIGITS.split(_DATE_SUFFIX.sub("", name))
    return [(1, int(part)) if part.isdigit() else (0, part) for part in parts], -len(name)


def pick_model(pattern: str, models: Iterable[str]) -> str | None:
    """The newest of `models` that `pattern` matches, case-insensitively (upstream's glob semantics)."""
    wanted = pattern.lower()
    matches = [name for name in models if fnmatchcase(name.lower(), wanted)]
    return max(matches, key=version_rank) if matches else None


async def resolve_roles(matrix: Matrix, roles: str | list[str], providers: Iterable[str], list_models: ModelLister,
                        overrides: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The first role of `roles` (a fallback chain) that resolves: its first candidate whose provider is in
    `providers` and whose model is exact or a glob matching one `list_models(provider)` names."""
    available = set(providers)
    for role in [roles] if isinstance(roles, str) else list(roles):
        for candidate in role_candidates(matrix, role, overrides):
            if candidate.provider not in available:
                continue
            model: str | None = candidate.model
            if is_glob(candidate.model):
                model = pick_model(candidate.model, await list_models(candidate.provider) or [])
                if model is None:
                    continue
            return {"role": role, "provider": candidate.provider, "model": model, "config": candidate.config or {}}
    return None
