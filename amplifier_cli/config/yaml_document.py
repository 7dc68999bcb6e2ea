"""Read YAML (or Markdown with YAML frontmatter) keeping the line of every key, so errors can point at it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from amplifier_support import yaml_limits
from amplifier_support.yaml_limits import MAX_YAML_BYTES, MAX_YAML_DEPTH, MAX_YAML_VALUES, YamlLimitError

from ..errors import ConfigError

KeyPath = tuple[str | int, ...]

# The limits for every YAML file the app reads live in amplifier_support (modules reading project YAML use them too).
__all__ = ["MAX_YAML_BYTES", "MAX_YAML_DEPTH", "MAX_YAML_VALUES", "YamlDocument", "compose_limited",
           "load_yaml_document", "parse_yaml_text", "safe_load_limited"]


@dataclass
class YamlDocument:
    """Parsed data plus `lines[key_path] -> 1-based line`; `body` is the Markdown text after the frontmatter."""

    path: Path
    data: Any
    lines: dict[KeyPath, int] = field(default_factory=dict)
    body: str | None = None
    text: str = ""  # the YAML text as read (for edits that keep comments)

    def line_of(self, key_path: KeyPath) -> int | None:
        """Line of the deepest known ancestor of key_path (a missing key is reported at its parent)."""
        for cut in range(len(key_path), -1, -1):
            line = self.lines.get(tuple(key_path[:cut]))
            if line is not None:
                return line
        return None


def load_yaml_document(path: Path) -> YamlDocument:
    """Load `path` (.yaml/.yml, or .md with `---` frontmatter); YAML syntax errors become ConfigError with a line."""
    try:
        size = path.stat().st_size
        if size > MAX_YAML_BYTES and path.suffix != ".md":
            raise _too_big(path, size)
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError.single(f"cannot read file: {exc.strerror or exc}", file=path) from exc
    except UnicodeDecodeError as exc:
        line = exc.object[: exc.start].count(b"\n") + 1
        raise ConfigError.single(
            f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})",
            file=path,
            line=line,
            fix="save the file as UTF-8, or delete it if it is not a YAML file",
        ) from exc
    line_offset = 0
    body: str | None = None
    if path.suffix == ".md":
        text, body, line_offset = _split_frontmatter(text)
    return parse_yaml_text(text, path, line_offset=line_offset, body=body)


def parse_yaml_text(text: str, path: Path, *, line_offset: int = 0, body: str | None = None) -> YamlDocument:
    with _refusals_as_config_error(text, path, line_offset):  # one parse gives the nodes (lines) and the data
        node, loader = yaml_limits.compose_limited(text)
        try:
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    doc = YamlDocument(path=path, data=data if data is not None else {}, body=body, text=text)
    if node is not None:
        _record_lines(node, (), doc.lines, line_offset)
    return doc


@contextmanager
def _refusals_as_config_error(text: str, path: Path | str, line_offset: int = 0) -> Iterator[None]:
    """What amplifier_support.yaml_limits refuses (a limit, or YAML it cannot read or construct) as ConfigError
    naming the file, the line (counted in the whole file) and the fix."""
    import yaml

    if len(text) > MAX_YAML_BYTES:
        raise _too_big(path, len(text))
    try:
        yield
    except YamlLimitError as error:
        raise ConfigError.single(
            f"{error.problem}, past the limit for files amplifier reads", file=path,
            line=error.line + line_offset if error.line is not None else None,
            fix="a real profile or settings file is far smaller: check where this file came from, and remove it",
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 1 + line_offset if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError.single(
            f"invalid YAML: {problem}", file=path, line=line, fix="check indentation, colons and quoting near this line"
        ) from exc


def _too_big(path: Path | str, size: int) -> ConfigError:
    return ConfigError.single(yaml_limits.too_big(size).problem, file=path,
                              fix="this is not a settings or profile file amplifier can use: shorten it or remove it")


def safe_load_limited(text: str, path: Path | str = "<text>") -> Any:
    """``yaml.safe_load`` with the same limits as every YAML file the app reads (ConfigError past them, or for YAML
    it cannot read)."""
    with _refusals_as_config_error(text, path):
        return yaml_limits.safe_load_limited(text)


def compose_limited(text: str, path: Path | str = "<text>") -> Any:
    """``yaml.compose`` (the node tree, with marks) under the same limits."""
    with _refusals_as_config_error(text, path):
        node, loader = yaml_limits.compose_limited(text)
    loader.dispose()
    return node


def _record_lines(node: Any, key_path: KeyPath, lines: dict[KeyPath, int], offset: int) -> None:
    import yaml

    lines.setdefault(key_path, node.start_mark.line + 1 + offset)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node.value)
            child = (*key_path, key)
            lines[child] = key_node.start_mark.line + 1 + offset
            _record_lines(value_node, child, lines, offset)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _record_lines(item, (*key_path, index), lines, offset)


def _split_frontmatter(text: str) -> tuple[str, str, int]:
    """Return (frontmatter, body, line offset of the frontmatter). No frontmatter = empty config + whole body."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return "", text.strip(), 0
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            return "".join(lines[1:index]), "".join(lines[index + 1 :]).strip(), 1
    return "".join(lines[1:]), "", 1


def dump_yaml(data: Any) -> str:
    import yaml

    return yaml.safe_dump(data, sort_keys=False, default_flow_style=False, allow_unicode=True)


def write_yaml_atomically(path: Path, data: Any) -> None:
    """Write via a temp file + rename so a crash never leaves a half-written settings file."""
    write_text_atomically(path, dump_yaml(data))


def write_text_atomically(path: Path, text: str) -> None:
    import os
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
