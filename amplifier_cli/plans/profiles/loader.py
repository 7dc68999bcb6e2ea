"""Find profiles and bundles (project > user > bundled), follow `extends` and `includes`, merge, validate:
a LoadedProfile. Both are merged by the same rules (`merge_profile_data`), parents and includes first."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ...config.paths import AmplifierPaths, bundled_profiles_dir
from ...config.schema_errors import format_key_path, validate_document
from ...config.source_uri import is_path_like
from ...config.trust import project_trusted
from ...config.yaml_document import YamlDocument, load_yaml_document
from ...errors import ConfigError, Problem
from ..mount_plan import MODULE_LIST_SECTIONS, MountPlan, canonicalize_plan
from .bundle_resources import ContextFile, agent_definitions, compose_instruction, context_files
from .bundle_resources import absolutize_sources as _absolutize_sources
from .bundle_schema import BundleFile, is_bundle_data
from .includes import BUNDLE_FILE_NAMES, ReferenceNotFound, ReferenceResolver
from .merge_rules import merge_profile_data
from .schema import REMOVED_UPSTREAM_KEYS, ProfileFile

PROFILE_SUFFIXES = (".yaml", ".yml", ".md")
DEFAULT_PROFILE = "default"
# not part of the mount plan
PROFILE_ONLY_KEYS = ("profile", "exclude", "instruction", "project_instructions", "sandbox", "budget", "pricing")


@dataclass(frozen=True)
class ProfileLocation:
    name: str
    path: Path
    origin: str  # project | user | bundled


@dataclass
class LoadedProfile:
    """The merged profile: `plan` is the canonical mount plan (with ${VAR} references kept)."""

    name: str
    location: ProfileLocation
    chain: list[ProfileLocation]  # leaf first
    plan: dict[str, Any]
    instruction: str | None
    description: str | None = None
    version: str | None = None
    provenance: dict[str, str] = field(default_factory=dict)  # "tools:tool-bash" -> profile that last set it
    project_instructions: bool = True  # add AGENTS.md / AMPLIFIER.md to new sessions
    sandbox: dict[str, Any] | None = None  # `sandbox:` defaults for the modules that run commands for the model
    budget: dict[str, Any] | None = None  # `budget:` limits of a run (sessions/budget)
    pricing: dict[str, Any] | None = None  # `pricing:` model -> USD per million tokens (sessions/pricing)


def search_dirs(paths: AmplifierPaths) -> list[tuple[str, Path]]:
    """Highest precedence first."""
    dirs: list[tuple[str, Path]] = []
    if paths.project_profiles_dir is not None and project_trusted(paths):  # the project's own wait for trust
        dirs.append(("project", paths.project_profiles_dir))
    dirs.append(("user", paths.user_profiles_dir))
    dirs.append(("bundled", bundled_profiles_dir()))
    return dirs


def profile_name_from_ref(ref: str) -> str:
    """Accept upstream's `collection:profiles/name.md` / `collection:name` forms by their last part."""
    name = ref.split(":", 1)[-1]
    name = name.rsplit("/", 1)[-1]
    for suffix in PROFILE_SUFFIXES:
        name = name.removesuffix(suffix)
    return name


def find_profile(name: str, paths: AmplifierPaths, *, below: Path | None = None) -> ProfileLocation | None:
    """First file named `name` in the search order; with `below`, only locations after that file
    (so `extends: default` inside a user `default.yaml` means the bundled one)."""
    candidates = list_locations(paths, name)
    if below is not None:
        resolved = [c.path.resolve() for c in candidates]
        if below.resolve() in resolved:
            candidates = candidates[resolved.index(below.resolve()) + 1 :]
    return candidates[0] if candidates else None


def list_locations(paths: AmplifierPaths, only: str | None = None) -> list[ProfileLocation]:
    """Every profile file, highest precedence first (a name may appear several times: first one wins)."""
    found: list[ProfileLocation] = []
    for origin, directory in search_dirs(paths):
        if not directory.is_dir():
            continue
        seen_here: set[str] = set()
        files = sorted(
            directory.iterdir(),
            key=lambda p: (p.stem, PROFILE_SUFFIXES.index(p.suffix) if p.suffix in PROFILE_SUFFIXES else 99),
        )
        for path in files:
            if path.is_dir():  # an upstream bundle directory: <name>/bundle.md
                bundle_file = next((path / n for n in BUNDLE_FILE_NAMES if (path / n).is_file()), None)
                if bundle_file is None or path.name in seen_here or (only is not None and path.name != only):
                    continue
                seen_here.add(path.name)
                found.append(ProfileLocation(path.name, bundle_file, origin))
                continue
            if path.suffix not in PROFILE_SUFFIXES or not path.is_file() or path.stem.upper() == "README":
                continue
            if path.stem in seen_here or (only is not None and path.stem != only):
                continue
            seen_here.add(path.stem)
            found.append(ProfileLocation(path.stem, path, origin))
    return found


def available_names(paths: AmplifierPaths) -> list[str]:
    return sorted({location.name for location in list_locations(paths)})


def load_profile(name: str, paths: AmplifierPaths) -> LoadedProfile:
    """Load, merge the extends/includes graph, validate. Raises ConfigError naming file, line, key path and fix.

    `name` is a profile or bundle name (searched project > user > bundled), or a direct reference to a bundle:
    a path (`./bundle.md`, a directory holding `bundle.md`) or a `git+URL[@ref][#subdirectory=...]`."""
    resolver = _resolver(paths)
    if _is_direct_reference(name, paths.cwd):
        try:
            path, origin = resolver.bundle_file(name, paths.cwd, lambda _name: None)
        except ReferenceNotFound as missing:
            raise ConfigError.single(missing.message, fix=missing.fix) from None
        label = name if origin == "git" else str(path)
        return load_profile_at(ProfileLocation(label, path, "git" if origin == "git" else "path"), paths, resolver)
    location = find_profile(profile_name_from_ref(name), paths)
    if location is None:
        if _waits_for_trust(profile_name_from_ref(name), paths):
            raise ConfigError.single(
                f"profile '{name}' is one of this project's, and you have not trusted the project",
                file=paths.project_profiles_dir,
                fix="review what the project ships and trust it with `amplifier trust`")
        raise ConfigError.single(f"profile '{name}' not found", fix=_suggest_profile(name, paths))
    return load_profile_at(location, paths, resolver)


def _waits_for_trust(name: str, paths: AmplifierPaths) -> bool:
    directory = paths.project_profiles_dir
    if directory is None or project_trusted(paths) or not directory.is_dir():
        return False
    return any((directory / f"{name}{suffix}").is_file() for suffix in PROFILE_SUFFIXES) or any(
        (directory / name / file_name).is_file() for file_name in BUNDLE_FILE_NAMES)


def _is_direct_reference(name: str, cwd: Path) -> bool:
    if name.startswith("git+") or is_path_like(name):
        return True
    return Path(name).suffix in PROFILE_SUFFIXES and (cwd / name).is_file()


def _resolver(paths: AmplifierPaths) -> ReferenceResolver:
    from ..sources.git_cache import GitCache

    return ReferenceResolver(fetch_git=GitCache(paths.git_cache_dir).ensure)


@dataclass
class _Node:
    """One file of the graph: its canonical data plus what it points at (`extends`, `includes`)."""

    location: ProfileLocation
    doc: YamlDocument
    data: dict[str, Any]
    is_bundle: bool = False
    includes: list[str] = field(default_factory=list)
    context_section: Any = None
    contexts: list[ContextFile] = field(default_factory=list)


def load_profile_at(
    location: ProfileLocation, paths: AmplifierPaths, resolver: ReferenceResolver | None = None
) -> LoadedProfile:
    resolver = resolver or _resolver(paths)
    order = _collect(location, paths, resolver)  # merge order: parents and includes first
    merged: dict[str, Any] = {}
    provenance: dict[str, str] = {}
    instruction: str | None = None
    contexts: list[ContextFile] = []
    for node in order:
        previous_agents = merged.get("agents")
        merged = merge_profile_data(merged, node.data)
        if node.is_bundle and isinstance(previous_agents, dict) and isinstance(node.data.get("agents"), dict):
            merged["agents"] = {**previous_agents, **copy.deepcopy(node.data["agents"])}  # bundles accumulate
        for section in MODULE_LIST_SECTIONS:
            for entry in node.data.get(section) or []:
                provenance[f"{section}:{entry['module']}"] = node.location.name
        if node.data.get("instruction") is not None:
            instruction = node.data["instruction"]
        contexts += [c for c in node.contexts if c.path.resolve() not in {k.path.resolve() for k in contexts}]
    if isinstance(merged.get("agents"), dict) and resolver.namespaces:
        merged["agents"] = {name: _with_mentions(entry, resolver) for name, entry in merged["agents"].items()}
    chain = list(reversed(order))
    leaf = chain[0]
    leaf_meta = leaf.doc.data.get("bundle") or leaf.doc.data.get("profile") or {}
    plan = {key: value for key, value in merged.items() if key not in PROFILE_ONLY_KEYS}
    _validate_merged(plan, [(node.location, node.data, node.doc) for node in chain])
    return LoadedProfile(
        name=location.name,
        location=location,
        chain=[node.location for node in chain],
        plan=plan,
        instruction=compose_instruction(instruction, contexts, resolver),
        description=leaf_meta.get("description") if isinstance(leaf_meta, dict) else None,
        version=str(leaf_meta["version"]) if isinstance(leaf_meta, dict) and leaf_meta.get("version") else None,
        provenance=provenance,
        project_instructions=merged.get("project_instructions") is not False,
        sandbox=merged.get("sandbox") or None,
        budget=merged.get("budget") or None,
        pricing=merged.get("pricing") or None,
    )


def _with_mentions(agent: Any, resolver: ReferenceResolver) -> Any:
    """An agent's instruction gets the files its `@namespace:path` mentions name, as the session's does."""
    if not isinstance(agent, dict) or not isinstance(agent.get("instruction"), str):
        return agent
    return {**agent, "instruction": compose_instruction(agent["instruction"], [], resolver)}


def _collect(location: ProfileLocation, paths: AmplifierPaths, resolver: ReferenceResolver) -> list[_Node]:
    """Depth-first over `extends` and `includes`: every file after what it builds on, each file once (at its
    first place). A file reached again while it is still being read is a cycle."""
    order: list[_Node] = []
    done: set[Path] = set()
    stack: list[Path] = []

    def visit(current: ProfileLocation, via: tuple[_Node, str, tuple[str | int, ...]] | None) -> None:
        resolved = current.path.resolve()
        if resolved in stack and via is not None:  # (the root is never on the stack before itself)
            cycle = " -> ".join(str(p) for p in [*stack, resolved])
            holder, _ref, key_path = via
            kind = "profile inheritance" if key_path == ("profile", "extends") else "bundle include"
            raise ConfigError.single(
                f"{kind} cycle: {cycle}",
                file=holder.location.path,
                line=holder.doc.line_of(key_path),
                key_path=format_key_path(key_path),
                fix="remove one of the 'extends'/'includes' links that lead back to a file being loaded",
            )
        if resolved in done:
            return
        stack.append(resolved)
        node = _read_node(current, resolver, top=via is None)
        extends = (node.data.get("profile") or {}).get("extends")
        links: list[tuple[str, tuple[str | int, ...]]] = [(extends, ("profile", "extends"))] if extends else []
        links += [(ref, ("includes", index)) for index, ref in enumerate(node.includes)]
        for ref, key_path in links:
            parent = (
                _extends_location(node, ref, paths)
                if key_path == ("profile", "extends")
                else _include_location(node, ref, key_path, paths, resolver)
            )
            visit(parent, (node, ref, key_path))
        _finish_node(node, resolver)
        stack.pop()
        done.add(resolved)
        order.append(node)

    visit(location, None)
    return order


def _extends_location(node: _Node, parent_ref: str, paths: AmplifierPaths) -> ProfileLocation:
    current = node.location
    parent_name = profile_name_from_ref(parent_ref)
    parent = find_profile(parent_name, paths, below=current.path if parent_name == current.name else None)
    if parent is None and parent_name == current.name:
        raise ConfigError.single(
            f"extends its own name '{parent_ref}', but no lower-precedence profile of that name exists",
            file=current.path,
            line=node.doc.line_of(("profile", "extends")),
            key_path="profile.extends",
            fix=f"extend another profile ({_suggest_profile(parent_name, paths, exclude=parent_name)})",
        )
    if parent is None:
        raise ConfigError.single(
            f"extends unknown profile '{parent_ref}'",
            file=current.path,
            line=node.doc.line_of(("profile", "extends")),
            key_path="profile.extends",
            fix=_suggest_profile(parent_name, paths),
        )
    return parent


def _include_location(
    node: _Node, ref: str, key_path: tuple[str | int, ...], paths: AmplifierPaths, resolver: ReferenceResolver
) -> ProfileLocation:
    current = node.location

    def find_named(name: str) -> Path | None:
        found = find_profile(name, paths, below=current.path if name == current.name else None)
        return found.path if found is not None else None

    try:
        path, origin = resolver.bundle_file(ref, current.path.parent, find_named)
    except ReferenceNotFound as missing:
        raise ConfigError.single(
            f"include '{ref}' not found: {missing.message}",
            file=current.path,
            line=node.doc.line_of(key_path),
            key_path=format_key_path(key_path),
            fix=missing.fix,
        ) from None
    if paths.git_cache_dir.resolve() in path.resolve().parents:
        origin = "git"  # a part of a fetched repository, reached by namespace or relative path
    return ProfileLocation(_file_label(path), path, origin)


def _file_label(path: Path) -> str:
    """A bundle's name before it is read: `x` for x.md, the directory's name for x/bundle.md."""
    if path.name in BUNDLE_FILE_NAMES:
        return path.parent.name
    return path.stem


def _read_node(location: ProfileLocation, resolver: ReferenceResolver, *, top: bool) -> _Node:
    doc, data = _read_profile_file(location.path)
    node = _Node(location, doc, data)
    if is_bundle_data(doc.data):
        node.is_bundle = True
        meta = data.pop("bundle", None) or {}
        node.includes = data.pop("includes", None) or []
        node.context_section = data.pop("context_files", None)
        resolver.register(meta.get("name"), location.path)
        if meta.get("name") and not top:
            node.location = replace(location, name=meta["name"])
    return node


def _finish_node(node: _Node, resolver: ReferenceResolver) -> None:
    """Context files and agent files may name namespaces of included bundles: resolved once those are read."""
    if not node.is_bundle:
        return
    node.contexts = context_files(node.context_section, node.doc, resolver)
    if "agents" in node.data:
        node.data["agents"] = agent_definitions(node.data["agents"], node.doc, resolver)


def _read_profile_file(path: Path) -> tuple[YamlDocument, dict[str, Any]]:
    doc = load_yaml_document(path)
    if not isinstance(doc.data, dict):
        raise ConfigError.single(
            "a profile must be a mapping (mount plan keys plus 'profile:')",
            file=path,
            line=1,
            fix="start the file with 'profile: {name: ..., description: ...}'",
        )
    problems: list[Problem] = []
    for key, fix in REMOVED_UPSTREAM_KEYS.items():
        if key in doc.data:
            problems.append(Problem(f"'{key}' is not a profile key", path, doc.line_of((key,)), key, fix))
    data = {key: value for key, value in doc.data.items() if key not in REMOVED_UPSTREAM_KEYS}
    bundle = is_bundle_data(doc.data)
    model, schema_problems = validate_document(BundleFile if bundle else ProfileFile, doc, data=data)
    problems.extend(schema_problems)
    if problems:
        raise ConfigError(f"invalid {'bundle' if bundle else 'profile'} {path}", problems)
    clean = model.model_dump(exclude_unset=True)
    if bundle and "context" in clean:  # a bundle's `context:` lists files, it is not the mount plan's section
        clean["context_files"] = clean.pop("context")
    if doc.body and clean.get("instruction") is None:
        clean["instruction"] = doc.body
    clean = canonicalize_plan(clean)
    _absolutize_sources(clean, path.parent)
    return doc, clean


def _validate_merged(plan: dict[str, Any], chain: list[tuple[ProfileLocation, dict[str, Any], YamlDocument]]) -> None:
    from pydantic import ValidationError

    try:
        MountPlan.model_validate(plan)
    except ValidationError as exc:
        leaf = chain[0][0]
        names = " -> ".join(loc.name for loc, _d, _doc in chain)
        problems = []
        for error in exc.errors(include_url=False):
            message = str(error["msg"]).removeprefix("Value error, ")
            problems.append(
                Problem(
                    f"{message} after inheritance ({names})",
                    leaf.path,
                    None,
                    "session",
                    "add e.g. 'session: {orchestrator: loop-basic, context: context-simple}' or extend a "
                    "profile that has them",
                )
            )
        raise ConfigError(f"profile '{leaf.name}' is incomplete", problems) from exc


def _suggest_profile(name: str, paths: AmplifierPaths, *, exclude: str | None = None) -> str:
    import difflib

    names = [n for n in available_names(paths) if n != exclude]
    if exclude is not None:
        return f"available profiles: {', '.join(names) or 'none'}"
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
    if close:
        return f"did you mean '{close[0]}'? (amplifier profile list)"
    return f"available profiles: {', '.join(names) or 'none'}"
