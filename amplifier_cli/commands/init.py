"""`amplifier init`: first-run setup (provider, model, key, a test request). In a terminal it asks; with
`--yes` (or without a terminal) it takes the flags and the keys it finds, for scripts."""

from __future__ import annotations

import typer


def register(root: typer.Typer) -> None:
    @root.command("init")
    def init(
        provider: str = typer.Option(None, "--provider", "-p", help="anthropic or openai (default: asked)."),
        model: str = typer.Option(None, "--model", "-m", help="Default model (default: asked)."),
        yes: bool = typer.Option(False, "--yes", "-y", help="Ask nothing: use the flags and the keys found."),
        no_test: bool = typer.Option(False, "--no-test", help="Skip the test request."),
        json_output: bool = typer.Option(False, "--json", help="Print what was written as JSON (implies --yes)."),
    ) -> None:
        """First-run setup: detect keys, choose provider and model, write user settings, test the provider."""
        import sys

        from ..commands.launch import in_a_terminal
        from ..ui.first_run import SetupChoice, run_setup

        interactive = in_a_terminal() and not yes and not json_output
        out = sys.stderr if json_output else sys.stdout
        result = run_setup(SetupChoice(provider, model, interactive=interactive, test=not no_test), out=out)
        failed = result["test"] is not None and not result["test"]["ok"]
        if json_output:
            from ..ui.tables import print_json

            print_json(result)
        elif interactive and not failed and typer.confirm("Ready. Start the chat now?", default=True):
            from .launch import start

            raise typer.Exit(start(None))
        else:
            typer.echo('Ready. Try: amplifier run "hello"   (or just: amplifier)')
        raise typer.Exit(1 if failed else 0)
