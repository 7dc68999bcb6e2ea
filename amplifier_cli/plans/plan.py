"""Build the final mount plan for a session: profile <- settings overrides <- CLI flags.

`build_plan()` is the one entry point the `run`/`continue`/REPL code uses. The returned plan keeps `${VAR}`
references; expand them only for a module's mount (see `env_refs.expand_env_refs`).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from amplifier_support.provider_choice import mount_name

from ..config.merge import merge_module_lists
from ..config.paths import AmplifierPaths
from ..config.settings import Settings, load_settings
from ..config.trust import project_trusted
from ..errors import ConfigError, Problem
from .answering_provider import answering_entry, check_priorities
from .file_tool_dirs import apply_file_tool_dirs
from .otel_env import apply_otel_environment
from .profiles import DEFAULT_PROFILE, LoadedProfile, load_profile
from .profiles.loader import find_profile, profile_name_from_ref
from .skill_dirs import apply_skill_dirs


@dataclass
class BuiltPlan:
    plan: dict[str, Any]  # canonical mount plan, ${VAR} references kept: safe to display and save
    profile: LoadedProfile
    profile_source: str  # "flag", "local", "project", "user" or "default"
    settings: Settings

    @property
    def profile_name(self) -> str:
        return self.profile.name

    @property
    def instruction(self) -> str | None:
        """The system prompt (profile body / `instruction:`), to be added as the first system message."""
        return self.profile.instruction


def build_plan(
    settings: Settings | None = None,
    profile_name: str | None = None,
    *,
    provider: str | None = None,
    model: str | None = None,
    max_tokens: int | None = None,
    paths: AmplifierPaths | None = None,
) -> BuiltPlan:
    """Profile (`profile_name`, else settings `profile.active`, else 'default') merged with settings
    `config.providers` overrides and `modules.*` additions (by module id), then `provider`/`model` flags.

    `provider` (`anthropic` or `provider-anthropic`) keeps only that provider; `model` sets `default_model`
    on it, or without `provider` on the provider with the lowest `priority` (ties: first listed); `max_tokens`
    (the largest answer per response) is set on that same provider. A name registered with `bundle add`
    stands for its URI.
    """
    if settings is None:
        settings = load_settings(paths or AmplifierPaths.discover())
    source = "flag"
    if profile_name is None:
        profile_name, scope = settings.active_profile()
        source = scope or "default"
        profile_name = profile_name or DEFAULT_PROFILE
        if scope in ("project", "local") and not project_trusted(settings.paths) \
                and find_profile(profile_name_from_ref(profile_name), settings.paths) is None:
            profile_name, source = DEFAULT_PROFILE, "default"  # the project's own profile waits for trust
    profile = load_profile(settings.bundle_reference(profile_name), settings.paths)
    plan = copy.deepcopy(profile.plan)

    overrides = settings.provider_overrides
    if overrides and not project_trusted(settings.paths):
        # An untrusted project may tune a provider the plan already mounts, never add one.
        mounted = {entry.get("module") for entry in plan.get("providers") or []}
        mounted |= {entry.get("module") for entry in (settings.scopes["user"].data.get("config") or {})
                    .get("providers") or []}
        overrides = [entry for entry in overrides if entry.get("module") in mounted]
    if overrides:
        plan["providers"] = merge_module_lists(plan.get("providers") or [], overrides)
    for section in ("providers", "tools", "hooks"):
        added = settings.added_modules(section)
        if added:
            plan[section] = merge_module_lists(plan.get(section) or [], added)

    apply_file_tool_dirs(plan, settings)
    apply_skill_dirs(plan, settings)
    apply_otel_environment(plan)  # OTEL_EXPORTER_OTLP_ENDPOINT set: the session exports its telemetry

    check_priorities(plan, settings, profile.location.path)
    if provider is not None:
        plan["providers"] = [select_provider(plan.get("providers") or [], provider, profile.name)]
    if model is not None:
        providers = plan.get("providers") or []
        if not providers:
            raise ConfigError.single(
                f"--model {model} given but profile '{profile.name}' mounts no provider",
                fix="use a profile with a provider, or add one with --provider",
            )
        target = providers[0] if provider is not None else _model_provider(plan, model)
        target["config"] = {**(target.get("config") or {}), "default_model": model}
    if max_tokens is not None:
        providers = plan.get("providers") or []
        if providers:
            target = providers[0] if provider is not None else preferred_provider(providers, plan)
            target["config"] = {**(target.get("config") or {}), "max_tokens": max_tokens}
    return BuiltPlan(plan=plan, profile=profile, profile_source=source, settings=settings)


def provider_module_id(name: str) -> str:
    return name if name.startswith("provider-") else f"provider-{name}"


def select_provider(providers: list[dict[str, Any]], name: str, profile: str) -> dict[str, Any]:
    wanted = provider_module_id(name)
    for entry in providers:
        if entry.get("module") == wanted or entry.get("instance_id") == name:
            return entry
    available = ", ".join(entry["module"].removeprefix("provider-") for entry in providers) or "none"
    raise ConfigError(
        f"provider '{name}' is not in profile '{profile}'",
        [
            Problem(
                f"provider '{name}' is not in profile '{profile}' (available: {available})",
                key_path="providers",
                fix=f"pick one of: {available}, or add 'amplifier source add {wanted} <URI>' and a profile using it",
            )
        ],
    )


def preferred_provider(providers: list[dict[str, Any]], plan: dict[str, Any] | None = None) -> dict[str, Any]:
    """The provider the orchestrator will pick among `providers` (the shared rule: `default_provider` of the
    plan's orchestrator, else the lowest priority, first on ties)."""
    chosen = answering_entry({**(plan or {}), "providers": providers})
    return chosen if chosen is not None else providers[0]


def _model_provider(plan: dict[str, Any], model: str) -> dict[str, Any]:
    """The provider `--model MODEL` goes to: the only one of the plan that offers it, made the orchestrator's
    `default_provider` so that the loop asks it; else the one that would answer anyway."""
    providers = plan.get("providers") or []
    # among the providers that will mount (a model only an unmounted provider offers changes nothing)
    chosen = answering_entry(plan, model=model, mountable_only=True) or answering_entry(plan) or providers[0]
    if chosen is not (answering_entry(plan, mountable_only=True) or answering_entry(plan)):
        orchestrator = plan.setdefault("session", {}).setdefault("orchestrator", {})
        orchestrator["config"] = {**(orchestrator.get("config") or {}), "default_provider": mount_name(chosen)}
    return chosen
