"""Finding skills: folders holding a ``SKILL.md`` (YAML front matter ``name``, ``description`` and the optional
fields of the Agent Skills format, then a Markdown body), read from several directories where a later directory
wins by name. Only the front matter is read here; the body is read when the model loads the skill."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from amplifier_support.yaml_limits import YamlLimitError, safe_load_limited

logger = logging.getLogger(__name__)

SKILL_FILE = "SKILL.md"
MAX_SKILL_FILE_BYTES = 512 * 1024  # a SKILL.md larger than this is not a skill somebody wrote by hand
MAX_SKILLS_PER_SOURCE = 500
_SKIPPED_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv"})


@dataclass(frozen=True)
class SkillSource:
    """One directory skills are read from, and where it came from (``user``, ``project``, ``profile``)."""

    origin: str
    directory: Path


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    path: Path  # the SKILL.md
    source: SkillSource
    version: str | None = None
    license: str | None = None
    compatibility: str | None = None
    allowed_tools: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def directory(self) -> Path:
        return self.path.parent

    def row(self) -> dict[str, Any]:
        """Plain data for the app's ``/skills`` and for ``info``."""
        return {"name": self.name, "description": self.description, "path": str(self.path),
                "directory": str(self.directory), "origin": self.source.origin,
                "source": str(self.source.directory)}


@dataclass
class SkillCatalog:
    skills: dict[str, Skill] = field(default_factory=dict)
    shadowed: list[Skill] = field(default_factory=list)  # found, but a later directory had the same name
    problems: list[str] = field(default_factory=list)  # files skipped, each naming the file and the fix


def split_front_matter(text: str) -> tuple[str | None, str]:
    """(front matter text, body) of a Markdown file; (None, text) when it has no ``---`` block first."""
    if not text.startswith("---"):
        return None, text
    first_end = text.find("\n")
    if first_end < 0 or text[:first_end].strip() != "---":
        return None, text
    rest = text[first_end + 1:]
    position = 0
    for line in rest.splitlines(keepends=True):
        if line.strip() == "---":
            return rest[:position], rest[position + len(line):]
        position += len(line)
    return None, text


def read_skill_text(path: Path) -> str:
    with open(path, "rb") as handle:
        data = handle.read(MAX_SKILL_FILE_BYTES + 1)
    if len(data) > MAX_SKILL_FILE_BYTES:
        raise ValueError(f"larger than {MAX_SKILL_FILE_BYTES // 1024} KiB")
    return data.decode("utf-8-sig", errors="replace")


def skill_body(skill: Skill) -> str:
    """The Markdown body of a skill (what ``load`` returns), read now so an edit shows at once."""
    _, body = split_front_matter(read_skill_text(skill.path))
    return body.strip()


def _text_list(value: Any) -> tuple[str, ...]:
    """``allowed-tools`` as the format allows it: a list, or a space- or comma-separated string."""
    if isinstance(value, list):
        return tuple(str(item) for item in value)
    if isinstance(value, str):
        return tuple(part for part in value.replace(",", " ").split() if part)
    return ()


def read_skill(path: Path, source: SkillSource) -> Skill:
    """One SKILL.md's front matter as a Skill; ValueError says what is wrong and how to fix it."""
    try:
        text = read_skill_text(path)
    except OSError as error:
        raise ValueError(f"cannot read it ({error.strerror or error})") from None
    header, _ = split_front_matter(text)
    if header is None:
        raise ValueError("no YAML front matter; start the file with a '---' block holding name and description")
    try:  # a skill may come from a project: a nesting or alias bomb is an error, not a RecursionError
        data = safe_load_limited(header)
    except YamlLimitError as error:
        where = f" at line {error.line + 1}" if error.line is not None else ""
        raise ValueError(f"the front matter is past a limit{where}: {error.problem}") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        raise ValueError(f"the front matter is not valid YAML{where}") from None
    if not isinstance(data, dict):
        raise ValueError("the front matter must be a mapping with name and description")
    name = data.get("name") or path.parent.name
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        raise ValueError("front matter key 'description' is missing; say what the skill does and when to use it")
    metadata = data.get("metadata")
    return Skill(
        name=str(name).strip(), description=" ".join(description.split()), path=path, source=source,
        version=str(data["version"]) if data.get("version") is not None else None,
        license=str(data["license"]) if data.get("license") is not None else None,
        compatibility=str(data["compatibility"]) if data.get("compatibility") is not None else None,
        allowed_tools=_text_list(data.get("allowed-tools", data.get("allowed_tools"))),
        metadata=metadata if isinstance(metadata, dict) else {},
    )


def _skill_files(directory: Path) -> list[Path]:
    """Every SKILL.md below ``directory`` (a skill folder may sit in a category folder), bounded, stable."""
    found: list[Path] = []
    for current, dirs, files in os.walk(directory, followlinks=True):
        dirs[:] = sorted(name for name in dirs if name not in _SKIPPED_DIRS)
        if SKILL_FILE in files:
            found.append(Path(current) / SKILL_FILE)
            dirs[:] = []  # a skill's own sub-folders are its files, not more skills
            if len(found) >= MAX_SKILLS_PER_SOURCE:
                break
    return found


def discover(sources: list[SkillSource]) -> SkillCatalog:
    """Skills of every source, lowest precedence first: a later source's skill replaces an earlier one's."""
    catalog = SkillCatalog()
    seen_dirs: set[str] = set()
    for source in sources:
        real = os.path.realpath(source.directory)
        if real in seen_dirs or not os.path.isdir(real):
            continue
        seen_dirs.add(real)
        for path in _skill_files(source.directory):
            try:
                skill = read_skill(path, source)
            except ValueError as error:
                catalog.problems.append(f"{path}: {error}; skill skipped")
                continue
            earlier = catalog.skills.get(skill.name)
            if earlier is not None:
                catalog.shadowed.append(earlier)
            catalog.skills[skill.name] = skill
    for problem in catalog.problems:
        logger.warning("tool-skills: %s", problem)
    return catalog


def skill_files(skill: Skill, limit: int = 50) -> list[str]:
    """The skill's other files, relative to its folder: what the model may read next with the file tools."""
    names: list[str] = []
    for current, dirs, files in os.walk(skill.directory):
        dirs[:] = sorted(name for name in dirs if name not in _SKIPPED_DIRS)
        for name in sorted(files):
            relative = os.path.relpath(os.path.join(current, name), skill.directory)
            if relative != SKILL_FILE:
                names.append(relative)
            if len(names) >= limit:
                return names
    return names
