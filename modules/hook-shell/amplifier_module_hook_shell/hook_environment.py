"""The environment a hook process gets: ours without anything that looks like a credential (unless the config
passes it on by name), plus the variables hooks written for upstream and for other agents read.

What "looks like a credential" is the one rule of ``amplifier_support.credentials`` (tool-bash withholds the
same variables from the model's shell commands)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from amplifier_support.credentials import without_credentials


def hook_environment(base: Mapping[str, str], pass_env: Iterable[str], added: Mapping[str, str]) -> dict[str, str]:
    """``base`` minus credential-like names not matched by a ``pass_env`` glob, then ``added`` on top."""
    env = without_credentials(base, pass_env)
    env.update(added)
    return env
