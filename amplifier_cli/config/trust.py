"""Workspace trust: the ONE list of what a project directory can ship that runs code, starts a process, widens a
permission, changes where requests and keys go, or pulls files from outside the project; and the decision on it.

Until the user trusts the project (``amplifier trust``, or the chat's prompt), none of these inputs take effect:
- MCP servers in ``.mcp.json`` and ``.amplifier/mcp.json`` (a process, or a URL with headers);
- hooks under ``.amplifier/hooks/`` (hooks.json files and every script beside them): shell commands, and http
  hooks that POST the session's events to a URL (with the variables they list in headers);
- project settings (``.amplifier/settings.yaml``, ``settings.local.yaml``): every key but the harmless ones
  below (module ``sources``, added ``modules``, provider ``config`` overrides, approval rules, the hosts of
  ``sandbox.network.allow`` that sandboxed commands may reach, ...);
- project profiles and bundles (``.amplifier/profiles/**``: modules and their sources, includes, ``sandbox:``);
- sub-agent definitions (``.amplifier/agents/**``, ``.claude/agents/**``) and workspace modules
  (``.amplifier/modules/**``) of every transport: Python code, a native executable it starts, a WASM
  component, or a gRPC module whose ``amplifier.toml`` endpoint is where requests go;
- skills (``.amplifier/skills/**``, ``.claude/skills/**``: each skill folder, its scripts too) and chat commands
  (``.amplifier/commands/**``, ``.claude/commands/**``): text that tells the model what to do and run;
- files inside the project that a hook or server command runs (``./scripts/serve.sh``), pinned with it; the code
  of a module a project profile or settings ``sources:`` names by a path inside the project, pinned with the
  profile or settings file; and the ``amplifier.toml`` of a gRPC, native or WASM module such a source names (its
  endpoint is where requests go).

Harmless without trust: ``profile.active`` / ``profile.default`` / ``bundle.active`` naming a profile (not a path
or URL), ``updates``, ``notify`` (a terminal bell), and in
``config.providers`` entries only the keys of HARMLESS_PROVIDER_KEYS (a model name, token limits). Plain text
(AGENTS.md, AMPLIFIER.md) always loads.

Trust is pinned to content: the store (``<data dir>/trust.json``) keeps, per project real path, a digest of
exactly what the user was shown. Any change makes the project untrusted again, and the next prompt shows what
changed. Choices the app writes for the user ("Always allow") live in the user's own files, never in the
project (see ``approval_rules``), so they neither break trust nor go around it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .paths import PROJECT_DIR_NAME, AmplifierPaths

MCP_FILES = (f"{PROJECT_DIR_NAME}/mcp.json", ".mcp.json")
SETTINGS_FILES = (f"{PROJECT_DIR_NAME}/settings.yaml", f"{PROJECT_DIR_NAME}/settings.local.yaml")
HOOKS_DIR = f"{PROJECT_DIR_NAME}/hooks"
PROFILES_DIR = f"{PROJECT_DIR_NAME}/profiles"
AGENTS_DIR = f"{PROJECT_DIR_NAME}/agents"
MODULES_DIR = f"{PROJECT_DIR_NAME}/modules"
CLAUDE_AGENTS_DIR = ".claude/agents"
SKILL_DIRS = (f"{PROJECT_DIR_NAME}/skills", ".claude/skills")
COMMAND_DIRS = (f"{PROJECT_DIR_NAME}/commands", ".claude/commands")
HARMLESS_PROVIDER_KEYS = frozenset({"default_model", "model", "max_tokens", "max_output_tokens", "temperature",
                                    "top_p", "reasoning_effort", "thinking"})
"""Provider config keys a project may set without trust: they pick a model or a limit, never an endpoint,
a key, a header or a file."""
_SKIPPED_NAMES = frozenset({"__pycache__", ".DS_Store"})
_FILE_LIMIT = 2000  # files hashed per directory input; more is itself a reason to look (and a cost bound)
TRUST_COMMAND = "amplifier trust"


@dataclass(frozen=True)
class ProjectInput:
    """One thing the project ships that needs trust: ``key`` names it across changes (``mcp server 'time'``),
    ``where`` is the file (relative to the project) and key path, ``shows`` what trusting it would do."""

    key: str
    where: str
    shows: tuple[str, ...]
    digest: str

    def as_dict(self) -> dict[str, Any]:
        return {"key": self.key, "where": self.where, "shows": list(self.shows), "digest": self.digest}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ProjectInput:
        return cls(str(data.get("key", "")), str(data.get("where", "")),
                   tuple(str(line) for line in data.get("shows") or ()), str(data.get("digest", "")))


@dataclass(frozen=True)
class TrustChange:
    added: tuple[ProjectInput, ...] = ()
    changed: tuple[ProjectInput, ...] = ()
    removed: tuple[ProjectInput, ...] = ()


@dataclass
class ProjectTrust:
    """What the project ships and whether the user trusts exactly that."""

    root: Path | None
    inputs: list[ProjectInput]
    trusted: bool  # True also when there is nothing to trust
    recorded: list[ProjectInput] | None = None  # what the user trusted last time (None: never)

    @property
    def needs_trust(self) -> bool:
        return bool(self.inputs) and not self.trusted

    @property
    def digest(self) -> str:
        return inputs_digest(self.inputs)

    def change(self) -> TrustChange:
        """What differs from what the user trusted last time."""
        before = {item.key: item for item in self.recorded or []}
        now = {item.key: item for item in self.inputs}
        return TrustChange(
            added=tuple(item for key, item in now.items() if key not in before),
            changed=tuple(item for key, item in now.items() if key in before and before[key] != item),
            removed=tuple(item for key, item in before.items() if key not in now),
        )

    def ignored_line(self) -> str:
        """The one line a session prints when it ignores the project's inputs."""
        kinds: dict[str, int] = {}
        for item in self.inputs:
            kind = item.key.split(" '", 1)[0]
            kinds[kind] = kinds.get(kind, 0) + 1
        listed = ", ".join(f"{count} {kind}{'s' if count > 1 and not kind.endswith('s') else ''}"
                           for kind, count in kinds.items())
        again = " (changed since you trusted it)" if self.recorded is not None else ""
        return (f"this project is not trusted{again}: ignored {listed}. Review and trust them with "
                f"`{TRUST_COMMAND}`{self._path_hint()}")

    def summary(self) -> dict[str, Any]:
        """The same as a field of ``-o json`` / ``stream-json`` output."""
        return {"trusted": not self.needs_trust, "project": str(self.root) if self.root else None,
                "ignored": [item.key for item in self.inputs] if self.needs_trust else [],
                "how": f"{TRUST_COMMAND}{self._path_hint()}" if self.needs_trust else None}

    def _path_hint(self) -> str:
        if self.root is None or self.root == Path.cwd().resolve():
            return ""
        return f" {shlex.quote(str(self.root))}"


def inputs_digest(inputs: list[ProjectInput]) -> str:
    canonical = json.dumps(sorted((item.as_dict() for item in inputs), key=lambda d: d["key"]), sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


# -- reading what the project ships -----------------------------------------------------------------------------

def _hash_bytes(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


def _read_bytes(path: Path) -> bytes:
    if not os.path.lexists(path):
        return b"missing"
    try:
        if path.is_symlink():
            return b"symlink:" + os.readlink(path).encode("utf-8", "surrogateescape")
        return path.read_bytes()
    except OSError as error:
        return f"unreadable: {error.strerror}".encode()


def _tree_files(directory: Path) -> list[Path]:
    """Every file below ``directory`` (symlinks as links, not followed), in a stable order, bounded."""
    found: list[Path] = []
    for current, dirs, files in os.walk(directory):
        dirs[:] = sorted(name for name in dirs if name not in _SKIPPED_NAMES)
        for name in sorted(files):
            if name in _SKIPPED_NAMES or name.endswith(".pyc"):
                continue
            found.append(Path(current) / name)
            if len(found) >= _FILE_LIMIT:
                return found
    return found


def _tree_digest(root: Path, directory: Path) -> str:
    parts: list[bytes] = []
    for path in _tree_files(directory):
        parts += [str(path.relative_to(root)).encode("utf-8", "surrogateescape"), _read_bytes(path)]
    return _hash_bytes(*parts)


def _relative(root: Path, path: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


_INTERPRETERS = frozenset({"sh", "bash", "zsh", "dash", "python", "python3", "node", "deno", "bun", "ruby", "perl",
                           "php", "uv", "uvx", "npx", "pnpm", "yarn", "env"})


def _referenced_files(root: Path, words: list[str], base: Path) -> list[Path]:
    """The files inside the project a command line runs: its program, and the script an interpreter is given
    (``python tools/serve.py``). Pinned whether or not they exist yet: a program that appears later is a change."""
    candidates = words[:1]
    if (words and os.path.basename(words[0]) in _INTERPRETERS) or (words and words[0].startswith("python")):
        candidates += [word for word in words[1:] if not word.startswith("-")][:1]
    found = []
    for word in candidates:
        if not word or "${" in word or ("/" not in word and not (base / word).exists()):
            continue  # a program found on PATH (npx, uvx): not the project's file
        candidate = (base / word) if not os.path.isabs(word) else Path(word)
        real = Path(os.path.realpath(candidate))
        if real == root or root in real.parents:
            found.append(real)
    return found


def _command_words(command: Any, args: Any = None) -> list[str]:
    if isinstance(command, str):
        try:
            words = shlex.split(command)
        except ValueError:
            words = command.split()
    else:
        words = []
    return words + [str(arg) for arg in args or []]


def _with_files(root: Path, shows: list[str], payload: Any, files: list[Path]) -> str:
    parts = [json.dumps(payload, sort_keys=True, default=str).encode(), *("\n".join(shows).encode(),)]
    for path in sorted(set(files)):
        parts += [_relative(root, path).encode("utf-8", "surrogateescape"), _read_bytes(path)]
    return _hash_bytes(*parts)


def _mcp_inputs(root: Path) -> list[ProjectInput]:
    inputs = []
    from amplifier_support.protected_paths import is_stand_in

    for name in MCP_FILES:
        path = root / name
        if not path.is_file() or is_stand_in(path):  # a running command's stand-in: no file yet
            continue
        raw = _read_bytes(path)
        try:
            document = json.loads(raw.decode("utf-8-sig"))
            servers = document.get("mcpServers", document.get("servers")) if isinstance(document, dict) else None
        except (ValueError, UnicodeDecodeError):
            servers = None
        if not isinstance(servers, dict):
            inputs.append(ProjectInput(f"mcp file '{name}'", name, ("not readable as MCP servers; its whole "
                                                                     "content is pinned",), _hash_bytes(raw)))
            continue
        for server, spec in sorted(servers.items(), key=lambda item: str(item[0])):
            spec = spec if isinstance(spec, dict) else {"invalid": spec}
            shows, files = _server_lines(root, spec)
            inputs.append(ProjectInput(f"mcp server '{server}'", f"{name} mcpServers.{server}", tuple(shows),
                                       _with_files(root, shows, spec, files)))
    return inputs


def _server_lines(root: Path, spec: dict[str, Any]) -> tuple[list[str], list[Path]]:
    files: list[Path] = []
    if spec.get("command"):
        words = _command_words(spec.get("command"), spec.get("args"))
        cwd = spec.get("cwd")
        shows = ["runs: " + shlex.join(words)]
        if cwd:
            shows.append(f"in: {cwd}")
        base = root / cwd if isinstance(cwd, str) and not os.path.isabs(cwd) else Path(cwd or root)
        files = _referenced_files(root, words, base)
    else:
        shows = [f"connects to: {spec.get('url', '(no url)')}"]
        headers = spec.get("headers")
        if isinstance(headers, dict) and headers:
            shows.append("sends headers: " + ", ".join(sorted(str(key) for key in headers)))
    env = spec.get("env")
    if isinstance(env, dict) and env:
        shows.append("receives variables: " + ", ".join(
            str(key) + "".join(f" (your ${name})" for name in _references(value)) for key, value in sorted(
                env.items(), key=lambda item: str(item[0]))))
    used = sorted({name for value in (spec.get("url"), spec.get("headers"), spec.get("args"), spec.get("command"))
                   for name in _references(value)})
    if used:
        shows.append("reads your variables: " + ", ".join(used))
    if spec.get("disabled"):
        shows.append("(disabled)")
    return shows, files


def _references(value: Any) -> list[str]:
    """The ``${VAR}`` names a value expands: what of the user's environment it would carry."""
    import re

    text = json.dumps(value, default=str) if not isinstance(value, str) else value
    return re.findall(r"\$\{([A-Za-z_][A-Za-z0-9_]*)", text or "")


def _http_hook_line(hook: dict[str, Any]) -> str:
    """An http hook as the user must see it: where the session's events go, and which variables go with them."""
    line = f"POST {hook.get('url')}"
    sent = hook.get("allowedEnvVars")
    if isinstance(sent, list) and sent:
        line += " (sends " + ", ".join(f"${name}" for name in sent) + ")"
    return line


def _hook_inputs(root: Path) -> list[ProjectInput]:
    directory = root / HOOKS_DIR
    if not directory.is_dir():
        return []
    inputs = []
    hook_files = sorted(path for path in [directory / "hooks.json", *directory.glob("*/hooks.json")] if path.is_file())
    for path in hook_files:
        raw = _read_bytes(path)
        shows: list[str] = []
        files: list[Path] = []
        try:
            events = json.loads(raw.decode("utf-8-sig")).get("hooks")
        except (ValueError, UnicodeDecodeError, AttributeError):
            events = None
        if isinstance(events, dict):
            for event, groups in events.items():
                for group in groups if isinstance(groups, list) else []:
                    group = group if isinstance(group, dict) else {}
                    matcher = group.get("matcher") or "*"
                    for hook in group.get("hooks") or []:
                        if isinstance(hook, dict) and hook.get("type") == "http":  # requests go to this URL
                            shows.append(f"on {event} [{matcher}]: {_http_hook_line(hook)}")
                            continue
                        command = hook.get("command") if isinstance(hook, dict) else None
                        shows.append(f"on {event} [{matcher}]: {command}")
                        words = _command_words(str(command or "").replace("${CLAUDE_PROJECT_DIR}", str(root))
                                               .replace("$CLAUDE_PROJECT_DIR", str(root)))
                        files += _referenced_files(root, words, root)
        else:
            shows.append("not readable as hooks; its whole content is pinned")
        inputs.append(ProjectInput(f"hook file '{_relative(root, path)}'", _relative(root, path), tuple(shows),
                                   _with_files(root, shows, raw.decode("utf-8", "replace"), files)))
    others = [path for path in _tree_files(directory) if path not in hook_files]
    if others:
        names = [_relative(root, path) for path in others]
        inputs.append(ProjectInput("hook scripts", HOOKS_DIR, tuple(f"file: {name}" for name in names),
                                   _with_files(root, [], names, others)))
    return inputs


def gated_settings(data: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Split one project settings document into (harmless, needs trust)."""
    if not isinstance(data, dict):
        return {}, ({"(document)": data} if data is not None else {})
    harmless: dict[str, Any] = {}
    gated: dict[str, Any] = {}
    for key, value in data.items():
        if key == "profile" and isinstance(value, dict) and all(
                isinstance(item, str) and not _looks_like_location(item) for item in value.values()):
            harmless[key] = value
        elif key == "bundle" and isinstance(value, dict) and set(value) == {"active"} and isinstance(
                value["active"], str) and not _looks_like_location(value["active"]):
            harmless[key] = value  # naming a bundle/profile; `added` (URIs) and a path or URL need trust
        elif key in ("updates", "notify", "budget"):  # a budget only narrows what a run may spend
            harmless[key] = value
        elif key == "config" and isinstance(value, dict) and set(value) <= {"providers"}:
            kept, widened = _split_provider_overrides(value.get("providers"))
            if kept:
                harmless["config"] = {"providers": kept}
            if widened:
                gated["config"] = {"providers": widened}
        else:
            gated[key] = value
    return harmless, gated


def _looks_like_location(value: str) -> bool:
    return "/" in value or "\\" in value or value.startswith((".", "~")) or "://" in value or value.startswith("git+")


def _split_provider_overrides(entries: Any) -> tuple[list[Any], list[Any]]:
    if not isinstance(entries, list):
        return [], [entries] if entries is not None else []
    kept, widened = [], []
    for entry in entries:
        config = entry.get("config") if isinstance(entry, dict) else None
        plain = (isinstance(entry, dict) and set(entry) <= {"module", "config"} and isinstance(entry.get("module"), str)
                 and (config is None or isinstance(config, dict)))
        if not plain:
            widened.append(entry)
            continue
        harmless = {key: value for key, value in (config or {}).items()
                    if key in HARMLESS_PROVIDER_KEYS and "${" not in json.dumps(value, default=str)}
        rest = {key: value for key, value in (config or {}).items() if key not in harmless}
        kept.append({"module": entry["module"], "config": harmless})
        if rest:
            widened.append({"module": entry["module"], "config": rest})
    return kept, widened


def _settings_lines(gated: dict[str, Any]) -> list[str]:
    lines = []
    for key, value in gated.items():
        if isinstance(value, dict):
            for sub, item in value.items():
                lines.append(f"{key}.{sub}: {json.dumps(item, default=str, sort_keys=True)}")
        else:
            lines.append(f"{key}: {json.dumps(value, default=str, sort_keys=True)}")
    return lines


def read_project_settings(path: Path) -> Any:
    """One project settings file's data, or the raw text when it does not parse (pinned all the same)."""
    import yaml

    from ..errors import ConfigError
    from .yaml_document import safe_load_limited

    try:
        return safe_load_limited(path.read_text(encoding="utf-8"), path)
    except (OSError, UnicodeDecodeError, yaml.YAMLError, ConfigError):  # a bomb or garbage: pinned as bytes
        return {"(unparsed file)": _read_bytes(path).decode("utf-8", "replace")}


def _settings_inputs(root: Path) -> list[ProjectInput]:
    inputs = []
    for name in SETTINGS_FILES:
        path = root / name
        if not path.is_file():
            continue
        _, gated = gated_settings(read_project_settings(path))
        if gated:
            sources = gated.get("sources")
            notes, files = _module_manifests(root, list(sources.values()) if isinstance(sources, dict) else [],
                                             path.parent)
            shows = _settings_lines(gated) + notes
            inputs.append(ProjectInput(f"settings '{name}'", name, tuple(shows),
                                       _with_files(root, shows, gated, files)))
    return inputs


def _module_manifests(root: Path, sources: list[Any], base: Path) -> tuple[list[str], list[Path]]:
    """For module sources that are local paths: the files to pin, and a line for each that holds an amplifier.toml
    (a gRPC, native or WASM module) saying what it does (its endpoint is where requests go). A source inside the
    project is pinned whole, its code included: editing it after the user trusted the profile is a change to trust
    again. One outside the project is the user's own (only its manifest is pinned). A relative source is relative to
    ``base``, the directory of the file that names it (as the profile loader and the settings read it)."""
    from amplifier_core.module_manifest import MANIFEST_FILE

    notes: list[str] = []
    files: list[Path] = []
    for source in sources:
        if not isinstance(source, str) or "://" in source or source.startswith(("git+", "git@")):
            continue
        directory = Path(os.path.expanduser(source.removeprefix("file:")))
        directory = directory if directory.is_absolute() else base / directory
        real = Path(os.path.realpath(directory))
        if real == root or root in real.parents:
            files += _tree_files(real) if real.is_dir() else [real]
        manifest = directory / MANIFEST_FILE
        if manifest.is_file():
            notes.append(f"{source}: {_module_shows(directory)}")
            files.append(manifest)
    return notes, files


_UNREADABLE = object()


def _profile_data(path: Path) -> Any:
    """A profile (or agent) file's YAML document; ``_UNREADABLE`` when it does not parse."""
    import yaml

    from ..errors import ConfigError
    from .yaml_document import safe_load_limited

    if path.suffix not in (".yaml", ".yml", ".md"):
        return None
    try:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".md" and text.startswith("---"):
            text = text.split("\n---", 1)[0][3:]
        return safe_load_limited(text, path)
    except (OSError, UnicodeDecodeError, yaml.YAMLError, ConfigError):
        return _UNREADABLE


def _profile_lines(path: Path) -> list[str]:
    data = _profile_data(path)
    if data is _UNREADABLE:
        return ["not readable; its whole content is pinned"]
    if not isinstance(data, dict):
        return []
    return _profile_entry_lines(data)


def _profile_sources(data: Any) -> list[Any]:
    """The ``source`` of every module entry of a profile document."""
    if not isinstance(data, dict):
        return []
    found = []
    for section in ("providers", "tools", "hooks", "orchestrator", "context", "agents"):
        entries = data.get(section)
        entries = [entries] if isinstance(entries, dict) and "module" in entries else entries
        found += [entry.get("source") for entry in entries or [] if isinstance(entry, dict)] \
            if isinstance(entries, list) else []
    session = data.get("session")
    if isinstance(session, dict):
        found += [entry.get("source") for entry in (session.get("orchestrator"), session.get("context"))
                  if isinstance(entry, dict)]
    return [source for source in found if source]


def _profile_entry_lines(data: dict[str, Any]) -> list[str]:
    lines = []
    for section in ("providers", "tools", "hooks", "orchestrator", "context", "agents"):
        entries = data.get(section)
        entries = [entries] if isinstance(entries, dict) and "module" in entries else entries
        if isinstance(entries, list):
            for entry in entries:
                if isinstance(entry, dict) and entry.get("module"):
                    source = f" from {entry['source']}" if entry.get("source") else ""
                    lines.append(f"mounts {section}: {entry['module']}{source}")
    session = data.get("session")
    if isinstance(session, dict):
        for part in ("orchestrator", "context"):
            entry = session.get(part)
            if isinstance(entry, dict) and entry.get("source"):
                lines.append(f"mounts {part}: {entry.get('module')} from {entry['source']}")
    for key in ("extends", "includes", "sandbox", "context"):
        if data.get(key) is not None:
            lines.append(f"{key}: {json.dumps(data[key], default=str)}")
    return lines


def _directory_inputs(root: Path, relative: str, kind: str, per_file: bool) -> list[ProjectInput]:
    directory = root / relative
    if not directory.is_dir():
        return []
    inputs = []
    if per_file:
        for path in _tree_files(directory):
            shows = _profile_lines(path) if path.suffix in (".yaml", ".yml", ".md") else ["file"]
            notes, manifests = _module_manifests(root, _profile_sources(_profile_data(path)), path.parent)
            shows += notes
            inputs.append(ProjectInput(f"{kind} '{_relative(directory, path)}'", _relative(root, path), tuple(shows),
                                       _with_files(root, shows, None, [path, *manifests])))
        return inputs
    for child in sorted(directory.iterdir()):
        if child.name in _SKIPPED_NAMES:
            continue
        digest = _tree_digest(root, child) if child.is_dir() else _with_files(root, [], None, [child])
        inputs.append(ProjectInput(f"{kind} '{child.name}'", _relative(root, child), (_module_shows(child),),
                                   digest))
    return inputs


def _module_shows(directory: Path) -> str:
    """What mounting a workspace module does, by its transport (amplifier.toml)."""
    from amplifier_core.module_manifest import ManifestError, read_manifest

    try:
        manifest = read_manifest(directory.name, directory) if directory.is_dir() else None
    except ManifestError as error:
        return f"a module whose amplifier.toml cannot be used ({error.key or 'file'}); its files are pinned"
    if manifest is None or manifest.transport == "python":
        return "Python code that runs when the module is mounted"
    if manifest.transport == "grpc":
        return f"a gRPC {manifest.module_type} module: requests go to {manifest.endpoint}"
    if manifest.transport == "rust":
        return f"a native {manifest.module_type} module: starts the executable {manifest.crate}"
    component = manifest.artifact.name if manifest.artifact else "?"
    return f"a WASM {manifest.module_type or ''} module: runs the component {component}".replace("  ", " ")


def _skill_inputs(root: Path) -> list[ProjectInput]:
    """Each skill folder (everything in it: a skill's scripts are what it tells the model to run)."""
    inputs = []
    for relative in SKILL_DIRS:
        directory = root / relative
        if not directory.is_dir():
            continue
        for child in sorted(directory.iterdir()):
            if child.name in _SKIPPED_NAMES:
                continue
            digest = _tree_digest(root, child) if child.is_dir() else _with_files(root, [], None, [child])
            names = [_relative(child, path) for path in _tree_files(child)] if child.is_dir() else [child.name]
            inputs.append(ProjectInput(f"skill '{_relative(root, child)}'", _relative(root, child),
                                       ("instructions the model follows when it loads them; files: "
                                        + ", ".join(names[:8]) + (" ..." if len(names) > 8 else ""),), digest))
    return inputs


def _command_inputs(root: Path) -> list[ProjectInput]:
    inputs = []
    for relative in COMMAND_DIRS:
        directory = root / relative
        if directory.is_dir():
            for path in _tree_files(directory):
                inputs.append(ProjectInput(f"command '{_relative(root, path)}'", _relative(root, path),
                                           ("a chat command: its text is sent to the model as a prompt",),
                                           _with_files(root, [], None, [path])))
    return inputs


def project_inputs(root: Path) -> list[ProjectInput]:
    """Everything in the project at ``root`` that needs trust (see the module docstring)."""
    return [
        *_mcp_inputs(root),
        *_hook_inputs(root),
        *_settings_inputs(root),
        *_directory_inputs(root, PROFILES_DIR, "profile", per_file=True),
        *_directory_inputs(root, AGENTS_DIR, "agent", per_file=True),
        *_directory_inputs(root, CLAUDE_AGENTS_DIR, "Claude Code agent", per_file=True),
        *_directory_inputs(root, MODULES_DIR, "workspace module", per_file=False),
        *_skill_inputs(root),
        *_command_inputs(root),
    ]


# -- the store ---------------------------------------------------------------------------------------------------

def store_path(paths: AmplifierPaths) -> Path:
    return paths.data_dir / "trust.json"


def _read_store(paths: AmplifierPaths) -> dict[str, Any]:
    try:
        data = json.loads(store_path(paths).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    projects = data.get("projects") if isinstance(data, dict) else None
    return projects if isinstance(projects, dict) else {}


def _write_store(paths: AmplifierPaths, projects: dict[str, Any]) -> Path:
    from .yaml_document import write_text_atomically

    path = store_path(paths)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_text_atomically(path, json.dumps({"version": 1, "projects": projects}, indent=1, sort_keys=True))
    os.chmod(path, 0o600)
    return path


def project_key(root: Path) -> str:
    return os.path.realpath(root)


def project_trust(paths: AmplifierPaths) -> ProjectTrust:
    """Whether the user trusts what this project ships, evaluated once per ``paths`` (forget_trust: again)."""
    state = paths.trust_cache.get("state")
    if state is None:
        state = paths.trust_cache["state"] = evaluate(paths)
    return state


def project_trusted(paths: AmplifierPaths) -> bool:
    """True when the project's code-running inputs may take effect (trusted, or there are none)."""
    return project_trust(paths).trusted


def forget_trust(paths: AmplifierPaths) -> None:
    """Evaluate trust again on next use (after the user trusted or revoked, or edited through amplifier)."""
    paths.trust_cache.clear()


def evaluate(paths: AmplifierPaths) -> ProjectTrust:
    """The project's inputs and whether the user trusts exactly them (no project: nothing to trust)."""
    root = paths.project_root
    if root is None:
        return ProjectTrust(None, [], True)
    inputs = project_inputs(root)
    if not inputs:
        return ProjectTrust(root, [], True)
    entry = _read_store(paths).get(project_key(root))
    recorded = None
    trusted = False
    if isinstance(entry, dict):
        recorded = [ProjectInput.from_dict(item) for item in entry.get("inputs") or [] if isinstance(item, dict)]
        trusted = entry.get("digest") == inputs_digest(inputs)
    return ProjectTrust(root, inputs, trusted, recorded)


def trust_project(paths: AmplifierPaths, state: ProjectTrust) -> Path:
    """Record that the user trusts exactly ``state.inputs`` of the project."""
    from datetime import UTC, datetime

    assert state.root is not None
    projects = _read_store(paths)
    projects[project_key(state.root)] = {
        "digest": state.digest, "trusted_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "inputs": [item.as_dict() for item in state.inputs],
    }
    path = _write_store(paths, projects)
    forget_trust(paths)
    return path


@contextmanager
def keep_trust_across(paths: AmplifierPaths) -> Iterator[None]:
    """Around an edit the user makes through amplifier itself (`mcp add --project`): a project trusted before
    (or with nothing to trust) stays trusted with the edit, instead of asking the user about their own change."""
    forget_trust(paths)
    before = project_trust(paths)
    yield
    forget_trust(paths)
    after = project_trust(paths)
    if before.trusted and after.needs_trust:
        trust_project(paths, after)


def revoke(paths: AmplifierPaths, root: Path) -> bool:
    projects = _read_store(paths)
    removed = projects.pop(project_key(root), None) is not None
    if removed:
        _write_store(paths, projects)
    forget_trust(paths)
    return removed


def trusted_projects(paths: AmplifierPaths) -> list[tuple[str, str, int]]:
    """(project path, when, number of inputs) of every trusted project."""
    return sorted((key, str(entry.get("trusted_at", "")), len(entry.get("inputs") or []))
                  for key, entry in _read_store(paths).items() if isinstance(entry, dict))


def describe(state: ProjectTrust) -> list[str]:
    """The lines shown before the user decides: every input, what it would do, and what changed."""
    change = state.change() if state.recorded is not None else None
    new_keys = {item.key for item in change.added} if change else set()
    before = {item.key: item for item in state.recorded or []}
    changed_keys = {item.key for item in change.changed} if change else set()
    lines = [f"This project ({state.root}) ships things that run code or change where requests go:"]
    for item in state.inputs:
        mark = " [new since you trusted it]" if item.key in new_keys else (
            " [changed since you trusted it]" if item.key in changed_keys else "")
        lines.append(f"  {item.key} ({item.where}){mark}")
        lines.extend(f"      {line}" for line in item.shows)
        if item.key in changed_keys:
            old = before[item.key].shows
            if old != item.shows:
                lines.extend(f"    was {line}" for line in old)
            else:
                lines.append("      (a file it runs or holds changed)")
    if change and change.removed:
        lines.append("  removed since you trusted it: " + ", ".join(item.key for item in change.removed))
    return lines
