"""Profiles: YAML (or upstream Markdown+frontmatter) mount plans with metadata, found and merged by name."""

from __future__ import annotations

from .loader import (
    DEFAULT_PROFILE,
    LoadedProfile,
    ProfileLocation,
    available_names,
    find_profile,
    list_locations,
    load_profile,
)

__all__ = [
    "DEFAULT_PROFILE",
    "LoadedProfile",
    "ProfileLocation",
    "available_names",
    "find_profile",
    "list_locations",
    "load_profile",
]
