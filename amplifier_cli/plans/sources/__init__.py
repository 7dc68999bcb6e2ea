"""Finding modules: source URIs, the git cache and the layered resolver.

`make_resolver(settings)` is what session-building code mounts at `module-source-resolver`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...config.settings import Settings
    from .resolver import LayeredModuleResolver


def make_resolver(settings: Settings) -> LayeredModuleResolver:
    """The resolver for this invocation: env, workspace, settings sources, plan hints, installed packages."""
    from ...config.trust import project_trusted
    from .git_cache import GitCache
    from .resolver import LayeredModuleResolver

    paths = settings.paths
    return LayeredModuleResolver(
        git_cache=GitCache(paths.git_cache_dir),
        settings_sources=settings.sources,
        workspace_dir=paths.workspace_modules_dir if project_trusted(paths) else None,  # project code waits for trust
        cwd=paths.cwd,
    )
