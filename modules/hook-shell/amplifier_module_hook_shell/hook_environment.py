"""The environment a hook process gets: ours without anything that looks like a credential (unless the config
passes it on by name), plus the variables hooks written for upstream and for other agents read."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping

SECRET_NAME_PATTERNS = ("*API_KEY*", "*_KEY", "*TOKEN*", "*SECRET*", "*PASSWORD*", "*PASSWD*", "*CREDENTIAL*",
                        "*_PAT")
"""Variable names (compared upper-case) that hooks never see unless ``pass_env`` names them."""


def looks_secret(name: str) -> bool:
    upper = name.upper()
    return any(fnmatch.fnmatchcase(upper, pattern) for pattern in SECRET_NAME_PATTERNS)


def _passed(name: str, pass_env: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in pass_env)


def hook_environment(base: Mapping[str, str], pass_env: Iterable[str], added: Mapping[str, str]) -> dict[str, str]:
    """``base`` minus credential-like names not matched by a ``pass_env`` glob, then ``added`` on top."""
    allowed = tuple(pass_env)
    env = {name: value for name, value in base.items() if not looks_secret(name) or _passed(name, allowed)}
    env.update(added)
    return env
