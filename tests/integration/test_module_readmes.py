"""Each bundled module's README documents its config: every key of its config model appears in the README's
Config section (nested keys as `parent.child` or inside the parent's row), and every key a Config table lists
is a key the code reads. Upstream lost track of both; this keeps them honest."""

from __future__ import annotations

import importlib
import pkgutil
import re
import types
import typing
from pathlib import Path

import pytest
from pydantic import BaseModel

from amplifier_core.module_config import ModuleConfig

MODULES = Path(__file__).resolve().parents[2] / "modules"
MODULE_IDS = sorted(path.name for path in MODULES.iterdir() if (path / "README.md").is_file())


def _config_models(module_dir: Path) -> list[type[ModuleConfig]]:
    """Config models the module's package defines or imports into its namespace."""
    package_dir = next(module_dir.glob("amplifier_module_*"))
    submodules = [f"{package_dir.name}.{info.name}" for info in pkgutil.iter_modules([str(package_dir)])]
    names = [package_dir.name, *submodules]
    found: list[type[ModuleConfig]] = []
    for name in names:
        module = importlib.import_module(name)
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, ModuleConfig) and value is not ModuleConfig:
                if value not in found:
                    found.append(value)
    return found


def _nested_model(annotation: object) -> type[BaseModel] | None:
    candidates = typing.get_args(annotation) if isinstance(annotation, types.UnionType) or typing.get_origin(
        annotation) is typing.Union else (annotation,)
    for candidate in candidates:
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    return None


def _top_level(models: list[type[ModuleConfig]]) -> list[type[ModuleConfig]]:
    nested = {_nested_model(field.annotation) for model in models for field in model.model_fields.values()}
    return [model for model in models if model not in nested]


def _documented(readme: str) -> tuple[str, set[str]]:
    section = re.search(r"^## Config.*?(?=^## |\Z)", readme, re.S | re.M)
    assert section, "the README has no '## Config' section"
    text = section.group(0)
    return text, set(re.findall(r"^\| `([A-Za-z_][A-Za-z_.]*)`", text, re.M))


@pytest.mark.parametrize("module_id", MODULE_IDS)
def test_readme_config_section_matches_the_config_model(module_id: str) -> None:
    module_dir = MODULES / module_id
    models = _config_models(module_dir)
    assert models, f"{module_id} parses no config model"
    text, table_keys = _documented((module_dir / "README.md").read_text(encoding="utf-8"))
    for model in _top_level(models):
        for key, field in model.model_fields.items():
            assert f"`{key}" in text, f"{module_id}: config key '{key}' is not documented in README ## Config"
            nested = _nested_model(field.annotation)
            if nested is not None and f"`{key}.`" not in text:
                for child in nested.model_fields:
                    assert child in text, f"{module_id}: nested key '{key}.{child}' is not documented"
    readable = {key for model in models for key in model.model_fields}
    for key in table_keys:
        assert key.split(".")[0] in readable, f"{module_id}: README lists '{key}', which the code never reads"
