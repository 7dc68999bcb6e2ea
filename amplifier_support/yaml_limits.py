"""Reading YAML that someone else may have written: size, nesting and alias-expansion limits, for the app's files
(profiles, settings, agents, bundles, commands) and for modules that read YAML from a project (skills).

A nesting bomb makes PyYAML's recursive composer end in RecursionError, and a billion-laughs file is a few hundred
bytes that expand to a billion values once anything walks the data. Past a limit, `YamlLimitError` says which one and
at what line; a syntax error stays PyYAML's own `yaml.YAMLError`. Parsing uses libyaml's C parser where PyYAML was
built with it."""

from __future__ import annotations

from functools import cache
from typing import Any

# Far above any real file, far below what makes the parser or the code reading the data spend seconds or gigabytes.
MAX_YAML_BYTES = 2 * 1024 * 1024
MAX_YAML_DEPTH = 64  # nesting of mappings and lists, aliases expanded
MAX_YAML_VALUES = 100_000  # values once every alias is expanded (an alias bomb is tiny on disk, huge in memory)


class YamlLimitError(ValueError):
    """A document past one of the limits: ``problem`` says which, ``line`` (1-based, or None) where."""

    def __init__(self, problem: str, line: int | None = None) -> None:
        super().__init__(problem if line is None else f"line {line}: {problem}")
        self.problem = problem
        self.line = line


def too_big(size: int) -> YamlLimitError:
    return YamlLimitError(f"the file is {size:,} bytes; YAML files are limited to {MAX_YAML_BYTES:,} bytes")


def limited_loader(text: str) -> Any:
    """A safe loader over ``text`` that refuses nesting deeper than MAX_YAML_DEPTH while it composes. Expansion is
    checked by ``check_expansion`` on the composed nodes."""
    return _loader_class()(text)


@cache
def _loader_class() -> type:
    """libyaml's C scanner and parser where PyYAML has them (10-100 times faster than the pure-Python ones, which
    are most of what reading a profile costs), under PyYAML's own composer (so the depth limit applies while
    composing) and safe constructor; without libyaml, PyYAML's SafeLoader."""
    import yaml
    from yaml.composer import Composer
    from yaml.constructor import SafeConstructor
    from yaml.resolver import Resolver

    base: type = yaml.SafeLoader
    c_parser = getattr(getattr(yaml, "_yaml", None), "CParser", None) if yaml.__with_libyaml__ else None
    if c_parser is not None:
        class _CSafeLoader(Composer, c_parser, SafeConstructor, Resolver):  # type: ignore[misc, valid-type]
            def __init__(self, text: str) -> None:
                c_parser.__init__(self, text)  # type: ignore[misc]
                Composer.__init__(self)
                SafeConstructor.__init__(self)
                Resolver.__init__(self)

        base = _CSafeLoader

    class _DepthLimitedLoader(base):
        def __init__(self, text: str) -> None:
            super().__init__(text)
            self.depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            self.depth += 1
            try:
                if self.depth > MAX_YAML_DEPTH:
                    raise _too_deep(self.peek_event().start_mark.line + 1)
                return super().compose_node(parent, index)
            except yaml.YAMLError as error:  # libyaml scans flow collections ahead and stops at its own limit
                if "maximum nesting depth" not in str(getattr(error, "problem", "")):
                    raise
                mark = getattr(error, "problem_mark", None)
                raise _too_deep(mark.line + 1 if mark is not None else None) from None
            finally:
                self.depth -= 1

    return _DepthLimitedLoader


def _too_deep(line: int | None) -> YamlLimitError:
    return YamlLimitError(f"YAML nested deeper than {MAX_YAML_DEPTH} levels", line)


def check_expansion(root: Any) -> None:
    """Refuse a document whose aliases refer to themselves (a cycle) or expand to more than MAX_YAML_VALUES
    values or MAX_YAML_DEPTH levels. Computed on the node graph with a memo, so a billion-laughs file is
    judged in microseconds, without ever being expanded."""
    import yaml

    done: dict[int, tuple[int, int]] = {}  # id(node) -> (values, levels) once expanded
    active: set[int] = set()

    def measure(node: Any, depth: int) -> tuple[int, int]:
        key = id(node)
        line = node.start_mark.line + 1
        if key in active:
            raise YamlLimitError("a YAML alias refers to the node that contains it (a cycle)", line)
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
            raise YamlLimitError(f"YAML aliases expand to more than {MAX_YAML_VALUES:,} values", line)
        if depth + levels > MAX_YAML_DEPTH:
            raise YamlLimitError(f"YAML nested deeper than {MAX_YAML_DEPTH} levels (aliases expanded)", line)
        return values, levels

    measure(root, 0)


def compose_limited(text: str) -> tuple[Any, Any]:
    """(node tree or None, the loader that built it, to construct data from it) under the limits; the caller
    disposes of the loader. YamlLimitError past a limit, yaml.YAMLError for a syntax error (lines count from the
    start of ``text``)."""
    if len(text) > MAX_YAML_BYTES:
        raise too_big(len(text))
    loader = limited_loader(text)  # its reader refuses control characters (NUL) right away
    try:
        node = loader.get_single_node()
        if node is not None:
            check_expansion(node)
    except BaseException:
        loader.dispose()
        raise
    return node, loader


def safe_load_limited(text: str) -> Any:
    """``yaml.safe_load`` under the limits: YamlLimitError past one, yaml.YAMLError for a syntax error."""
    node, loader = compose_limited(text)
    try:
        return loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()
