"""`amplifier profile list|show|use|current`."""

from __future__ import annotations

import typer

app = typer.Typer(help="List, inspect and choose profiles.", no_args_is_help=True)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="profile")


@app.command("list")
def list_profiles(json_output: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List profiles (project > user > bundled; a name found in several places uses the first)."""
    from ..plans.profile_listing import profile_listing

    rows = profile_listing()
    if json_output:
        from ..ui.tables import print_json

        print_json(rows)
        return
    from ..ui.tables import print_table

    print_table(
        "Profiles",
        ["Name", "Source", "Status", "Description"],
        [(r["name"], r["origin"], r["status"], r["description"]) for r in rows],
    )


@app.command("show")
def show(
    name: str = typer.Argument(..., help="Profile name."),
    resolved: bool = typer.Option(False, "--resolved", help="Show the merged mount plan after extends."),
    json_output: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Show a profile file, or with --resolved the mount plan it produces (${VAR} references kept)."""
    from ..plans.profile_listing import describe_profile

    info = describe_profile(name, resolved=resolved)
    if json_output:
        from ..ui.tables import print_json

        print_json(info)
        return
    typer.echo(f"Profile: {info['name']}  ({info['origin']}: {info['path']})")
    if info.get("description"):
        typer.echo(f"Description: {info['description']}")
    typer.echo("Inheritance: " + " -> ".join(info["chain"]))
    typer.echo("")
    if resolved:
        from ..config.yaml_document import dump_yaml

        typer.echo(dump_yaml(info["plan"]).rstrip())
        if info.get("instruction"):
            typer.echo("\ninstruction: |")
            typer.echo("\n".join("  " + line for line in info["instruction"].splitlines()))
    else:
        typer.echo(info["text"].rstrip())


@app.command("use")
def use(
    name: str = typer.Argument(..., help="Profile to make active."),
    local: bool = typer.Option(False, "--local", help="Only this checkout (.amplifier/settings.local.yaml)."),
    project: bool = typer.Option(False, "--project", help="Everyone on the project (.amplifier/settings.yaml)."),
    global_: bool = typer.Option(False, "--global", help="All projects (user settings; the default)."),
) -> None:
    """Make NAME the active profile in a settings scope (it is loaded and validated first)."""
    from ..config.scope_flags import scope_from_flags
    from ..plans.profile_choice import use_profile

    scope = scope_from_flags(local, project, global_)
    path = use_profile(name, scope)
    typer.echo(f"Active profile: {name} ({scope} scope, {path})")


@app.command("current")
def current(json_output: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Which profile a session would use, and which settings file chose it."""
    from ..plans.profile_listing import current_profile

    info = current_profile()
    if json_output:
        from ..ui.tables import print_json

        print_json(info)
        return
    if info["scope"] is None:
        typer.echo(f"Profile: {info['name']} (built-in default; set one with 'amplifier profile use NAME')")
    else:
        typer.echo(f"Profile: {info['name']} (from {info['scope']} settings: {info['file']})")
