"""`amplifier allowed-dirs|denied-dirs list|add|remove`: the file tools' roots, with scopes (settings
`allowed_dirs`: more places write_file/edit_file may write and read_file may read; `denied_dirs`: never
read or written). Both are trust-gated in a project's settings (they change what the tools may touch)."""

from __future__ import annotations

import typer

_LOCAL = typer.Option(False, "--local", help="Only this checkout (.amplifier/settings.local.yaml).")
_PROJECT = typer.Option(False, "--project", help="Everyone on the project (.amplifier/settings.yaml).")
_GLOBAL = typer.Option(False, "--global", help="All projects (user settings; the default).")


def _group(key: str, what: str) -> typer.Typer:
    app = typer.Typer(help=f"{what} (settings `{key}`), with scopes.", no_args_is_help=True)

    @app.command("list")
    def list_dirs(json_output: bool = typer.Option(False, "--json", help="Print JSON."),
                  output: str = typer.Option(None, "--output", "-o", help="table or json.")) -> None:
        """Every scope's entries, and a project's that wait for trust."""
        from ..config.dir_settings import dir_listing

        rows = dir_listing(key)
        if json_output or output == "json":
            from ..ui.tables import print_json

            print_json(rows)
            return
        from ..config.trust import TRUST_COMMAND
        from ..ui.tables import print_table

        applied = [(r["path"], r["scope"]) for r in rows if r["applies"]]
        waiting = [f"{r['path']} ({r['scope']})" for r in rows if not r["applies"]]
        if applied or not waiting:
            print_table(what, ["Path", "Scope"], applied, empty="None set.")
        if waiting:
            typer.echo(f"{len(waiting)} entr{'y' if len(waiting) == 1 else 'ies'} of this project wait for trust "
                       f"(not applied until you review and trust the project with `{TRUST_COMMAND}`): "
                       + ", ".join(waiting))

    @app.command("add")
    def add(path: str = typer.Argument(..., help="Directory (relative paths are made absolute)."),
            local: bool = _LOCAL, project: bool = _PROJECT, global_: bool = _GLOBAL) -> None:
        """Add a directory at a scope."""
        from ..config.dir_settings import change_dir
        from ..config.scope_flags import scope_from_flags

        scope = scope_from_flags(local, project, global_)
        typer.echo(f"Added {path} to {key} ({scope} scope, {change_dir(key, path, scope, add=True)})")

    @app.command("remove")
    def remove(path: str = typer.Argument(..., help="Directory."),
               local: bool = _LOCAL, project: bool = _PROJECT, global_: bool = _GLOBAL) -> None:
        """Remove a directory from a scope."""
        from ..config.dir_settings import change_dir
        from ..config.scope_flags import scope_from_flags

        scope = scope_from_flags(local, project, global_)
        typer.echo(f"Removed {path} from {key} ({scope} scope, {change_dir(key, path, scope, add=False)})")

    return app


def register(root: typer.Typer) -> None:
    root.add_typer(_group("allowed_dirs", "Extra directories the file tools may write (and read)"),
                   name="allowed-dirs")
    root.add_typer(_group("denied_dirs", "Directories the file tools never read or write"), name="denied-dirs")
