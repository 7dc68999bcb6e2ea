"""`amplifier routing list|use|show`: upstream's routing matrices (model roles such as fast or reasoning,
resolved to a provider and model per role)."""

from __future__ import annotations

import typer

app = typer.Typer(help="Routing matrices: which provider and model serve each model role.", no_args_is_help=True)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="routing")


@app.command("list")
def list_matrices(json_output: bool = typer.Option(False, "--json", help="Print JSON."),
                  output: str = typer.Option(None, "--output", "-o", help="table or json.")) -> None:
    """Matrices found (user `<config dir>/routing/*.yaml`, then bundled); the active one is marked."""
    from ..config.routing_settings import matrix_listing
    from ..ui.tables import print_json, print_table

    rows = matrix_listing()
    if json_output or output == "json":
        print_json(rows)
        return
    print_table("Routing matrices", ["Name", "Active", "Source", "Roles", "Description"],
                [(r["name"], "→ active" if r["active"] else "", r["origin"], ", ".join(r["roles"]), r["description"])
                 for r in rows])


@app.command("use")
def use(name: str = typer.Argument(..., help="Matrix name."),
        local: bool = typer.Option(False, "--local"), project: bool = typer.Option(False, "--project"),
        global_: bool = typer.Option(False, "--global")) -> None:
    """Choose the matrix (settings `routing.matrix`, default scope: global)."""
    from ..config.routing_settings import use_matrix
    from ..config.scope_flags import scope_from_flags

    scope = scope_from_flags(local, project, global_)
    typer.echo(f"Routing matrix: {name} ({scope} scope, {use_matrix(name, scope)})")


@app.command("show")
def show(name: str = typer.Argument(None, help="Matrix name (default: the active one)."),
         json_output: bool = typer.Option(False, "--json", help="Print JSON."),
         output: str = typer.Option(None, "--output", "-o", help="table or json.")) -> None:
    """Each role, and the provider/model it resolves to with the active profile's providers."""
    from ..sessions.routing_report import show_matrix
    from ..ui.tables import print_json, print_table

    info = show_matrix(name)
    if json_output or output == "json":
        print_json(info)
        return
    print_table(f"Routing matrix {info['matrix']} (providers: {', '.join(info['providers']) or 'none'})",
                ["Role", "Provider", "Model", "Description"],
                [(r["role"], r["provider"] or "unresolved", r["model"] or "", r["description"]) for r in info["roles"]])
