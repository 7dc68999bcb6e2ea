"""Settings in three scopes, deep-merged user <- project <- local (later wins), each file validated on its own
so an error names the file and line it came from."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..errors import ConfigError, UsageError
from .merge import deep_merge
from .module_entry import ModuleEntry, source_object_to_uri
from .paths import AmplifierPaths
from .schema_errors import validate_document
from .source_uri import normalize_source_uri
from .trust import gated_settings, project_trusted
from .yaml_document import YamlDocument, load_yaml_document, write_text_atomically, write_yaml_atomically
from .yaml_edit import edit_yaml_text

Scope = Literal["user", "project", "local"]
SCOPES: tuple[Scope, ...] = ("user", "project", "local")  # lowest precedence first


class ProfileSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    active: str | None = None
    default: str | None = None  # upstream's project-scope "default"; honoured below project `active`


class ConfigSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    providers: list[ModuleEntry] | None = None


class ModulesSettings(BaseModel):
    """Modules added on top of every profile (`tools`, `hooks`, `providers` are merged into the plan)."""

    model_config = ConfigDict(extra="forbid")

    tools: list[ModuleEntry] | None = None
    hooks: list[ModuleEntry] | None = None
    providers: list[ModuleEntry] | None = None
    agents: list[ModuleEntry] | None = None
    orchestrators: list[ModuleEntry] | None = None
    contexts: list[ModuleEntry] | None = None


class UpdatesSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    check_frequency_hours: float | None = None
    auto_prompt: bool | None = None
    last_check: str | None = None


class ApprovalSettings(BaseModel):
    """Rules hooks-approval applies before asking (the REPL saves "Always allow" answers here, local scope)."""

    model_config = ConfigDict(extra="forbid")

    rules: list[dict[str, Any]] | None = None


class BudgetSettings(BaseModel):
    """`budget:` limits for every run (the same keys as a profile's; the smallest of all limits wins)."""

    model_config = ConfigDict(extra="forbid")

    max_turns: int | None = Field(default=None, ge=1)
    max_total_tokens: int | None = Field(default=None, ge=1)
    max_cost: float | str | None = None

    @field_validator("max_cost", mode="before")
    @classmethod
    def _cost(cls, value: Any) -> Any:
        from .money import parse_cost

        parse_cost(value)  # refuses what a flag or profile would refuse; the value is kept as written
        return value
class BundleSettings(BaseModel):
    """Upstream's `bundle.active` (a profile/bundle name, path or URL) and `bundle.added` (registered name -> URI)."""

    model_config = ConfigDict(extra="forbid")

    active: str | None = None
    added: dict[str, str] | None = None


class NotifySettings(BaseModel):
    """`notify.desktop.enabled`: bell + OSC 9 when a chat turn ends."""

    model_config = ConfigDict(extra="forbid")

    desktop: dict[str, bool] | None = None


class RoutingSettings(BaseModel):
    """`routing.matrix` (a matrix name) and `routing.overrides` (role -> candidates), as upstream writes them."""

    model_config = ConfigDict(extra="forbid")

    matrix: str | None = None
    overrides: dict[str, list[dict[str, Any]]] | None = None


class SubagentsSettings(BaseModel):
    """`subagents.max_parallel`: how many sub-agents may wait on the model at once (the rest queue)."""

    model_config = ConfigDict(extra="forbid")

    max_parallel: int | None = Field(default=None, ge=1, le=64)


class SkillsSettings(BaseModel):
    """`skills.dirs`: more skill directories (or `git+URL[@ref][#subdirectory=...]` sources) for tool-skills."""

    model_config = ConfigDict(extra="forbid")

    dirs: list[str] | None = None


class SandboxNetworkSettings(BaseModel):
    """`sandbox.network.allow`: hosts (names, IP addresses, globs) sandboxed commands reach without asking."""

    model_config = ConfigDict(extra="forbid")

    allow: list[str] | None = None


class SandboxSettingsSection(BaseModel):
    """`sandbox:` in settings: only the network allow list (the mode is the profile's and `--sandbox`'s)."""

    model_config = ConfigDict(extra="forbid")

    network: SandboxNetworkSettings | None = None


class SettingsFile(BaseModel):
    """One settings file. Unknown keys are errors (with the closest valid key suggested)."""

    model_config = ConfigDict(extra="forbid")

    profile: ProfileSettings | None = None
    sources: dict[str, str] | None = None
    config: ConfigSettings | None = None
    modules: ModulesSettings | None = None
    collection_sources: dict[str, str] | None = None  # upstream compatibility; read, not used
    updates: UpdatesSettings | None = None
    approval: ApprovalSettings | None = None
    budget: BudgetSettings | None = None
    bundle: BundleSettings | None = None
    notify: NotifySettings | None = None
    routing: RoutingSettings | None = None
    subagents: SubagentsSettings | None = None
    skills: SkillsSettings | None = None  # trust-gated in a project: a skill tells the model what to run
    sandbox: SandboxSettingsSection | None = None  # trust-gated in a project: it widens where commands may connect
    allowed_dirs: list[str] | None = None  # extra write roots of the file tools (`amplifier allowed-dirs`)
    denied_dirs: list[str] | None = None  # never read or written by the file tools (`amplifier denied-dirs`)

    @field_validator("sources", mode="before")
    @classmethod
    def _source_objects(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {key: source_object_to_uri(item) for key, item in value.items()}
        return value


@dataclass
class ScopeFile:
    scope: Scope
    path: Path | None  # None = scope unavailable (no project)
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class Settings:
    """The merged view plus each scope's own data (for `profile current`, `source list` provenance)."""

    paths: AmplifierPaths
    scopes: dict[Scope, ScopeFile]
    merged: dict[str, Any]

    def active_profile(self) -> tuple[str | None, Scope | None]:
        """local active > project active > project default > user active; (None, None) = use bundled default.

        Upstream's `bundle.active` is the same choice spelled the bundle way: in each scope it is read before
        `profile.active`, and a name registered with `bundle add` stands for its URI."""
        order: list[tuple[Scope, str, str]] = [
            ("local", "bundle", "active"),
            ("local", "profile", "active"),
            ("project", "bundle", "active"),
            ("project", "profile", "active"),
            ("project", "profile", "default"),
            ("user", "bundle", "active"),
            ("user", "profile", "active"),
        ]
        for scope, section, key in order:
            value = (self.scopes[scope].data.get(section) or {}).get(key)
            if value:
                return self.bundle_reference(value), scope
        return None, None

    def registered_bundles(self) -> dict[str, str]:
        """`bundle add` registrations (name -> URI), all scopes merged."""
        return dict((self.merged.get("bundle") or {}).get("added") or {})

    def bundle_reference(self, name: str) -> str:
        """A registered bundle name becomes its URI; anything else is kept (a profile name, path or URL)."""
        return self.registered_bundles().get(name, name)

    @property
    def sources(self) -> dict[str, str]:
        return dict(self.merged.get("sources") or {})

    def source_origin(self, module_id: str) -> Scope | None:
        for scope in reversed(SCOPES):
            if module_id in (self.scopes[scope].data.get("sources") or {}):
                return scope
        return None

    @property
    def provider_overrides(self) -> list[dict[str, Any]]:
        return list((self.merged.get("config") or {}).get("providers") or [])

    def added_modules(self, section: str) -> list[dict[str, Any]]:
        return list((self.merged.get("modules") or {}).get(section) or [])


def scope_path(paths: AmplifierPaths, scope: Scope) -> Path | None:
    return {"user": paths.user_settings, "project": paths.project_settings, "local": paths.local_settings}[scope]


def load_settings(paths: AmplifierPaths) -> Settings:
    """Read and validate every scope; all problems across files are reported together (ConfigError).

    In a project the user has not trusted, the project and local files keep only their harmless keys
    (config/trust.py): the rest is ignored, not validated, so a hostile file cannot even stop the session."""
    scopes: dict[Scope, ScopeFile] = {}
    problems = []
    for scope in SCOPES:
        path = scope_path(paths, scope)
        scope_file = ScopeFile(scope, path)
        if path is not None and path.is_file():
            try:
                doc = load_yaml_document(path)
            except ConfigError as exc:
                if scope != "user" and not project_trusted(paths):
                    scopes[scope] = scope_file  # pinned as unparsed content; nothing of it applies
                    continue
                problems.extend(exc.problems)
                scopes[scope] = scope_file
                continue
            if scope != "user" and not project_trusted(paths):
                doc.data = gated_settings(doc.data)[0]
            data, file_problems = _validate_settings_doc(doc)
            problems.extend(file_problems)
            scope_file.data = data
        scopes[scope] = scope_file
    if problems:
        raise ConfigError("invalid settings", problems)
    merged: dict[str, Any] = {}
    for scope in SCOPES:
        merged = deep_merge(merged, scopes[scope].data)
    return Settings(paths, scopes, merged)


def _validate_settings_doc(doc: YamlDocument) -> tuple[dict[str, Any], list]:
    from ..errors import Problem

    if not isinstance(doc.data, dict):
        return {}, [Problem("settings must be a mapping of keys", doc.path, 1, None, "start with e.g. 'profile:'")]
    model, problems = validate_document(SettingsFile, doc)
    if problems:
        return {}, problems
    data = model.model_dump(exclude_none=True)
    # relative source paths mean "relative to this file", so make them absolute now
    if data.get("sources"):
        data["sources"] = {key: normalize_source_uri(uri, doc.path.parent) for key, uri in data["sources"].items()}
    return data, []


def writable_scope_path(paths: AmplifierPaths, scope: Scope) -> Path:
    path = scope_path(paths, scope)
    if path is None:
        raise UsageError.single(
            f"the {scope} scope is not available here (no project directory: running from your home directory?)",
            fix="run inside a project directory, or use --global",
        )
    return path


def update_scope(paths: AmplifierPaths, scope: Scope, key_path: tuple[str, ...], value: Any) -> Path:
    """Set (or, with value None, remove) one key in one scope's file, keeping everything else in it.

    A project scope edited through amplifier is the user's own change: a project they trusted stays trusted."""
    if scope == "user":
        return _update_scope_file(paths, scope, key_path, value)
    from .trust import keep_trust_across

    with keep_trust_across(paths):
        return _update_scope_file(paths, scope, key_path, value)


def _update_scope_file(paths: AmplifierPaths, scope: Scope, key_path: tuple[str, ...], value: Any) -> Path:
    path = writable_scope_path(paths, scope)
    data: dict[str, Any] = {}
    doc: YamlDocument | None = None
    if path.is_file():
        doc = load_yaml_document(path)
        if not isinstance(doc.data, dict):
            raise ConfigError.single(
                "settings must be a mapping of keys; not changing it, so nothing in it is lost",
                file=path,
                line=1,
                fix="edit the file into the form 'profile: {active: NAME}' (or move it away) and retry",
            )
        data = doc.data
    node = data
    for depth, key in enumerate(key_path[:-1]):
        child = node.get(key)
        if child is not None and not isinstance(child, dict):
            where = ".".join(key_path[: depth + 1])
            raise ConfigError.single(
                f"is a {type(child).__name__}, not a mapping; not changing it, so nothing in it is lost",
                file=path,
                line=doc.line_of(tuple(key_path[: depth + 1])) if doc is not None else None,
                key_path=where,
                fix=f"make '{where}' a mapping (or delete it) and retry",
            )
        if child is None:
            if value is None:
                return path
            child = node[key] = {}
        node = child
    if value is None:
        node.pop(key_path[-1], None)
        _prune_empty(data, key_path[:-1])
    else:
        node[key_path[-1]] = value
    try:
        edited = edit_yaml_text(doc.text, key_path, value, data) if doc is not None else None
        if edited is not None:
            write_text_atomically(path, edited)  # the user's comments and layout kept
        else:
            write_yaml_atomically(path, data)
    except OSError as error:
        raise ConfigError.single(
            f"cannot write settings: {error.strerror or error}",
            file=path,
            fix=f"make {path.parent} a writable directory"
            + (", or set AMPLIFIER_HOME to one" if scope == "user" else ""),
        ) from None
    return path


def _prune_empty(data: dict[str, Any], key_path: tuple[str, ...]) -> None:
    for cut in range(len(key_path), 0, -1):
        node: Any = data
        for key in key_path[: cut - 1]:
            node = node.get(key, {})
        if isinstance(node, dict) and node.get(key_path[cut - 1]) == {}:
            node.pop(key_path[cut - 1])
