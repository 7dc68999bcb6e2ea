"""What a module says about itself for the app to read without importing it: `amplifier-module.toml` beside the
package's `__init__.py` (shipped with the package, so it is there however the module was installed).

    [provider]
    sdk = "anthropic"                  # the package to import in the background before the first request
    key_env = "ANTHROPIC_API_KEY"      # the variable holding its key (kept out of transcripts, asked by init)
    base_url_env = "ANTHROPIC_BASE_URL"  # the variable holding its endpoint (`provider add --endpoint`)
    mount_env = ["ANTHROPIC_API_KEY"]  # any one set lets it mount (default: key_env)
    models = ["claude-*"]              # model names it offers (shell patterns): `--model X` picks it
    description = "Anthropic Claude"   # what `provider list` says of it
    default_model = "claude-sonnet-4-5"  # what `provider add` suggests
    [sandbox]
    confined = true                    # it runs commands for the model, under its own `sandbox` key
    [validate]
    config = {path = "{scratch}/x"}    # what `module validate` mounts it with when given no --config
                                       # ({scratch}: a scratch dir, {python}: this interpreter)

The app keeps no table of bundled module ids: a module without the file (an upstream one) gets the defaults,
that is no SDK warm-up, no known key variable, no models, not confined.
"""

from __future__ import annotations

import importlib.util
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

FACTS_FILE = "amplifier-module.toml"
_SECTIONS = {"provider": {"sdk", "key_env", "base_url_env", "mount_env", "models", "description", "default_model"},
             "sandbox": {"confined"}, "validate": {"config"}}


@dataclass(frozen=True)
class ModuleFacts:
    sdk: str | None = None
    key_env: str | None = None
    mount_env: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    base_url_env: str | None = None
    description: str | None = None
    default_model: str | None = None
    confined: bool = False
    validate_config: dict[str, Any] | None = None
    package_dir: Path | None = None  # where the facts file is: `{module}` in `[validate] config`


class ModuleFactsError(ValueError):
    """A facts file that does not say what it should: the message names the file and key."""


def parse_facts(path: Path) -> ModuleFacts:
    """Read and check one facts file (ModuleFactsError names the file and key path)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ModuleFactsError(f"{path}: not readable TOML ({error})") from error
    for section, value in data.items():
        if section not in _SECTIONS or not isinstance(value, dict):
            raise ModuleFactsError(f"{path}: {section}: unknown section (known: {', '.join(_SECTIONS)})")
        for key in value:
            if key not in _SECTIONS[section]:
                raise ModuleFactsError(f"{path}: {section}.{key}: unknown key "
                                       f"(known: {', '.join(sorted(_SECTIONS[section]))})")
    provider = data.get("provider", {})
    sandbox = data.get("sandbox", {})
    for key in ("sdk", "key_env", "base_url_env", "description", "default_model"):
        if key in provider and not isinstance(provider[key], str):
            raise ModuleFactsError(f"{path}: provider.{key}: must be a string")
    for key in ("mount_env", "models"):
        value = provider.get(key, [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ModuleFactsError(f"{path}: provider.{key}: must be a list of strings")
    if not isinstance(sandbox.get("confined", False), bool):
        raise ModuleFactsError(f"{path}: sandbox.confined: must be true or false")
    validate_config = data.get("validate", {}).get("config")
    if validate_config is not None and not isinstance(validate_config, dict):
        raise ModuleFactsError(f"{path}: validate.config: must be a table")
    key_env = provider.get("key_env")
    mount_env = tuple(provider.get("mount_env") or ([key_env] if key_env else []))
    return ModuleFacts(sdk=provider.get("sdk"), key_env=key_env, mount_env=mount_env,
                       models=tuple(provider.get("models", [])), base_url_env=provider.get("base_url_env"),
                       description=provider.get("description"), default_model=provider.get("default_model"),
                       confined=sandbox.get("confined", False), validate_config=validate_config,
                       package_dir=path.parent)


def facts_in(package_dir: Path) -> ModuleFacts:
    """The facts file of a package directory, checked (ModuleFactsError); defaults when there is none."""
    path = package_dir / FACTS_FILE
    return parse_facts(path) if path.is_file() else ModuleFacts()


def installed_package_dir(module_id: str) -> Path | None:
    """Where the installed package of `module_id` is, found without importing it."""
    # the kernel package is imported only when a package is looked for: the chat reads this file before its
    # prompt is drawn, and the kernel's import belongs to the warm-up thread behind it
    from amplifier_core.module_ids import package_name

    try:
        spec = importlib.util.find_spec(package_name(module_id))
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


@lru_cache(maxsize=256)
def facts_of(module_id: str) -> ModuleFacts:
    """The facts of an installed module (defaults when it has no file, or a broken one: `module validate` says)."""
    package_dir = installed_package_dir(module_id)
    if package_dir is None or not (package_dir / FACTS_FILE).is_file():
        return ModuleFacts()
    try:
        return parse_facts(package_dir / FACTS_FILE)
    except ModuleFactsError:
        return ModuleFacts()


def entry_module_id(entry: Any) -> str:
    """The module id of a plan entry (a dict with `module`, or the id itself)."""
    return str(entry.get("module", "")) if isinstance(entry, dict) else str(entry)


def installed_provider_facts() -> dict[str, ModuleFacts]:
    """{provider id (`anthropic`): facts} of every installed provider module (entry points), by id."""
    from amplifier_core.loader import installed_entry_points
    from amplifier_core.module_ids import type_from_id

    ids = sorted(module_id for module_id in installed_entry_points() if type_from_id(module_id) == "provider")
    return {module_id.removeprefix("provider-"): facts_of(module_id) for module_id in ids}
