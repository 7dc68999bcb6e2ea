"""What an upstream bundle file may contain: a (partial) mount plan plus `bundle:` metadata, `includes:`,
`context:` files and `agents:` (an `include:` list of agent files and/or inline definitions).

A file is read as a bundle when it has a top-level `bundle:` or `includes:` key; otherwise it is a profile.
Unknown keys are rejected with the closest valid key suggested, as in profiles.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, field_validator

from .schema import ProfileFile

BUNDLE_MARKER_KEYS = ("bundle", "includes")


def is_bundle_data(data: Any) -> bool:
    return isinstance(data, dict) and any(key in data for key in BUNDLE_MARKER_KEYS)


class BundleMeta(BaseModel):
    """Upstream treats the `bundle:` block as free-form metadata (`display_name`, `author`, ...), so other keys
    are kept and shown, not rejected."""

    model_config = ConfigDict(extra="allow")

    name: str | None = None
    version: str | None = None
    description: str | None = None
    display_name: str | None = None


def _include_ref(value: Any) -> Any:
    """`- ./base.md`, `- foundation:behaviors/x`, or upstream's `- bundle: <ref>`; always a non-empty string."""
    if isinstance(value, dict) and set(value) == {"bundle"}:
        value = value["bundle"]
    if not isinstance(value, str) or not value.strip():
        raise ValueError("an include is a reference: a relative path, 'namespace:path', a name or 'git+URL'"
                         " (or upstream's 'bundle: <reference>')")
    return value.strip()


IncludeRef = Annotated[str, BeforeValidator(_include_ref)]


def _text_list(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        raise ValueError(f"{what} must be a list of references")
    return [item.strip() for item in value]


def _context_section(value: Any) -> Any:
    """`context: {include: [refs]}` and/or `context: {label: path}`."""
    if value is None:
        return value
    if not isinstance(value, dict):
        raise ValueError("context must be a mapping: 'include: [namespace:path, ...]' and/or 'label: path'")
    for key, item in value.items():
        if key == "include":
            _text_list(item, "context.include")
        elif not isinstance(item, str):
            raise ValueError(f"context.{key} must be a file path (or use 'include: [...]')")
    return value


def _agents_section(value: Any) -> Any:
    """Upstream's `{include: [refs], name: {definition}}`, or this project's 'all' / 'none' / [names]."""
    if value is None or value in ("all", "none"):
        return value
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "include":
                _text_list(item, "agents.include")
            elif not isinstance(item, dict):
                raise ValueError(f"agents.{key} must be an agent definition (description, instruction, tools, ...)")
        return value
    raise ValueError("agents must be 'all', 'none', a list of agent names, or a mapping with 'include:' and/or "
                     "agent definitions")


class BundleFile(ProfileFile):
    bundle: BundleMeta | None = None
    includes: list[IncludeRef] | None = None
    context: Any = None  # bundle context files (a profile's `context:` is upstream's `{config: ...}`)
    agents: Any = None

    @field_validator("context", mode="before")
    @classmethod
    def _context(cls, value: Any) -> Any:
        return _context_section(value)

    @field_validator("agents", mode="before")
    @classmethod
    def _agents(cls, value: Any) -> Any:
        return _agents_section(value)
