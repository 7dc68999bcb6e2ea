"""`amplifier bundle list|show|use|current|add|remove|clear|update` (upstream's bundle commands; a bundle
is a profile in upstream's format, so these and `amplifier profile ...` see the same things)."""

from __future__ import annotations

import typer

app = typer.Typer(
    help="Bundles (upstream's name for profiles): list, show, use, current, clear, add, remove and update.",
    no_args_is_help=True,
)

LocalOpt = typer.Option(False, "--local", help="Only this checkout (.amplifier/settings.local.yaml).")
ProjectOpt = typer.Option(False, "--project", help="Everyone on the project (.amplifier/settings.yaml).")
GlobalOpt = typer.Option(False, "--global", help="All projects (user settings; the default).")
JsonOpt = typer.Option(False, "--json", help="Print JSON.")
OutputOpt = typer.Option(None, "--output", "-o", help="table or json.")


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="bundle")


def _as_json(json_output: bool, output: str | None) -> bool:
    from ..errors import UsageError

    if output not in (None, "table", "text", "json"):
        raise UsageError.single(f"unknown output '{output}'", fix="use -o json (or --json), or leave it out")
    return json_output or output == "json"


def _optional_scope(local: bool, project: bool, global_: bool):
    from ..config.scope_flags import scope_from_flags

    return scope_from_flags(local, project, global_) if (local or project or global_) else None


@app.command("list")
def list_bundles(json_output: bool = JsonOpt, output: str = OutputOpt) -> None:
    """Bundles and profiles found by name, and the ones registered with `bundle add`."""
    from ..plans.profile_listing import bundle_listing
    from ..ui.tables import print_json, print_table

    rows = bundle_listing()
    if _as_json(json_output, output):
        print_json(rows)
        return
    print_table("Bundles", ["Name", "Source", "Active", "Location / description"],
                [(r["name"], r["source"], "active" if r["active"] else "", r["uri"] or r["description"])
                 for r in rows])


@app.command("show")
def show(
    name: str = typer.Argument(None, help="Bundle name, path or git URL (default: the active one)."),
    json_output: bool = JsonOpt,
    output: str = OutputOpt,
) -> None:
    """The bundle's file, what it includes, and the mount plan it makes."""
    from ..config.paths import AmplifierPaths
    from ..config.settings import load_settings
    from ..plans.profile_listing import current_bundle, describe_profile

    paths = AmplifierPaths.discover()
    reference = load_settings(paths).bundle_reference(name) if name else current_bundle(paths)["reference"]
    info = describe_profile(reference, resolved=True, paths=paths)
    if _as_json(json_output, output):
        from ..ui.tables import print_json

        print_json(info)
        return
    from ..config.yaml_document import dump_yaml

    typer.echo(f"Bundle: {name or info['name']}  ({info['origin']}: {info['path']})")
    if info.get("description"):
        typer.echo(f"Description: {info['description']}")
    typer.echo("Includes / extends: " + " -> ".join(info["chain"]))
    typer.echo("")
    typer.echo(dump_yaml(info["plan"]).rstrip())


@app.command("use")
def use(name: str = typer.Argument(..., help="Bundle (or profile) name, path or git URL."),
        local: bool = LocalOpt, project: bool = ProjectOpt, global_: bool = GlobalOpt) -> None:
    """Make NAME the active bundle (`bundle.active`) in a settings scope; it is loaded and checked first."""
    from ..config.scope_flags import scope_from_flags
    from ..plans.profile_choice import use_bundle

    scope = scope_from_flags(local, project, global_)
    path = use_bundle(name, scope)
    typer.echo(f"Active bundle: {name} ({scope} scope, {path})")


@app.command("current")
def current(json_output: bool = JsonOpt, output: str = OutputOpt) -> None:
    """Which bundle a session would use, and which settings file chose it."""
    from ..plans.profile_listing import current_bundle

    info = current_bundle()
    if _as_json(json_output, output):
        from ..ui.tables import print_json

        print_json(info)
        return
    if info["scope"] is None:
        typer.echo(f"Active bundle: {info['name']} (built-in default; choose one with 'amplifier bundle use NAME')")
    else:
        typer.echo(f"Active bundle: {info['name']} (from {info['scope']} settings: {info['file']})")


@app.command("add")
def add(uri: str = typer.Argument(..., help="git+URL[@ref][#subdirectory=...], a path, or file://path."),
        name: str = typer.Option(None, "--name", "-n", help="Register under this name (default: its bundle.name)."),
        local: bool = LocalOpt, project: bool = ProjectOpt, global_: bool = GlobalOpt) -> None:
    """Register a bundle under a name (loaded and checked first), for `bundle use NAME` and `run -B NAME`."""
    from ..config.scope_flags import scope_from_flags
    from ..plans.profile_choice import add_bundle

    scope = scope_from_flags(local, project, global_)
    registered, path = add_bundle(uri, name, scope)
    typer.echo(f"Registered bundle '{registered}' ({scope} scope, {path}); use it with: amplifier bundle use "
               f"{registered}")


@app.command("remove")
def remove(name: str = typer.Argument(..., help="Registered bundle name."),
           local: bool = LocalOpt, project: bool = ProjectOpt, global_: bool = GlobalOpt) -> None:
    """Forget a registration (from the given scope, else every scope that has it)."""
    from ..config.bundle_settings import remove_bundle

    for path in remove_bundle(name, _optional_scope(local, project, global_)):
        typer.echo(f"Removed bundle '{name}' from {path}")


@app.command("clear")
def clear(local: bool = LocalOpt, project: bool = ProjectOpt, global_: bool = GlobalOpt) -> None:
    """Go back to the default bundle: forget the active bundle (at one scope, or at all of them)."""
    from ..config.bundle_settings import clear_bundle

    cleared = clear_bundle(_optional_scope(local, project, global_))
    for scope, path in cleared:
        typer.echo(f"Cleared the active bundle in {scope} settings ({path})")
    if not cleared:
        typer.echo("No active bundle was set; sessions use the default.")


@app.command("update")
def update(name: str = typer.Argument(None, help="Accepted for upstream's form; every git checkout is checked."),
           check: bool = typer.Option(False, "--check", help="Only say what would be fetched."),
           json_output: bool = JsonOpt) -> None:
    """Re-fetch bundles and modules fetched from git branches (tags and commits stay pinned)."""
    from ..plans.sources.checkouts import update_modules

    if check:
        from ..plans.sources.checkouts import cached_checkouts

        rows = cached_checkouts()
        if json_output:
            from ..ui.tables import print_json

            print_json(rows)
            return
        for row in rows:
            typer.echo(f"  {row['label']}: {'follows a branch: would be re-fetched' if row['mutable'] else 'pinned'}")
        if not rows:
            typer.echo("No git checkouts cached; nothing to update.")
        return
    results = update_modules(None)
    if json_output:
        from ..ui.tables import print_json

        print_json(results)
        return
    if not results:
        typer.echo("No git checkouts cached; nothing to update.")
    for result in results:
        typer.echo(f"  {result['label']}: {result['status']} ({result['commit']})")
