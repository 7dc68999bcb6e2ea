"""YAML files are read with libyaml's C parser where PyYAML has it, and with PyYAML's pure-Python one where it does
not: both must give the same data, the same key lines and the same refusals (limits, syntax, control characters)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from amplifier_cli.config.yaml_document import MAX_YAML_DEPTH, parse_yaml_text, safe_load_limited
from amplifier_cli.errors import ConfigError
from amplifier_support import yaml_limits

GOOD = """\
profile: {name: demo, description: "two\\nlines"}
base: &base {module: tool-bash, config: {timeout: 30}}
tools:
  - *base
  - module: tool-filesystem
    config: {allowed: [".", "/tmp"], flag: yes, off: ~}
text: |
  kept
  as is
"""
BAD = {
    "flow nesting": "profile: {name: bomb}\nsession: " + "[" * 5000 + "]" * 5000 + "\n",
    "block nesting": "a:\n" + "".join("  " * depth + "- \n" for depth in range(1, MAX_YAML_DEPTH + 5)),
    "syntax": "a: [1\nb: c\n",
    "control character": "a: \x00\n",
    "cycle": "profile: {name: bomb}\nsession: &loop\n  orchestrator: *loop\n",
    "unsafe tag": "profile: {name: x}\nsession: !!python/object:os.system x\n",
}


@pytest.fixture(params=["libyaml", "pure-python"])
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    if request.param == "libyaml" and not yaml.__with_libyaml__:
        pytest.fail("PyYAML was installed without libyaml: the C parser this app reads YAML with is missing")
    if request.param == "pure-python":
        monkeypatch.setattr(yaml, "__with_libyaml__", False)
    yaml_limits._loader_class.cache_clear()
    yield request.param
    yaml_limits._loader_class.cache_clear()


def test_the_parser_in_use_is_the_one_asked_for(parser: str) -> None:
    uses_c = any(cls.__module__ == "yaml._yaml" for cls in yaml_limits._loader_class().__mro__)
    assert uses_c == (parser == "libyaml")


def test_both_parsers_give_the_same_data_and_lines(parser: str) -> None:
    document = parse_yaml_text(GOOD, Path("demo.yaml"))
    assert document.data == yaml.load(GOOD, Loader=yaml.SafeLoader)
    assert document.lines[("tools", 1, "config", "allowed")] == 6
    assert document.lines[("text",)] == 7
    assert safe_load_limited(GOOD) == document.data


@pytest.mark.parametrize("kind", sorted(BAD))
def test_both_parsers_refuse_the_same_way(parser: str, kind: str) -> None:
    with pytest.raises(ConfigError) as refused:
        parse_yaml_text(BAD[kind], Path("bad.yaml"))
    message = str(refused.value)
    expected = {"flow nesting": f"nested deeper than {MAX_YAML_DEPTH} levels",
                "block nesting": f"nested deeper than {MAX_YAML_DEPTH} levels",
                "syntax": "invalid YAML", "control character": "#x0000",
                "cycle": "refers to the node that contains it",
                "unsafe tag": "could not determine a constructor for the tag"}[kind]
    assert expected in message
    line = refused.value.problems[0].line
    assert line == {"flow nesting": 2, "syntax": 2, "cycle": 2, "control character": None, "unsafe tag": 2}.get(kind,
                                                                                                             line)
