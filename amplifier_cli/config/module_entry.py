"""One module entry, `{module, source?, config?}`, as settings and mount plans both write it; and the
object form of a source (`{type: git, url, ...}`) turned into its URI string."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

MODULE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")


def source_object_to_uri(value: Any) -> Any:
    """Upstream's object form `{type: git|file|package, ...}` becomes the equivalent URI string."""
    if not isinstance(value, dict):
        return value
    kind = value.get("type")
    if kind == "git" and isinstance(value.get("url"), str):
        uri = "git+" + value["url"].removeprefix("git+")
        if value.get("ref"):
            uri += f"@{value['ref']}"
        if value.get("subdirectory"):
            uri += f"#subdirectory={value['subdirectory']}"
        return uri
    if kind == "file" and isinstance(value.get("path"), str):
        return value["path"]
    if kind == "package" and isinstance(value.get("name"), str):
        return value["name"]
    raise ValueError(
        "source object must be {type: git, url, ref?, subdirectory?}, {type: file, path} or {type: package, name}"
    )


class ModuleEntry(BaseModel):
    """`{module, source?, config?}`: one module to mount."""

    model_config = ConfigDict(extra="forbid")

    module: str = Field(min_length=1)
    source: str | None = None
    config: dict[str, Any] | None = None
    instance_id: str | None = None

    @field_validator("source", mode="before")
    @classmethod
    def _source_object(cls, value: Any) -> Any:
        return source_object_to_uri(value)

    @field_validator("module")
    @classmethod
    def _plain_module_id(cls, value: str) -> str:
        # The id names a directory (.amplifier/modules/<id>), a package (amplifier_module_<id>) and an env var.
        if not MODULE_ID.fullmatch(value):
            raise ValueError(
                f"module id {value!r} must be letters, digits, '-' and '_' (e.g. tool-bash); "
                "put a path or URL under 'source:' instead"
            )
        return value
