"""Small amplifier module packages written to disk, for kernel tests and benchmarks that need real ones
(the loader, the validators and the pytest plugin import them from a path).

Plain code with no pytest dependency, so bench/ scripts can import it once tests/support is on sys.path.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

# A context module keeping messages in a list; tests derive variants from it with str.replace.
IN_MEMORY_CONTEXT = """
    class Memory:
        def __init__(self):
            self.messages = []

        async def add_message(self, message):
            self.messages.append(message)

        async def get_messages_for_request(self, token_budget=None, provider=None):
            return list(self.messages)

        async def get_messages(self):
            return list(self.messages)

        async def set_messages(self, messages):
            self.messages = list(messages)

        async def clear(self):
            self.messages = []

    async def mount(coordinator, config):
        await coordinator.mount("context", Memory())
"""

# A provider that mounts only when its config has an api_key (as real providers do without credentials).
KEY_GATED_PROVIDER = """
    from amplifier_core import ChatResponse, ProviderInfo, TextBlock

    class Gated:
        name = "gated"

        def get_info(self):
            return ProviderInfo(id="gated", display_name="Gated")

        async def list_models(self):
            return []

        async def complete(self, request, **kwargs):
            return ChatResponse(content=[TextBlock(text="hi")])

        def parse_tool_calls(self, response):
            return []

    async def mount(coordinator, config):
        if not config.get("api_key"):
            return None
        await coordinator.mount("providers", Gated())
"""


def module_package_name(module_id: str) -> str:
    """The import name of a module id: ``tool-bash`` -> ``amplifier_module_tool_bash``."""
    return "amplifier_module_" + module_id.replace("-", "_")


def write_module_package(parent: Path, package: str, source: str,
                         extra_files: dict[str, str] | None = None) -> Path:
    """Write ``parent/package/__init__.py`` from ``source`` and any ``extra_files`` beside it (all dedented,
    so sources may be indented in the test file); return the package directory."""
    package_dir = parent / package
    package_dir.mkdir(parents=True, exist_ok=True)
    (package_dir / "__init__.py").write_text(textwrap.dedent(source))
    for filename, text in (extra_files or {}).items():
        (package_dir / filename).write_text(textwrap.dedent(text))
    return package_dir
