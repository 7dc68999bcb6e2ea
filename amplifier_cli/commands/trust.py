"""`amplifier trust [PATH]`, `amplifier trust list`, `amplifier trust revoke [PATH]`: which projects may run
what they ship (MCP servers, hooks, modules, settings that widen permissions). See config/trust.py."""

from __future__ import annotations

import typer

HELP = ("Review and trust what a project ships that runs code (MCP servers, hooks, modules, settings); "
        "`trust list`, `trust revoke [PATH]`.")


def register(root: typer.Typer) -> None:
    root.command("trust", help=HELP)(trust)


def trust(
    target: str | None = typer.Argument(None, metavar="[PATH | list | revoke]",
                                        help="The project (default: this one), or `list` / `revoke`."),
    path: str | None = typer.Argument(None, metavar="[PATH]", help="With revoke: the project (default: this one)."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Trust without asking (scripts and CI)."),
    json_output: bool = typer.Option(False, "--json", help="Print JSON (with list, or the inputs of a project)."),
) -> None:
    """Show what the project ships that needs trust, and ask (in a terminal) or trust with --yes."""
    from pathlib import Path

    from ..config.paths import AmplifierPaths
    from ..errors import UsageError

    home = AmplifierPaths.discover()
    if target == "list" and not Path("list").is_dir():
        _list(home, json_output)
        return
    if target == "revoke" and not Path("revoke").is_dir():
        _revoke(path)
        return
    if path is not None:
        raise UsageError.single(f"unexpected argument '{path}'", fix="amplifier trust [PATH] | list | revoke [PATH]")
    _trust(_project_paths(target), yes, json_output)


def _project_paths(target: str | None):
    from pathlib import Path

    from ..config.paths import AmplifierPaths
    from ..errors import UsageError

    directory = Path(target).expanduser() if target else Path.cwd()
    if not directory.is_dir():
        raise UsageError.single(f"'{directory}' is not a directory", fix="name a project directory")
    paths = AmplifierPaths.discover(cwd=directory.resolve())
    if paths.project_root is None:
        raise UsageError.single(f"'{directory}' is not inside a project (the home directory never is)",
                                fix="run it in a project directory")
    return paths


def _trust(paths, yes: bool, json_output: bool) -> None:
    import sys

    from ..config.trust import project_trust, trust_project
    from ..errors import UsageError
    from ..ui.trust_prompt import ask_to_trust

    state = project_trust(paths)
    if json_output:
        from ..ui.tables import print_json

        print_json({"project": str(state.root), "trusted": not state.needs_trust,
                    "inputs": [item.as_dict() for item in state.inputs]})
        if not yes:
            return
    if not state.inputs:
        typer.echo(f"{state.root} ships nothing that needs trust: its instructions and harmless settings apply as "
                   "they are.", err=True)
        return
    if not state.needs_trust:
        typer.echo(f"{state.root} is trusted, as it is now.", err=True)
        return
    if yes:
        trust_project(paths, state)
        if not json_output:
            from ..config.trust import describe

            typer.echo("\n".join(describe(state)), err=True)
        typer.echo(f"Trusted {state.root}. A change to any of these asks again.", err=True)
        return
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        from ..config.trust import describe

        typer.echo("\n".join(describe(state)), err=True)
        raise UsageError.single("there is no terminal to ask on", fix="review `amplifier trust --json` and rerun "
                                "with --yes to trust it as it is now")
    if not ask_to_trust(paths, state):
        raise typer.Exit(1)


def _list(paths, json_output: bool) -> None:
    from ..config.trust import trusted_projects

    rows = [{"project": project, "trusted_at": when, "inputs": count}
            for project, when, count in trusted_projects(paths)]
    if json_output:
        from ..ui.tables import print_json

        print_json(rows)
        return
    from ..ui.tables import print_table

    print_table("Trusted projects", ["Project", "Trusted at", "Inputs"],
                [(row["project"], row["trusted_at"], str(row["inputs"])) for row in rows],
                empty="No trusted projects. `amplifier trust` in a project reviews what it ships.")


def _revoke(target: str | None) -> None:
    from pathlib import Path

    from ..config.trust import revoke

    paths = _project_paths(target)
    root = paths.project_root or Path.cwd()
    if revoke(paths, root):
        typer.echo(f"No longer trusted: {root}", err=True)
    else:
        typer.echo(f"{root} was not trusted; nothing to revoke.", err=True)
