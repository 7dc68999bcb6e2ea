"""``import amplifier_core`` must stay cheap: no provider SDK, no CLI or terminal libraries, no YAML."""

from __future__ import annotations

import json
import subprocess
import sys

FORBIDDEN = ("anthropic", "openai", "typer", "rich", "prompt_toolkit", "yaml")


def imported_top_level_modules(statement: str) -> set[str]:
    code = f"{statement}\nimport json, sys\nprint(json.dumps(sorted({{name.split('.')[0] for name in sys.modules}})))"
    output = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return set(json.loads(output))


def test_import_amplifier_core_imports_no_sdk_cli_or_yaml() -> None:
    loaded = imported_top_level_modules("import amplifier_core")
    assert loaded.isdisjoint(FORBIDDEN), sorted(loaded & set(FORBIDDEN))


def test_importing_kernel_runtime_submodules_stays_light() -> None:
    loaded = imported_top_level_modules(
        "import amplifier_core.session, amplifier_core.loader, amplifier_core.coordinator, amplifier_core.hooks, "
        "amplifier_core.events, amplifier_core.utils, amplifier_core.approval, amplifier_core.display, "
        "amplifier_core.module_sources, amplifier_core.capabilities"
    )
    assert loaded.isdisjoint(FORBIDDEN), sorted(loaded & set(FORBIDDEN))
