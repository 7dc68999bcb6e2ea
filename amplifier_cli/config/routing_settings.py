"""`routing.matrix` in settings (`amplifier routing list|use`): the routing matrices found and the active one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .paths import AmplifierPaths
from .routing_matrix import active_matrix_name, load_matrix, matrix_files
from .settings import Scope, load_settings, update_scope, writable_scope_path


def _paths(paths: AmplifierPaths | None) -> AmplifierPaths:
    return paths or AmplifierPaths.discover()


def matrix_listing(paths: AmplifierPaths | None = None) -> list[dict[str, Any]]:
    paths = _paths(paths)
    active = active_matrix_name(load_settings(paths))
    rows = []
    for name, origin, path in matrix_files(paths):
        matrix = load_matrix(name, paths)
        rows.append({"name": name, "origin": origin, "path": str(path), "active": name == active,
                     "description": matrix.data.description, "roles": sorted(matrix.data.roles)})
    return rows


def use_matrix(name: str, scope: Scope, paths: AmplifierPaths | None = None) -> Path:
    paths = _paths(paths)
    writable_scope_path(paths, scope)
    load_matrix(name, paths)  # checked before it is written
    return update_scope(paths, scope, ("routing", "matrix"), name)
