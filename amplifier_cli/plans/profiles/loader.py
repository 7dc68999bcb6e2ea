"""Find profiles (project > user > bundled), follow `extends`, merge, validate: a LoadedProfile."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...config.merge import deep_merge, merge_module_lists, merge_role_entry
from ...config.paths import AmplifierPaths, bundled_profiles_dir
from ...config.schema_errors import validate_document
from ...config.source_uri import normalize_source_uri
from ...config.yaml_document import YamlDocument, load_yaml_document
from ...errors import ConfigError, Problem
from ..mount_plan import MODULE_LIST_SECTIONS, MountPlan, canonicalize_plan
from .schema import REMOVED_UPSTREAM_KEYS, ProfileFile

PROFILE_SUFFIXES = (".yaml", ".yml", ".md")
DEFAULT_PROFILE = "default"
PROFILE_ONLY_KEYS = ("profile", "exclude", "instruction", "project_instructions")  # not part of the mount plan


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


def search_dirs(paths: AmplifierPaths) -> list[tuple[str, Path]]:
    """Highest precedence first."""
    dirs: list[tuple[str, Path]] = []
    if paths.project_profiles_dir is not None:
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
    """Load, merge the extends chain, validate. Raises ConfigError naming file, line, key path and fix."""
    location = find_profile(profile_name_from_ref(name), paths)
    if location is None:
        raise ConfigError.single(f"profile '{name}' not found", fix=_suggest_profile(name, paths))
    return load_profile_at(location, paths)


def load_profile_at(location: ProfileLocation, paths: AmplifierPaths) -> LoadedProfile:
    chain: list[tuple[ProfileLocation, dict[str, Any], YamlDocument]] = []
    visiting: list[Path] = []
    current: ProfileLocation | None = location
    while current is not None:
        resolved = current.path.resolve()
        if resolved in visiting:
            cycle = " -> ".join(str(p) for p in [*visiting, resolved])
            raise ConfigError.single(
                f"profile inheritance cycle: {cycle}",
                file=current.path,
                key_path="profile.extends",
                fix="remove one of the 'extends' links",
            )
        visiting.append(resolved)
        doc, data = _read_profile_file(current.path)
        chain.append((current, data, doc))
        parent_ref = (data.get("profile") or {}).get("extends")
        if not parent_ref:
            break
        parent_name = profile_name_from_ref(parent_ref)
        parent = find_profile(parent_name, paths, below=current.path if parent_name == current.name else None)
        if parent is None and parent_name == current.name:
            raise ConfigError.single(
                f"extends its own name '{parent_ref}', but no lower-precedence profile of that name exists",
                file=current.path,
                line=doc.line_of(("profile", "extends")),
                key_path="profile.extends",
                fix=f"extend another profile ({_suggest_profile(parent_name, paths, exclude=parent_name)})",
            )
        if parent is None:
            raise ConfigError.single(
                f"extends unknown profile '{parent_ref}'",
                file=current.path,
                line=doc.line_of(("profile", "extends")),
                key_path="profile.extends",
                fix=_suggest_profile(parent_name, paths),
            )
        current = parent

    merged: dict[str, Any] = {}
    provenance: dict[str, str] = {}
    instruction: str | None = None
    for loc, data, _doc in reversed(chain):  # root first
        merged = merge_profile_data(merged, data)
        for section in MODULE_LIST_SECTIONS:
            for entry in data.get(section) or []:
                provenance[f"{section}:{entry['module']}"] = loc.name
        if data.get("instruction") is not None:
            instruction = data["instruction"]
    leaf_meta = chain[0][1].get("profile") or {}
    plan = {key: value for key, value in merged.items() if key not in PROFILE_ONLY_KEYS}
    _validate_merged(plan, chain)
    return LoadedProfile(
        name=location.name,
        location=location,
        chain=[loc for loc, _data, _doc in chain],
        plan=plan,
        instruction=instruction.strip() if isinstance(instruction, str) else None,
        description=leaf_meta.get("description"),
        version=leaf_meta.get("version"),
        provenance=provenance,
        project_instructions=merged.get("project_instructions") is not False,
    )


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
    model, schema_problems = validate_document(ProfileFile, doc, data=data)
    problems.extend(schema_problems)
    if problems:
        raise ConfigError(f"invalid profile {path}", problems)
    clean = model.model_dump(exclude_unset=True)
    if doc.body and clean.get("instruction") is None:
        clean["instruction"] = doc.body
    clean = canonicalize_plan(clean)
    _absolutize_sources(clean, path.parent)
    return doc, clean


def _absolutize_sources(data: dict[str, Any], base_dir: Path) -> None:
    """Relative sources are relative to the file that declares them."""
    entries = [*(data.get("session") or {}).values()]
    for section in MODULE_LIST_SECTIONS:
        entries += data.get(section) or []
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("source"), str):
            entry["source"] = normalize_source_uri(entry["source"], base_dir)


def merge_profile_data(parent: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    """parent <- child: `exclude` applied to the parent first (not inherited), module lists merged by id,
    orchestrator/context replaced when the module changes, everything else deep-merged."""
    base = apply_exclude(copy.deepcopy(parent), child.get("exclude") or {})
    base.pop("exclude", None)
    merged = copy.deepcopy(base)
    for key, value in child.items():
        if key == "exclude":
            continue
        if key in MODULE_LIST_SECTIONS:
            merged[key] = merge_module_lists(base.get(key) or [], value or [])
        elif key == "session":
            session = deep_merge(
                {k: v for k, v in (base.get("session") or {}).items() if k not in ("orchestrator", "context")},
                {k: v for k, v in (value or {}).items() if k not in ("orchestrator", "context")},
            )
            for role in ("orchestrator", "context"):
                entry = merge_role_entry((base.get("session") or {}).get(role), (value or {}).get(role))
                if entry is not None:
                    session[role] = entry
            merged["session"] = session
        elif key in ("agents", "instruction", "project_instructions"):
            merged[key] = copy.deepcopy(value)
        else:
            merged[key] = deep_merge(base.get(key), value)
    return merged


def apply_exclude(data: dict[str, Any], exclude: dict[str, Any]) -> dict[str, Any]:
    for section, what in exclude.items():
        if what is None:
            continue
        if section == "agents":
            if what == "all":
                data["agents"] = "none"
            elif isinstance(data.get("agents"), list):
                data["agents"] = [name for name in data["agents"] if name not in what]
            elif isinstance(data.get("agents"), dict):
                data["agents"] = {k: v for k, v in data["agents"].items() if k not in what}
            continue
        if what == "all":
            data[section] = []
        else:
            data[section] = [entry for entry in data.get(section) or [] if entry.get("module") not in what]
    return data


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
