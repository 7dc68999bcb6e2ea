"""Fixtures for kernel tests: write tiny module packages to disk and serve them through a resolver."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from testkit.module_packages import IN_MEMORY_CONTEXT, module_package_name, write_module_package

from amplifier_core.module_sources import ModuleNotFoundError as SourceNotFoundError
from amplifier_core.module_sources import ModuleSource

ORCHESTRATOR_SOURCE = '''
from amplifier_core import ChatRequest, Message
from amplifier_core.message_models import response_text

class Orchestrator:
    def __init__(self, config):
        self.config = config
        self.calls = []

    async def execute(self, prompt, context, providers, tools, hooks, **kwargs):
        self.calls.append(kwargs)
        await context.add_message({"role": "user", "content": prompt})
        provider = next(iter(providers.values()))
        response = await provider.complete(ChatRequest(messages=await context.get_messages()))
        text = response_text(response)
        await context.add_message({"role": "assistant", "content": text})
        if self.config.get("fail"):
            raise RuntimeError(self.config["fail"])
        if self.config.get("cancel"):
            await kwargs["coordinator"].request_cancel(immediate=self.config["cancel"] == "immediate")
        return text

async def mount(coordinator, config):
    orchestrator = Orchestrator(config)
    await coordinator.mount("orchestrator", orchestrator)
'''

PROVIDER_SOURCE = '''
from amplifier_core import ChatResponse, ProviderInfo, TextBlock

class EchoProvider:
    name = "echo"

    def get_info(self):
        return ProviderInfo(id="echo", display_name="Echo")

    async def list_models(self):
        return []

    async def complete(self, request, **kwargs):
        return ChatResponse(content=[TextBlock(text="echo: " + request.messages[-1].content)])

    def parse_tool_calls(self, response):
        return []

async def mount(coordinator, config):
    await coordinator.mount("providers", EchoProvider(), name=config.get("name", "echo"))
'''


class PathSource(ModuleSource):
    def __init__(self, path: Path) -> None:
        self.path = path

    def resolve(self) -> Path:
        return self.path


class DictResolver:
    """Resolves ids registered in ``paths``; any other id is 'not found' so the loader falls back."""

    def __init__(self) -> None:
        self.paths: dict[str, Path] = {}
        self.calls: list[tuple[str, Any, Any]] = []

    def resolve(self, module_id: str, source_hint: Any = None, profile_hint: Any = None) -> ModuleSource:
        self.calls.append((module_id, source_hint, profile_hint))
        if module_id not in self.paths:
            raise SourceNotFoundError(f"no source for {module_id}")
        return PathSource(self.paths[module_id])


class ModuleWorkshop:
    """Writes module packages under a temp dir and registers them with a resolver."""

    ORCHESTRATOR_SOURCE = ORCHESTRATOR_SOURCE
    CONTEXT_SOURCE = IN_MEMORY_CONTEXT
    PROVIDER_SOURCE = PROVIDER_SOURCE

    def __init__(self, root: Path) -> None:
        self.root = root
        self.resolver = DictResolver()
        self.import_names: set[str] = set()
        self.suffix = uuid.uuid4().hex[:8]

    def unique(self, module_id: str) -> str:
        """A module id unlikely to clash with another test's package in sys.modules."""
        return f"{module_id}-{self.suffix}"

    def write(self, module_id: str, source: str, *, register: bool = True, import_name: str | None = None,
              extra_files: dict[str, str] | None = None) -> Path:
        """Create ``<root>/<module_id>/<import name>/__init__.py``; return the directory the resolver gives."""
        name = import_name or module_package_name(module_id)
        module_root = self.root / module_id
        write_module_package(module_root, name, source, extra_files=extra_files)
        self.import_names.add(name)
        if register:
            self.resolver.paths[module_id] = module_root
        return module_root

    def standard_plan(self, **extra: Any) -> dict[str, Any]:
        """A mount plan over freshly written orchestrator, context and provider modules."""
        loop, context, provider = self.unique("loop-test"), self.unique("context-test"), self.unique("provider-test")
        self.write(loop, ORCHESTRATOR_SOURCE)
        self.write(context, IN_MEMORY_CONTEXT)
        self.write(provider, PROVIDER_SOURCE)
        plan: dict[str, Any] = {
            "session": {"orchestrator": {"module": loop}, "context": {"module": context}},
            "providers": [{"module": provider}],
        }
        for key, value in extra.items():
            if isinstance(value, dict) and isinstance(plan.get(key), dict):
                plan[key] = {**plan[key], **value}
            else:
                plan[key] = value
        return plan


@pytest.fixture
def workshop(tmp_path: Path) -> Iterator[ModuleWorkshop]:
    """A module workshop; restores sys.modules and sys.path entries it may have disturbed."""
    saved_modules = dict(sys.modules)
    saved_path = list(sys.path)
    shop = ModuleWorkshop(tmp_path / "modules")
    yield shop
    for name in [key for key in sys.modules if key not in saved_modules]:
        if name.startswith("amplifier_module_"):
            del sys.modules[name]
    for name, module in saved_modules.items():
        if name.startswith("amplifier_module_") and sys.modules.get(name) is not module:
            sys.modules[name] = module
    sys.path[:] = saved_path


async def mount_resolver(session: Any, resolver: DictResolver) -> None:
    await session.coordinator.mount("module-source-resolver", resolver)


@pytest.fixture
def session_factory(workshop: ModuleWorkshop):
    """Build an AmplifierSession whose coordinator already has the workshop's resolver mounted."""
    from amplifier_core import AmplifierSession

    created: list[AmplifierSession] = []

    def build(plan: dict[str, Any] | None = None, **kwargs: Any) -> AmplifierSession:
        session = AmplifierSession(plan or workshop.standard_plan(), **kwargs)
        session.coordinator.mount_points["module-source-resolver"] = workshop.resolver
        created.append(session)
        return session

    yield build
    for session in created:
        session.loader.cleanup()
