"""`amplifier module list|show|validate|update`."""

from __future__ import annotations

from pathlib import Path

import typer

app = typer.Typer(help="Inspect, validate and update modules.", no_args_is_help=True)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="module")


@app.command("list")
def list_modules(
    module_type: str = typer.Option(None, "--type", "-t", help="provider, tool, hook, orchestrator or context."),
    json_output: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Installed modules, the active profile's modules and cached git checkouts."""
    from ..plans.module_report import module_listing, waiting_workspace_modules

    rows = module_listing(module_type=module_type)
    waiting = waiting_workspace_modules()
    if waiting:
        typer.echo(f"This project's own modules ({', '.join(waiting)}) wait until you trust it (`amplifier trust`).",
                   err=True)
    if json_output:
        from ..ui.tables import print_json

        print_json(rows)
        return
    from ..ui.tables import print_table

    print_table(
        "Modules",
        ["Module", "Type", "Transport", "Resolved via", "Installed", "In profile", "Cached"],
        [
            (
                r["module"],
                r["type"],
                r["transport"] or "",
                r["origin"] or "not found",
                "yes" if r["installed"] else "",
                "yes" if r["in_profile"] else "",
                ", ".join(f"{c['ref'] or 'default'}@{c['commit']}" for c in r["cached"]),
            )
            for r in rows
        ],
    )


@app.command("show")
def show(
    module_id: str = typer.Argument(..., help="Module id."),
    json_output: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Type, where it resolves from (every layer), whether the active profile uses it."""
    from ..plans.module_report import module_details

    info = module_details(module_id)
    if json_output:
        from ..ui.tables import print_json

        print_json(info)
        return
    transport = f", transport: {info['transport']}" if info.get("transport") else ""
    typer.echo(f"Module: {info['module']}  (type: {info['type']}{transport})")
    typer.echo(f"Resolved via: {info['resolved_by'] or 'nothing'}  {info['source'] or ''}".rstrip())
    typer.echo(
        f"Installed package: {'yes' if info['installed'] else 'no'};"
        f" in active profile: {'yes' if info['in_profile'] else 'no'}"
    )
    for layer in info["layers"]:
        typer.echo(f"  {layer['layer']:<10} {'found' if layer['found'] else '-':<6} {layer['detail']}")


@app.command("validate")
def validate(
    path: Path = typer.Argument(..., help="Module directory (or its amplifier_module_* package)."),
    module_type: str = typer.Option(None, "--type", "-t", help="provider, tool, hook, orchestrator or context."),
    output: str = typer.Option("human", "--output", "-o", help="human or json."),
    behavioral: bool = typer.Option(False, "--behavioral", "-b", help="Also run the kernel's behavioural tests."),
    config: str = typer.Option(None, "--config", "-c", help="Module config: inline YAML/JSON or a YAML file path."),
) -> None:
    """Check a module against the kernel's contracts; exit 0 pass, 1 fail."""
    from ..errors import UsageError
    from ..plans.module_validation import validate_module

    if output not in ("human", "json"):
        raise UsageError.single(f"unknown output format '{output}'", fix="use --output human or --output json")
    from ..plans.module_validation import parse_module_config

    report = validate_module(path, module_type, behavioral=behavioral, config=parse_module_config(config))
    if output == "json":
        from ..ui.tables import print_json

        print_json(report.as_json())
    else:
        _print_report(report)
    raise typer.Exit(0 if report.passed else 1)


def _print_report(report: object) -> None:
    from rich.table import Table

    from amplifier_support.consoles import table_console

    console = table_console()
    colour = "green" if report.passed else "red"  # type: ignore[attr-defined]
    console.print(f"Validation: {report.module_type}  {report.module_path}")  # type: ignore[attr-defined]
    console.print(f"[{colour}]{report.summary}[/{colour}]")  # type: ignore[attr-defined]
    if report.stand_ins:  # type: ignore[attr-defined]
        console.print(f"Validated offline with stand-ins for: {', '.join(report.stand_ins)} "  # type: ignore[attr-defined]
                      "(placeholders; no request leaves this machine; pass --config to use your own)", markup=False)
    table = Table("Check", "Status", "Message")
    for check in report.checks:  # type: ignore[attr-defined]
        if check["passed"]:
            status = "[green]PASS[/green]" if check["severity"] != "info" or True else ""
        else:
            status = "[yellow]WARN[/yellow]" if check["severity"] == "warning" else "[red]FAIL[/red]"
        table.add_row(check["name"], status, check["message"])
    console.print(table)
    behavioral = report.behavioral  # type: ignore[attr-defined]
    if behavioral is not None:
        verdict = "passed" if behavioral["passed"] else "FAILED"
        console.print(f"Behavioural tests {verdict}")
        console.print(behavioral["output"], markup=False, highlight=False)


@app.command("update")
def update(module_id: str = typer.Argument(None, help="Only this module (default: every cached git module).")) -> None:
    """Re-fetch cached git modules that follow a branch; tags and commits stay as they are."""
    from ..plans.sources.checkouts import update_modules

    results = update_modules(module_id)
    if not results:
        typer.echo(f"No cached git checkout{' for ' + module_id if module_id else 's'}; nothing to update.")
        return
    for result in results:
        if result["status"] == "pinned":
            typer.echo(f"  {result['label']}: pinned at {result['commit']} (tag or commit; not updated)")
        elif result["status"] == "updated":
            typer.echo(f"  {result['label']}: updated {result['previous']} -> {result['commit']}")
        else:
            typer.echo(f"  {result['label']}: already at {result['commit']}")


_LOCAL = typer.Option(False, "--local", help="Only this checkout (.amplifier/settings.local.yaml).")
_PROJECT = typer.Option(False, "--project", help="Everyone on the project (.amplifier/settings.yaml).")
_GLOBAL = typer.Option(False, "--global", help="All projects (user settings; the default).")


@app.command("add")
def add(
    module_id: str = typer.Argument(..., help="Module id (tool-*, hooks-*, provider-*, agent-*, loop-*, context-*)."),
    source: str = typer.Option(None, "--source", "-s", help="Where it comes from: git+URL@ref or a path."),
    local: bool = _LOCAL, project: bool = _PROJECT, global_: bool = _GLOBAL,
) -> None:
    """Add a module to every session (settings `modules.<type>`; tools and hooks are mounted on top of the
    profile's)."""
    from ..config.module_settings import add_module, module_section
    from ..config.scope_flags import scope_from_flags

    scope = scope_from_flags(local, project, global_)
    path = add_module(module_id, source, scope)
    typer.echo(f"Added {module_id} to modules.{module_section(module_id)} ({scope} scope, {path})")


@app.command("remove")
def remove(
    module_id: str = typer.Argument(..., help="Module id."),
    scope_word: str = typer.Argument(None, metavar="[SCOPE]", help="local, project or global (upstream's form)."),
    local: bool = _LOCAL, project: bool = _PROJECT, global_: bool = _GLOBAL,
) -> None:
    """Remove a module added with `module add` from a scope's settings."""
    from ..config.module_settings import remove_module
    from ..config.scope_flags import scope_from_word_or_flags

    scope = scope_from_word_or_flags(scope_word, local, project, global_)
    path = remove_module(module_id, scope)
    typer.echo(f"Removed {module_id} ({scope} scope, {path})")


@app.command("current")
def current(json_output: bool = typer.Option(False, "--json", help="Print JSON."),
            output: str = typer.Option(None, "--output", "-o", help="table or json.")) -> None:
    """Modules added in settings (every scope), as `module add` wrote them."""
    from ..config.module_settings import current_modules

    rows = current_modules()
    if json_output or output == "json":
        from ..ui.tables import print_json

        print_json(rows)
        return
    from ..ui.tables import print_table

    print_table("Added modules", ["Module", "Type", "Source", "Scope"],
                [(r["module"], r["type"], r["source"], r["scope"]) for r in rows],
                empty="No modules added in settings (add one with `amplifier module add ID`).")


@app.command("refresh")
def refresh(module_id: str = typer.Argument(None, help="Only this module (default: every cached git module).")) -> None:
    """Upstream's name for `module update`: re-fetch cached git checkouts that follow a branch."""
    update(module_id)


@app.command("check-updates")
def check_updates(json_output: bool = typer.Option(False, "--json", help="Print JSON."),
                  output: str = typer.Option(None, "--output", "-o", help="table or json."),
                  timeout: float = typer.Option(20.0, "--timeout", min=1.0,
                                                help="Seconds to wait for each remote.")) -> None:
    """Ask each cached git checkout's remote (`git ls-remote`) what it has now: a branch that moved can be
    re-fetched with `module refresh`; a pinned tag shows the remote's newest version tag. Exit 1 when a remote
    could not be asked."""
    from ..plans.sources.checkouts import check_updates as checked

    rows = checked(timeout=timeout)
    if json_output or output == "json":
        from ..ui.tables import print_json

        print_json(rows)
    else:
        from ..ui.tables import print_table

        shown = [(r["module"] or r["url"], r["ref"] or "(default branch)", r["current"], r["available"], r["detail"])
                 for r in rows if r["status"] != "unreachable"]
        if shown or not rows:
            print_table("Cached git checkouts", ["Module", "Ref", "Current", "Available", "Status"], shown,
                        empty="No git checkouts cached; nothing to update.")
    unreachable = {r["url"]: r["detail"] for r in rows if r["status"] == "unreachable"}
    if unreachable:
        first = next(iter(unreachable.values()))
        more = f" (and {len(unreachable) - 1} more remote(s))" if len(unreachable) > 1 else ""
        typer.echo(f"could not check for updates: {first}{more}; check the network and try again", err=True)
        raise typer.Exit(1)
