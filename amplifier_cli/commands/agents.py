"""`amplifier agents list|show`: the sub-agents a session can delegate to with the `task` tool."""

from __future__ import annotations

import typer

app = typer.Typer(help="List and inspect sub-agents (for the task tool).", no_args_is_help=True)

PROFILE_HELP = "Profile whose agents: section and selection apply (default: the active profile)."


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="agents")


def _warn(catalog) -> None:
    for problem in catalog.problems:
        typer.echo(f"warning: {problem.render()}", err=True)


@app.command("list")
def list_agents(
    profile: str | None = typer.Option(None, "--profile", "-P", help=PROFILE_HELP),
    json_output: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """List agents: .amplifier/agents/ (project) > the user config dir's agents/ > the profile's agents:."""
    from ..plans.agents.listing import agent_listing, catalog_for, searched_dirs

    catalog, profile_name = catalog_for(profile)
    rows = agent_listing(catalog)
    _warn(catalog)
    if json_output:
        from ..ui.tables import print_json

        print_json(rows)
        return
    from ..ui.tables import print_table

    empty = (f"No agents for profile '{profile_name}'. Add one as .amplifier/agents/<name>.md "
             "(frontmatter: description; body: instruction). Searched: " + "; ".join(searched_dirs()))
    print_table(
        f"Agents (profile {profile_name})",
        ["Name", "Source", "Description"],
        [(row["name"], row["origin"], " ".join(row["description"].split())[:100]) for row in rows],
        empty=empty,
    )


@app.command("show")
def show(
    name: str = typer.Argument(..., help="Agent name."),
    profile: str | None = typer.Option(None, "--profile", "-P", help=PROFILE_HELP),
    json_output: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Show an agent: where it is defined, its instruction and how its session differs from its parent's."""
    from ..plans.agents.listing import agent_detail, catalog_for

    catalog, _profile_name = catalog_for(profile)
    info = agent_detail(catalog, name)
    if json_output:
        from ..ui.tables import print_json

        print_json(info)
        return
    typer.echo(f"Agent: {info['name']}  ({info['origin']}: {info['path']})")
    typer.echo(f"Description: {info['description']}")
    for shadowed in info["shadows"]:
        typer.echo(f"Overrides: {shadowed}")
    if info["model"]:
        typer.echo(f"Model: {info['model']}")
    if info["agents"] is not None:
        delegates = info["agents"] if isinstance(info["agents"], str) else ", ".join(info["agents"]) or "none"
        typer.echo(f"Sub-agents: {delegates}")
    changes = {key: value for key, value in (("exclude", info["exclude"]),) if value}
    changes.update(info["plan"])
    if changes:
        from ..config.yaml_document import dump_yaml

        typer.echo("\nChanges to the parent's mount plan:")
        typer.echo("\n".join("  " + line for line in dump_yaml(changes).rstrip().splitlines()))
    else:
        typer.echo("\nRuns with the parent's mount plan unchanged.")
    typer.echo("\nInstruction:")
    instruction = info["instruction"] or "(none: the profile's instruction)"
    typer.echo("\n".join("  " + line for line in instruction.splitlines()))
