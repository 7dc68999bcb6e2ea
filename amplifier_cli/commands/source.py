"""`amplifier source list|show|add|remove`: per-module source overrides in settings."""

from __future__ import annotations

import typer

app = typer.Typer(help="Override where modules come from (git URL or local path).", no_args_is_help=True)

SCOPE_HELP = "local, project or global (default: global)"


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="source")


@app.command("list")
def list_sources(json_output: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Source overrides from all settings scopes (the winning scope for each id)."""
    from ..config.source_settings import source_listing

    rows = source_listing()
    if json_output:
        from ..ui.tables import print_json

        print_json(rows)
        return
    from ..ui.tables import print_table

    print_table(
        "Module source overrides",
        ["Module", "Source", "Scope"],
        [(r["module"], r["source"], r["scope"]) for r in rows],
        empty="No source overrides. Add one with 'amplifier source add ID URI'.",
    )


@app.command("show")
def show(
    module_id: str = typer.Argument(..., help="Module id, e.g. tool-bash."),
    json_output: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """What every resolution layer answers for MODULE_ID, and which one wins."""
    from ..plans.module_report import explain_source

    info = explain_source(module_id)
    if json_output:
        from ..ui.tables import print_json

        print_json(info)
        return
    for layer in info["layers"]:
        mark = "found" if layer["found"] else "-"
        typer.echo(f"  {layer['layer']:<10} {mark:<6} {layer['detail']}")
    if info["resolved_by"]:
        typer.echo(f"Resolved via {info['resolved_by']}: {info['source']}")
    else:
        typer.echo(f"Not found: no layer knows '{module_id}'.")
        raise typer.Exit(1)


@app.command("add")
def add(
    module_id: str = typer.Argument(..., help="Module id, e.g. tool-bash."),
    uri: str = typer.Argument(..., help="git+URL[@ref][#subdirectory=path], a path, or file:// URL."),
    scope: str = typer.Argument(None, help=SCOPE_HELP),
    local: bool = typer.Option(False, "--local", help="Only this checkout (.amplifier/settings.local.yaml)."),
    project: bool = typer.Option(False, "--project", help="Everyone on the project (.amplifier/settings.yaml)."),
    global_: bool = typer.Option(False, "--global", help="All projects (user settings; the default)."),
) -> None:
    """Use URI for MODULE_ID (paths are stored absolute)."""
    from ..config.scope_flags import scope_from_word_or_flags
    from ..config.source_settings import add_source

    chosen = scope_from_word_or_flags(scope, local, project, global_)
    stored, path = add_source(module_id, uri, chosen)
    typer.echo(f"sources.{module_id} = {stored} ({chosen} scope, {path})")


@app.command("remove")
def remove(
    module_id: str = typer.Argument(..., help="Module id."),
    scope: str = typer.Argument(None, help=SCOPE_HELP),
    local: bool = typer.Option(False, "--local", help="Only this checkout (.amplifier/settings.local.yaml)."),
    project: bool = typer.Option(False, "--project", help="Everyone on the project (.amplifier/settings.yaml)."),
    global_: bool = typer.Option(False, "--global", help="All projects (user settings; the default)."),
) -> None:
    """Remove the override for MODULE_ID from a scope."""
    from ..config.scope_flags import scope_from_word_or_flags
    from ..config.source_settings import remove_source

    chosen = scope_from_word_or_flags(scope, local, project, global_)
    path = remove_source(module_id, chosen)
    typer.echo(f"Removed sources.{module_id} ({chosen} scope, {path})")
