"""A bundle's resources besides its mount plan: the context files it adds to the instruction, and the agents
it brings (agent files named in `agents.include`, inline definitions).

How the instruction is made (one rule for every bundle chain): the instruction text is the Markdown body (or
`instruction:`) of the last file in merge order that has one (a later file replaces an earlier one, as with
`extends:`), followed by every context file of every bundle in merge order (included bundles first, each
file once), each as a `# Context: <reference>` section; sections are separated by a `---` line. As upstream
does, the files that `@namespace:path` mentions in that text name (see `mentions`) come first, each as a
`<context_file paths="@ref -> /path">` block, then a `---` line, then that text (mentions kept as references).
Files are read when the bundle is loaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...config.source_uri import normalize_source_uri
from ...config.yaml_document import YamlDocument, load_yaml_document
from ...errors import ConfigError
from ..mount_plan import MODULE_LIST_SECTIONS
from .includes import ReferenceNotFound, ReferenceResolver

SECTION_SEPARATOR = "\n\n---\n\n"
AGENT_SUFFIXES = (".md", ".yaml", ".yml")


@dataclass(frozen=True)
class ContextFile:
    label: str  # the reference as written (`foundation:context/x.md`)
    path: Path


def context_files(section: Any, doc: YamlDocument, resolver: ReferenceResolver) -> list[ContextFile]:
    """`context: {include: [refs], label: path}` resolved to existing files, in the order written."""
    if not isinstance(section, dict):
        return []
    found: list[ContextFile] = []
    for key, value in section.items():
        refs = [(("context", key, i), ref) for i, ref in enumerate(value)] if key == "include" else [
            (("context", key), value)
        ]
        for key_path, ref in refs:
            try:
                path = resolver.file(ref, doc.path)
            except ReferenceNotFound as missing:
                raise _located(missing, doc, key_path) from None
            found.append(ContextFile(ref, path))
    return found


def compose_instruction(
    body: str | None, contexts: list[ContextFile], resolver: ReferenceResolver | None = None
) -> str | None:
    parts = [body.strip()] if body and body.strip() else []
    for context in contexts:
        parts.append(f"# Context: {context.label}\n\n{_read_context(context).strip()}")
    if not parts:
        return None
    combined = SECTION_SEPARATOR.join(parts)
    if resolver is None or not resolver.namespaces:
        return combined
    from .mentions import mentioned_files

    known = {context.path.resolve() for context in contexts}
    blocks = [
        f'<context_file paths="@{ref} -> {path}">\n{_read_context(ContextFile(ref, path)).strip()}\n</context_file>'
        for ref, path in mentioned_files([combined], resolver, known)
    ]
    return SECTION_SEPARATOR.join(["\n\n".join(blocks), combined]) if blocks else combined


def _read_context(context: ContextFile) -> str:
    try:
        return context.path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError.single(f"cannot read context file {context.path}: {exc}", file=context.path,
                                 fix="make it a readable UTF-8 text file, or remove it from context:") from exc


def agent_definitions(section: Any, doc: YamlDocument, resolver: ReferenceResolver) -> Any:
    """Upstream's agents mapping -> this project's `agents:` mapping of definitions (name -> definition data).

    `include: [ns:name]` reads `agents/<name>.md` (or .yaml) in that namespace's root (a bare name: in this
    bundle's directory) and names the agent by the reference as written. An inline definition may point at its
    instruction file with upstream's `instructions: <reference>`. Other forms ('all', 'none', [names]) pass."""
    if not isinstance(section, dict):
        return section
    agents: dict[str, Any] = {}
    for index, ref in enumerate(section.get("include") or []):
        try:
            path = _agent_file(ref, doc.path, resolver)
        except ReferenceNotFound as missing:
            raise _located(missing, doc, ("agents", "include", index)) from None
        agents[ref] = _definition_from_file(path)
    for name, value in section.items():
        if name == "include":
            continue
        entry = dict(value)
        instructions = entry.pop("instructions", None)
        if isinstance(instructions, str):
            try:
                path = resolver.file(instructions, doc.path)
            except ReferenceNotFound as missing:
                raise _located(missing, doc, ("agents", name, "instructions")) from None
            entry = {**_definition_from_file(path), **entry}
        absolutize_sources(entry, doc.path.parent)
        agents[name] = entry
    return agents


def _agent_file(ref: str, declaring_file: Path, resolver: ReferenceResolver) -> Path:
    namespace, _, name = ref.rpartition(":")
    base = resolver.namespaced_path(f"{namespace}:agents") if namespace else declaring_file.parent / "agents"
    for suffix in AGENT_SUFFIXES:
        if (base / f"{name}{suffix}").is_file():
            return base / f"{name}{suffix}"
    raise ReferenceNotFound(f"agent '{ref}' not found (no {base / name}.md)",
                            f"create {base / name}.md, or remove '{ref}' from agents.include")


def _definition_from_file(path: Path) -> dict[str, Any]:
    """An agent file as definition data: its frontmatter, its body as `instruction`, sources made absolute."""
    doc = load_yaml_document(path)
    if not isinstance(doc.data, dict):
        raise ConfigError.single("an agent file must be a mapping (meta, description, tools, ...)", file=path,
                                 line=1, fix="start the file with '---' and 'meta: {name: ..., description: ...}'")
    data = dict(doc.data)
    if doc.body and data.get("instruction") is None:
        data["instruction"] = doc.body
    absolutize_sources(data, path.parent)
    return data


def absolutize_sources(data: dict[str, Any], base_dir: Path) -> None:
    """Relative module sources are relative to the file that declares them."""
    session = data.get("session")
    entries = [session.get(role) for role in ("orchestrator", "context")] if isinstance(session, dict) else []
    for section in MODULE_LIST_SECTIONS:
        entries += data.get(section) or []
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("source"), str):
            entry["source"] = normalize_source_uri(entry["source"], base_dir)


def _located(missing: ReferenceNotFound, doc: YamlDocument, key_path: tuple[str | int, ...]) -> ConfigError:
    from ...config.schema_errors import format_key_path

    return ConfigError.single(missing.message, file=doc.path, line=doc.line_of(key_path),
                              key_path=format_key_path(key_path), fix=missing.fix)
