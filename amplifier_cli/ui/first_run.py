"""First-run setup (`amplifier init`, and bare `amplifier` in a terminal when no provider can work): find keys
in the environment, choose provider and model, write the user's settings, make one test request.

Typer-free: bare `amplifier` reaches it without importing typer (see `amplifier_cli/__main__.py`)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any, TextIO

from ..config.paths import AmplifierPaths
from ..errors import UsageError


@dataclass
class SetupChoice:
    provider: str | None = None
    model: str | None = None
    interactive: bool = True
    test: bool = True


def _known() -> dict[str, dict[str, str]]:
    from ..config.provider_settings import known_providers

    return known_providers()


def keys_found(paths: AmplifierPaths) -> dict[str, str]:
    """provider id -> where its key is (environment or key store), for the providers that have one."""
    from ..config.key_store import read_key_store

    stored = read_key_store(paths)
    found = {}
    for name, info in _known().items():
        if os.environ.get(info["key_env"]):
            found[name] = "environment"
        elif stored.get(info["key_env"]):
            found[name] = "key store"
    return found


def first_run_needed(paths: AmplifierPaths | None = None) -> bool:
    """No provider key anywhere, no provider or profile chosen in settings: a session could not answer."""
    from ..config.module_facts import installed_provider_facts

    if any(os.environ.get(name) for facts in installed_provider_facts().values() for name in facts.mount_env):
        return False  # the common case, decided without reading a settings file
    paths = paths or AmplifierPaths.discover()
    if keys_found(paths):
        return False
    from ..config.settings import load_settings
    from ..errors import ConfigError

    try:
        settings = load_settings(paths)
    except ConfigError:
        return False  # the session will report the settings problem itself
    return not settings.provider_overrides and settings.active_profile()[0] is None


def _ask(prompt: str, default: str, out: TextIO) -> str:
    out.write(f"{prompt} [{default}]: ")
    out.flush()
    answer = sys.stdin.readline()
    if not answer:
        raise UsageError.single("setup cancelled (end of input)", fix="run `amplifier init` again")
    return answer.strip() or default


def run_setup(choice: SetupChoice, out: TextIO | None = None, paths: AmplifierPaths | None = None) -> dict[str, Any]:
    """The wizard; returns what it wrote and the test result. Raises UsageError when nothing usable is left."""
    from ..config.provider_settings import provider_config, save_provider_key, write_provider
    from ..sessions.provider_checks import test_provider

    out = out or sys.stdout
    paths = paths or AmplifierPaths.discover()
    known = _known()
    found = keys_found(paths)
    names = list(known)
    if choice.interactive:
        out.write("Welcome to amplifier: first-run setup.\n")
        out.write(f"Keys found: {', '.join(known[n]['key_env'] + ' (' + w + ')' for n, w in found.items())}\n"
                  if found else "No provider key found in the environment.\n")
    provider = choice.provider
    if provider is None:
        default = next((name for name in names if name in found), names[0])
        if not choice.interactive:
            if not found:
                raise UsageError.single(
                    "no provider key in the environment or the key store",
                    fix="export " + " (or ".join(f"{known[name]['key_env']}=..." for name in names)
                        + ")" * (len(names) - 1) + ", or run `amplifier init` in a terminal")
            provider = default
        else:
            for index, name in enumerate(names, start=1):
                mark = f"  ({known[name]['key_env']} found)" if name in found else ""
                out.write(f"  [{index}] {name}: {known[name]['description']}{mark}\n")
            answer = _ask("Provider", str(names.index(default) + 1), out)
            provider = names[int(answer) - 1] if answer.isdigit() and 0 < int(answer) <= len(names) else answer
    provider = provider.removeprefix("provider-")
    if provider not in known:
        raise UsageError.single(f"unknown provider '{provider}'", fix=f"choose one of: {', '.join(names)}")
    model = choice.model or (_ask("Model", known[provider]["model"], out) if choice.interactive else None)
    if provider not in found:
        if not choice.interactive:
            raise UsageError.single(f"{known[provider]['key_env']} is not set",
                                    fix=f"export {known[provider]['key_env']}=... and run `amplifier init` again")
        import getpass

        key = getpass.getpass(f"{known[provider]['key_env']} (kept in your key store, readable only by you): ")
        env, store = save_provider_key(provider, key, paths)
        out.write(f"Saved {env} in {store}\n")
    settings_path = write_provider(provider, "user", provider_config(model, None, None), make_default=True,
                                   paths=paths)
    out.write(f"Default provider: {provider}{' (' + model + ')' if model else ''}; settings: {settings_path}\n")
    result: dict[str, Any] = {"provider": provider, "model": model, "settings": str(settings_path), "test": None}
    if choice.test:
        out.write(f"Testing {provider}... ")
        out.flush()
        tested = test_provider(provider, paths=paths)
        result["test"] = tested
        if tested["ok"]:
            out.write(f"ok ({tested['model'] or 'default model'}, {tested['elapsed_ms']} ms)\n")
        else:
            out.write(f"failed ({tested['kind']}): {tested['message']}\n")
    out.flush()
    return result
