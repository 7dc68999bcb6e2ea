"""`amplifier tool list|info|invoke`: a profile's tools, one tool's schema, and a direct call with no model."""

from __future__ import annotations

import typer

app = typer.Typer(help="List, inspect and call the tools a profile mounts.", no_args_is_help=True)

ProfileOpt = typer.Option(None, "--profile", "-P", "--bundle", "-B", help="Profile (bundle) whose tools to use.")


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="tool")


def _json_wanted(json_output: bool, output: str | None) -> bool:
    from ..errors import UsageError

    if output not in (None, "table", "text", "json"):
        raise UsageError.single(f"unknown output '{output}'", fix="use -o json (or --json), or leave it out")
    return json_output or output == "json"


@app.command("list")
def list_tools(
    profile: str = ProfileOpt,
    modules: bool = typer.Option(False, "--modules", "-m", help="Only the tool modules (nothing is mounted)."),
    output: str = typer.Option(None, "--output", "-o", help="table or json."),
    json_output: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """The tools a profile mounts (mounting them as a session would, with no model)."""
    from ..ui import direct_tool_calls
    from ..ui.tables import print_json, print_table

    as_json = _json_wanted(json_output, output)
    if modules:
        rows = direct_tool_calls.tool_modules(profile)
        if as_json:
            print_json(rows)
        else:
            print_table("Tool modules", ["Module", "Source"], [(r["module"], r["source"]) for r in rows])
        return
    rows = direct_tool_calls.list_tools(profile)
    if as_json:
        print_json([{key: r[key] for key in ("name", "description", "module")} for r in rows])
        return
    print_table("Tools", ["Name", "Module", "Description"],
                [(r["name"], r["module"], r["description"].split(". ")[0].splitlines()[0] if r["description"] else "")
                 for r in rows], empty="No tools mounted.")


@app.command("info")
def info(
    name: str = typer.Argument(..., help="Tool name (as the model sees it, e.g. read_file)."),
    profile: str = ProfileOpt,
    output: str = typer.Option(None, "--output", "-o", help="text or json."),
    json_output: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """A tool's description and input schema."""
    import json

    from ..ui import direct_tool_calls

    row = direct_tool_calls.tool_info(name, profile)
    if _json_wanted(json_output, output):
        from ..ui.tables import print_json

        print_json(row)
        return
    typer.echo(f"Tool: {row['name']}  (module {row['module']})")
    typer.echo(row["description"])
    typer.echo("Input schema:")
    typer.echo(json.dumps(row["input_schema"], indent=2))


@app.command("invoke")
def invoke(
    name: str = typer.Argument(..., help="Tool name."),
    arguments: list[str] = typer.Argument(None, help="key=value arguments (values may be JSON)."),
    profile: str = ProfileOpt,
    approval: str = typer.Option("ask", "--approval", help="ask, allow or deny what the approval hooks ask."),
    output: str = typer.Option(None, "--output", "-o", help="text or json."),
    json_output: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Call a tool directly, with no model: the same approval hooks and sandbox as the model's calls."""
    from ..commands.launch import APPROVAL_MODES, _check_choice
    from ..ui import direct_tool_calls
    from .tool_arguments import parse_tool_arguments

    _check_choice(approval, APPROVAL_MODES, "--approval")
    as_json = _json_wanted(json_output, output)
    outcome = direct_tool_calls.invoke_tool(name, parse_tool_arguments(arguments or []), profile=profile,
                                            approval=approval)
    if as_json:
        from ..ui.tables import print_json

        print_json(outcome)
    else:
        if "output" in outcome:
            typer.echo(direct_tool_calls.output_text(outcome["output"]))
        if outcome["status"] != "success":
            typer.echo(f"Error: {outcome.get('error') or 'the tool failed'}", err=True)
    raise typer.Exit(0 if outcome["status"] == "success" else 1)
