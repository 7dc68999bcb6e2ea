"""Native modules (``transport = "rust"`` in amplifier.toml) run under the session's sandbox, like every other
process the app starts for the model: the kernel's loader asks ``wrap_process`` for the command line.

The module serves gRPC on a loopback port, so its confinement keeps TCP (the sandbox's ``network: false`` would
forbid it to listen); its file-system confinement is the session's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class ModuleProcessError(RuntimeError):
    """The sandbox is required but cannot confine the module's process."""


def process_wrapper(sandbox: dict[str, Any] | None, workspace: str) -> Callable[[list[str]], list[str]]:
    """``argv -> argv`` confining a native module's process; the confinement is built on first use only."""
    built: list[Any] = []

    def wrap(argv: list[str]) -> list[str]:
        if not built:
            from amplifier_support.sandbox import SandboxPolicy, confine
            from amplifier_support.sandbox.settings import SandboxSettings, under_session_sandbox

            settings = SandboxSettings.model_validate(under_session_sandbox(None, sandbox) or {})
            policy = settings.policy()
            built.append(confine(SandboxPolicy(mode=policy.mode, write_roots=policy.write_roots, network=True,
                                               required=policy.required), workspace))
        confinement = built[0]
        refusal = confinement.refusal()
        if refusal is not None:
            raise ModuleProcessError(f"native module {argv[0]}: {refusal}")
        return list(confinement.argv(argv))

    return wrap
