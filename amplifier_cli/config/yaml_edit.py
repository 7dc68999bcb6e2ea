"""Change one key of a YAML settings file by editing its text, so the user's comments and layout survive.

Only two edits are made in place: replacing an existing scalar value, and appending a new top-level key.
Anything else (or any result that does not parse back to exactly the intended data) returns None and the
caller rewrites the whole file instead."""

from __future__ import annotations

from typing import Any


def edit_yaml_text(text: str, key_path: tuple[str, ...], value: Any, expected: dict[str, Any]) -> str | None:
    """`text` with `key_path` set to `value` (comments kept), or None when that cannot be done safely."""
    import yaml

    if value is None or not key_path:
        return None
    from ..errors import ConfigError
    from .yaml_document import compose_limited, safe_load_limited

    try:
        root = compose_limited(text)
    except (yaml.YAMLError, ConfigError):
        return None
    if root is None:
        edited = _append_top_level(text, key_path, value)
    elif isinstance(root, yaml.MappingNode):
        node = _value_node(root, key_path)
        if node is None:
            if _value_node(root, key_path[:1]) is not None:
                return None  # the top-level key exists: inserting inside it needs a real YAML editor
            edited = _append_top_level(text, key_path, value)
        elif isinstance(node, yaml.ScalarNode) and not isinstance(value, (dict, list)):
            edited = text[: node.start_mark.index] + _flow_scalar(value) + text[node.end_mark.index :]
        else:
            return None
    else:
        return None
    try:
        return edited if safe_load_limited(edited) == expected else None
    except (yaml.YAMLError, ConfigError):
        return None


def _value_node(mapping: Any, key_path: tuple[str, ...]) -> Any:
    import yaml

    node = mapping
    for key in key_path:
        if not isinstance(node, yaml.MappingNode):
            return None
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
                node = value_node
                break
        else:
            return None
    return node


def _flow_scalar(value: Any) -> str:
    """`value` as YAML inline text (quoted when needed): dump a one-item flow list and take its item."""
    import yaml

    dumped = yaml.safe_dump([value], default_flow_style=True, width=10**9, allow_unicode=True).strip()
    return dumped[1:-1]


def _append_top_level(text: str, key_path: tuple[str, ...], value: Any) -> str:
    from .yaml_document import dump_yaml

    nested: Any = value
    for key in reversed(key_path):
        nested = {key: nested}
    separator = "" if not text or text.endswith("\n") else "\n"
    return text + separator + dump_yaml(nested)
