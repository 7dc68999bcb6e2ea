"""`amplifier acp`: the Agent Client Protocol on stdin/stdout, for editors (Zed, JetBrains, Neovim, Emacs, ...).
The Typer declaration; the plain forms skip typer (run_argv.parse_acp_line) and both start `launch.start_acp`."""

from __future__ import annotations

import typer

from .launch import DEFAULT_APPROVAL, start_acp
from .session_options import ApprovalOption, ModelOption, ModeOption, SandboxOption


def register(root: typer.Typer) -> None:
    @root.command("acp")
    def acp(
        profile: str = typer.Option(None, "--profile", "-P", "--bundle", "-B", help="Profile for every session."),
        provider: str = typer.Option(None, "--provider", "-p", help="Provider of the profile to use."),
        model: ModelOption = None,
        sandbox: SandboxOption = None,
        approval: ApprovalOption = DEFAULT_APPROVAL,
        mode: ModeOption = None,
    ) -> None:
        """Serve an editor over the Agent Client Protocol (JSON-RPC on stdin and stdout)."""
        raise typer.Exit(start_acp(profile=profile, provider=provider, model=model, sandbox=sandbox,
                                   approval=approval, mode=mode))
