"""`amplifier update`: say how this copy was installed and the command that updates it (nothing is run:
updating the install is the package manager's job, and cached git modules are `module refresh`'s)."""

from __future__ import annotations

import typer


def register(root: typer.Typer) -> None:
    @root.command("update")
    def update(
        check_only: bool = typer.Option(False, "--check-only", help="Accepted for upstream's form."),
        yes: bool = typer.Option(False, "--yes", "-y", help="Accepted for upstream's form."),
        json_output: bool = typer.Option(False, "--json", help="Print JSON."),
    ) -> None:
        """How to update this install (and its cached git modules)."""
        from ..ui.update_advice import install_kind, update_advice

        info = install_kind()
        if json_output:
            from ..ui.tables import print_json

            print_json({**info, "advice": update_advice(info)})
            return
        typer.echo(f"amplifier {info['version']}")
        typer.echo(update_advice(info))
        typer.echo("Modules and bundles fetched from git branches: amplifier module refresh")
