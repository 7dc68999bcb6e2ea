"""Read YAML (or Markdown with YAML frontmatter) keeping the line of every key, so errors can point at it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError

KeyPath = tuple[str | int, ...]

# Limits for every YAML file the app reads (profiles, bundles, settings, agents): far above any real file, far
# below what makes the parser or the code reading the data spend seconds or gigabytes.
MAX_YAML_BYTES = 2 * 1024 * 1024
MAX_YAML_DEPTH = 64  # nesting of mappings and lists, aliases expanded
MAX_YAML_VALUES = 100_000  # values once every alias is expanded (an alias bomb is tiny on disk, huge in memory)


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
    import yaml

    if len(text) > MAX_YAML_BYTES:
        raise _too_big(path, len(text))
    loader = None
    try:  # one parse gives both the nodes (for the lines) and the data built from them
        loader = limited_loader(text, path)  # its reader refuses control characters (NUL) right away
        node = loader.get_single_node()
        if node is not None:
            check_expansion(node, path, line_offset)
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 1 + line_offset if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError.single(
            f"invalid YAML: {problem}", file=path, line=line, fix="check indentation, colons and quoting near this line"
        ) from exc
    finally:
        if loader is not None:
            loader.dispose()
    doc = YamlDocument(path=path, data=data if data is not None else {}, body=body, text=text)
    if node is not None:
        _record_lines(node, (), doc.lines, line_offset)
    return doc


def _too_big(path: Path, size: int) -> ConfigError:
    return ConfigError.single(
        f"the file is {size:,} bytes; YAML files are limited to {MAX_YAML_BYTES:,} bytes",
        file=path, fix="this is not a settings or profile file amplifier can use: shorten it or remove it")


def limited_loader(text: str, path: Path | str) -> Any:
    """A SafeLoader over ``text`` that refuses nesting deeper than MAX_YAML_DEPTH while it composes (PyYAML's
    composer recurses: a few thousand levels end in RecursionError). Expansion is checked by ``check_expansion``."""
    import yaml

    class _DepthLimitedLoader(yaml.SafeLoader):
        depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            self.depth += 1
            try:
                if self.depth > MAX_YAML_DEPTH:
                    mark = self.peek_event().start_mark
                    raise _limit_error(path, mark.line + 1, f"YAML nested deeper than {MAX_YAML_DEPTH} levels")
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

    return _DepthLimitedLoader(text)


def check_expansion(root: Any, path: Path | str, line_offset: int = 0) -> None:
    """Refuse a document whose aliases refer to themselves (a cycle) or expand to more than MAX_YAML_VALUES
    values or MAX_YAML_DEPTH levels. Computed on the node graph with a memo, so a billion-laughs file is
    judged in microseconds, without ever being expanded."""
    import yaml

    done: dict[int, tuple[int, int]] = {}  # id(node) -> (values, levels) once expanded
    active: set[int] = set()

    def measure(node: Any, depth: int) -> tuple[int, int]:
        key = id(node)
        line = node.start_mark.line + 1 + line_offset
        if key in active:
            raise _limit_error(path, line, "a YAML alias refers to the node that contains it (a cycle)")
        if key in done:
            values, levels = done[key]
        elif isinstance(node, yaml.ScalarNode):
            values, levels = 1, 0
        else:
            active.add(key)
            values, levels = 1, 0
            children = node.value if isinstance(node, yaml.SequenceNode) else [
                item for pair in node.value for item in pair]
            for child in children:
                child_values, child_levels = measure(child, depth + 1)
                values += child_values
                levels = max(levels, child_levels + 1)
                if values > MAX_YAML_VALUES:
                    break
            active.discard(key)
            done[key] = (values, levels)
        if values > MAX_YAML_VALUES:
            raise _limit_error(path, line, f"YAML aliases expand to more than {MAX_YAML_VALUES:,} values")
        if depth + levels > MAX_YAML_DEPTH:
            raise _limit_error(path, line, f"YAML nested deeper than {MAX_YAML_DEPTH} levels (aliases expanded)")
        return values, levels

    measure(root, 0)


def _limit_error(path: Path | str, line: int, problem: str) -> ConfigError:
    return ConfigError.single(
        f"{problem}, past the limit for files amplifier reads", file=path, line=line,
        fix="a real profile or settings file is far smaller: check where this file came from, and remove it")


def safe_load_limited(text: str, path: Path | str = "<text>") -> Any:
    """``yaml.safe_load`` with the same limits as every YAML file the app reads (ConfigError past them)."""
    if len(text) > MAX_YAML_BYTES:
        raise _too_big(Path(str(path)), len(text))
    loader = limited_loader(text, path)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        check_expansion(node, path)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def compose_limited(text: str, path: Path | str = "<text>") -> Any:
    """``yaml.compose`` (the node tree, with marks) under the same limits."""
    if len(text) > MAX_YAML_BYTES:
        raise _too_big(Path(str(path)), len(text))
    loader = limited_loader(text, path)
    try:
        node = loader.get_single_node()
        if node is not None:
            check_expansion(node, path)
        return node
    finally:
        loader.dispose()


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
