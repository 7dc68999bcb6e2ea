"""A session that is open: the kernel session plus everything the app keeps beside it (its record in the
store, the plan it was built from, usage, warnings to show), and the one way to run a turn on it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from amplifier_core import AmplifierSession
from amplifier_support.capability_names import (
    MCP_GET_PROMPT,
    MCP_PROMPTS,
    MCP_STATUS,
    ORCHESTRATOR_OVERRIDES,
    PROMPT_IMAGES,
    REDACTION_REDACT,
    SANDBOX_STATUS,
    SESSION_MODE,
)
from amplifier_support.provider_choice import choose, mounted_candidates

from ..config.paths import AmplifierPaths
from ..plans.answering_provider import default_provider_of
from ..plans.plan import BuiltPlan
from .plan_mode import DEFAULT_MODE
from .store import SessionRecord
from .turns import TurnFacts
from .usage import UsageTracker

SECRET_ENV_SUFFIXES = ("_KEY", "_TOKEN", "_SECRET", "_PASSWORD")


@dataclass
class LiveSession:
    session: AmplifierSession
    record: SessionRecord
    built: BuiltPlan
    paths: AmplifierPaths
    usage: UsageTracker
    resumed: bool
    warnings: list[str] = field(default_factory=list)
    instruction_files: list[Path] = field(default_factory=list)  # AGENTS.md / AMPLIFIER.md (+ includes) loaded
    turn_facts: TurnFacts = field(default_factory=TurnFacts)  # how the last turn ended (sessions/turns.py)

    @property
    def session_id(self) -> str:
        return self.session.session_id

    @property
    def coordinator(self) -> Any:
        return self.session.coordinator

    @property
    def provider_name(self) -> str | None:
        """The mount name of the provider that answers the next turn (the loop's own rule)."""
        return self.active_provider_name()

    @property
    def model_name(self) -> str | None:
        overridden = self._overrides().get("model")
        if isinstance(overridden, str) and overridden:
            return overridden
        provider = self.active_provider()
        if provider is None:
            return None
        for attribute in ("default_model", "model"):
            value = getattr(provider, attribute, None)
            if isinstance(value, str) and value:
                return value
        try:
            return provider.get_info().defaults.get("model")
        except Exception:
            return None

    def _overrides(self) -> dict[str, Any]:
        value = self.coordinator.get_capability(ORCHESTRATOR_OVERRIDES)
        return value if isinstance(value, dict) else {}

    def active_provider_name(self) -> str | None:
        """The shared rule (amplifier_support.provider_choice) over the mounted providers, with the
        orchestrator's `default_provider` and what `/model` asked for."""
        providers = self.coordinator.get("providers") or {}
        chosen = choose(mounted_candidates(providers), provider=self._overrides().get("provider") or None,
                        default_provider=default_provider_of(self.built.plan))
        return chosen.name if chosen is not None else None

    def active_provider(self) -> Any:
        """The provider object that answers the next turn, or None when none is mounted."""
        name = self.active_provider_name()
        return (self.coordinator.get("providers") or {}).get(name) if name is not None else None

    def sandbox_status(self) -> dict[str, Any] | None:
        """What the shell tool's OS sandbox enforces (capability `sandbox.status` of tool-bash), or None."""
        status = self.coordinator.get_capability(SANDBOX_STATUS)
        if not callable(status):
            return None
        try:
            value = status()
        except Exception:
            return None
        return value if isinstance(value, dict) else None

    @property
    def tool_names(self) -> list[str]:
        return sorted(self.coordinator.get("tools") or {})

    def mcp_servers(self) -> list[dict[str, Any]]:
        """tool-mcp's rows (name, state, transport, tools, error, ...); empty when it is not mounted."""
        status = self.coordinator.get_capability(MCP_STATUS)
        return list(status()) if callable(status) else []

    def mcp_prompts(self) -> list[dict[str, Any]]:
        """Prompts of connected MCP servers, each with its slash command name (``mcp__<server>__<prompt>``)."""
        prompts = self.coordinator.get_capability(MCP_PROMPTS)
        return list(prompts()) if callable(prompts) else []

    async def mcp_prompt_text(self, server: str, name: str, arguments: dict[str, str]) -> str:
        get_prompt = self.coordinator.get_capability(MCP_GET_PROMPT)
        if not callable(get_prompt):
            raise LookupError("no MCP servers are connected in this session")
        return await get_prompt(server, name, arguments)

    @property
    def mode(self) -> str:
        """The session mode (sessions/plan_mode.py MODES), read by the gates at each tool call."""
        value = self.coordinator.get_capability(SESSION_MODE)
        return value if isinstance(value, str) and value else DEFAULT_MODE

    def set_mode(self, mode: str) -> None:
        """Switch the mode for the next tool calls (the gates read the capability at each call)."""
        self.coordinator.register_capability(SESSION_MODE, mode)

    def switch_model(self, wanted: str) -> tuple[str | None, str]:
        """`/model NAME` or `PROVIDER/NAME`: the next turns use that model (of the provider that offers it, else
        the current one); saved in the metadata so a resume keeps it. Returns (provider, model)."""
        from ..plans.answering_provider import provider_for_model

        providers = self.coordinator.get("providers") or {}
        provider_name, model = self.provider_name, wanted.strip()
        head, _, tail = model.partition("/")
        if tail and head in providers:
            provider_name, model = head, tail
        else:  # a model only one mounted provider offers goes to that provider
            provider_name = provider_for_model(self.built.plan, providers, model) or provider_name
        self.coordinator.register_capability(ORCHESTRATOR_OVERRIDES, {"provider": provider_name, "model": model})
        self.record.save_metadata(provider=provider_name, model=model)
        return provider_name, model

    async def model_names(self, timeout: float = 10.0) -> list[str]:
        """The models the answering provider offers (its ``list_models``); empty when it cannot say. Raises what
        the provider raised, so a caller can show why."""
        import asyncio

        lister = getattr(self.active_provider(), "list_models", None)
        if not callable(lister):
            return []
        models = await asyncio.wait_for(lister(), timeout=timeout)
        return [getattr(model, "id", None) or str(model) for model in models or []]

    async def clear_conversation(self) -> tuple[int, int]:
        """Forget the conversation; the system instruction stays (a /compact summary goes too). Through the
        recording context, so the transcript is rewritten as well. Returns (removed, kept)."""
        from .manual_compaction import SUMMARY_SOURCE

        context = self.coordinator.get("context")
        messages = await context.get_messages()
        kept = [message for message in messages if message.get("role") == "system"
                and (message.get("metadata") or {}).get("source") != SUMMARY_SOURCE]
        await context.set_messages(kept)
        return len(messages) - len(kept), len(kept)

    def redacted(self, text: str) -> str:
        """``text`` without secrets, for errors shown to a person: servers sometimes echo the key back. Uses
        hooks-redaction's redactor when the profile mounts it, and always masks credential env values."""
        import os

        redact = self.coordinator.get_capability(REDACTION_REDACT)
        if callable(redact):
            try:
                text = str(redact(text))
            except Exception:  # a broken redactor must not hide the error itself
                pass
        for name, value in os.environ.items():
            if len(value) >= 8 and name.upper().endswith(SECRET_ENV_SUFFIXES) and value in text:
                text = text.replace(value, f"[{name} redacted]")
        return text

    async def execute(self, prompt: str, images: list[dict[str, Any]] | None = None) -> str:
        """Run one turn; metadata (turn count, status) is saved whatever happens. ``images`` (ImageBlock dicts,
        see prompt_images) go with the prompt, through the orchestrator's capability ``prompt.images``."""
        coordinator = self.coordinator
        coordinator.register_capability(PROMPT_IMAGES, list(images or []))
        coordinator.reset_turn()
        coordinator.cancellation.reset()
        self.usage.start_turn()
        if self.record.metadata.first_prompt is None:
            self.record.metadata.first_prompt = prompt[:200]
        self.record.save_metadata(status="active")
        status = "failed"
        try:
            response = await self.session.execute(prompt)
            status = "cancelled" if coordinator.cancellation.is_cancelled else "completed"
            return response
        except BaseException:
            status = "cancelled" if coordinator.cancellation.is_cancelled else "failed"
            raise
        finally:
            coordinator.register_capability(PROMPT_IMAGES, [])  # for this turn only
            self.record.save_metadata(turn_count=self.record.metadata.turn_count + 1, status=status)

    async def close(self) -> None:
        try:
            await self.session.cleanup()
        finally:
            self.record.close()
