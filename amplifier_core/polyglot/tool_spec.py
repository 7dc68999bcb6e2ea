"""What a tool served from outside Python says about itself (a gRPC ToolService, a WASM component): read once,
at mount, and offered in the kernel's tool shape and in 2.0.2's ``get_spec()`` spelling."""

from __future__ import annotations

from typing import Any


class DescribedTool:
    def __init__(self, name: str, description: str, schema: Any) -> None:
        self._name = name
        self._description = description
        self._schema: dict[str, Any] = schema if isinstance(schema, dict) else {}

    @property
    def name(self) -> str:
        return self._name

    @property
    def description(self) -> str:
        return self._description

    @property
    def input_schema(self) -> dict[str, Any]:
        return self._schema

    def get_spec(self) -> dict[str, Any]:
        """2.0.2's spelling of the spec."""
        return {"name": self._name, "description": self._description, "parameters": self._schema}
