"""`amplifier mcp list|add|remove|get|test`: MCP servers in the files tool-mcp reads, by scope."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from ..config.mcp_servers import McpServerEntry
    from ..config.paths import AmplifierPaths

app = typer.Typer(help="MCP servers: list, add, remove, get, test, login and logout.", no_args_is_help=True)

GLOBAL_HELP = "All projects: the user's mcp.json (the default for add)."
PROJECT_HELP = "This project, amplifier only: .amplifier/mcp.json."
SHARED_HELP = "This project, shared with other agents: .mcp.json."


PROJECT_SCOPES = ("project", "shared")


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="mcp")


def _pairs(values: list[str], separator: str, option: str) -> dict[str, str]:
    from ..errors import UsageError

    pairs: dict[str, str] = {}
    for value in values:
        key, found, rest = value.partition(separator)
        if not found or not key.strip():
            raise UsageError.single(f"{option} '{value}' is not KEY{separator}VALUE",
                                    fix=f"write {option} KEY{separator}VALUE")
        pairs[key.strip()] = rest.strip() if separator == ":" else rest
    return pairs


@app.command("list")
def list_servers(json_output: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Servers of every scope (upstream ~/.amplifier/mcp.json, user, project, shared, $AMPLIFIER_MCP_CONFIG); a later
    scope overrides an earlier one by name."""
    from ..config.mcp_server_listing import server_rows

    rows = server_rows()
    if json_output:
        from ..ui.tables import print_json

        print_json(rows)
        return
    from ..ui.tables import print_table

    table = [(r["name"], r["transport"], r["target"],
              r["scope"] + ("" if r["active"] else " (overridden)") + (" (disabled)" if r["disabled"] else "")
              + ("" if r["trusted"] else " (project not trusted: not started)"),
              r["auth"], r["file"]) for r in rows]
    print_table("MCP servers", ["Name", "Transport", "Command / URL", "Scope", "Auth", "File"], table,
                empty="No MCP servers. Add one with 'amplifier mcp add NAME -- COMMAND ARGS...' or "
                      "'amplifier mcp add NAME URL'.")


@app.command("add", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def add(
    name: str = typer.Argument(..., help="Server name (letters, digits, '-', '_'); tools become mcp__NAME__TOOL."),
    target: list[str] = typer.Argument(None, help="COMMAND ARGS... (stdio; put them after --) or an http(s) URL."),
    transport: str = typer.Option(None, "--transport", "-t", help="stdio, http or sse (default: from TARGET)."),
    env: list[str] = typer.Option([], "--env", "-e", help="KEY=VALUE for a stdio server (repeatable; ${VAR} ok)."),
    header: list[str] = typer.Option([], "--header", "-H", help="'Name: value' for an HTTP server (repeatable)."),
    global_: bool = typer.Option(False, "--global", help=GLOBAL_HELP),
    project: bool = typer.Option(False, "--project", help=PROJECT_HELP),
    shared: bool = typer.Option(False, "--shared", help=SHARED_HELP),
) -> None:
    """Add (or replace) server NAME: `amplifier mcp add time -- uvx mcp-server-time` or
    `amplifier mcp add docs https://host/mcp -H 'Authorization: Bearer ${TOKEN}'`."""
    from ..config.mcp_server_listing import scope_from_flags
    from ..config.mcp_servers import add_server, server_spec
    from ..config.paths import AmplifierPaths

    scope = scope_from_flags(global_, project, shared) or "user"
    spec = server_spec(list(target or []), transport=transport, env=_pairs(env, "=", "--env"),
                       headers=_pairs(header, ":", "--header"))
    paths = AmplifierPaths.discover()
    if scope in PROJECT_SCOPES:
        from ..config.trust import keep_trust_across

        with keep_trust_across(paths):  # the user's own addition does not make their project untrusted
            path = add_server(paths, scope, name, spec)
    else:
        path = add_server(paths, scope, name, spec)
    typer.echo(f"Added MCP server '{name}' ({scope} scope, {path}). Check it with: amplifier mcp test {name}")


@app.command("remove")
def remove(
    name: str = typer.Argument(..., help="Server name."),
    global_: bool = typer.Option(False, "--global", help=GLOBAL_HELP),
    project: bool = typer.Option(False, "--project", help=PROJECT_HELP),
    shared: bool = typer.Option(False, "--shared", help=SHARED_HELP),
) -> None:
    """Remove server NAME from the scope given, or from the one file that defines it."""
    from ..config.mcp_server_listing import scope_from_flags
    from ..config.mcp_servers import remove_server
    from ..config.paths import AmplifierPaths

    path = remove_server(AmplifierPaths.discover(), name, scope_from_flags(global_, project, shared))
    typer.echo(f"Removed MCP server '{name}' from {path}")


@app.command("get")
def get(
    name: str = typer.Argument(..., help="Server name."),
    json_output: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """The definition of server NAME that sessions use, and the file it comes from."""
    from ..config.mcp_server_listing import server_definition

    row = server_definition(name)
    if json_output:
        from ..ui.tables import print_json

        print_json(row)
        return
    import json

    typer.echo(f"{row['name']} ({row['transport']}, {row['scope']} scope, {row['file']})")
    typer.echo(json.dumps(row["spec"], indent=2, ensure_ascii=False))


def _startable(name: str) -> tuple[AmplifierPaths, McpServerEntry]:
    """The paths and the entry of server NAME, refusing a project's server while the project is untrusted."""
    from ..config.mcp_servers import find_server
    from ..config.paths import AmplifierPaths
    from ..config.trust import project_trusted

    paths = AmplifierPaths.discover()
    entry = find_server(paths, name)
    if entry.scope in PROJECT_SCOPES and not project_trusted(paths):
        from ..errors import UsageError

        raise UsageError.single(f"MCP server '{name}' is the project's ({entry.file}) and you have not trusted the "
                                "project, so it is not started", fix="review what the project ships with "
                                "`amplifier trust`, then try again")
    return paths, entry


@app.command("login")
def login(
    name: str = typer.Argument(..., help="Server name (an HTTP server behind OAuth)."),
    timeout: float = typer.Option(30.0, "--timeout", help="Seconds the server may take to answer (the login in "
                                                          "the browser has its own 5 minutes)."),
) -> None:
    """Log in to server NAME now: the browser opens the server's login page and the token is kept in the key store
    (forgets any token it had first)."""
    import asyncio

    from ..config.mcp_oauth_store import McpOAuthStore
    from ..sessions.mcp_probe import probe_server

    paths, entry = _startable(name)
    if entry.transport == "stdio":
        from ..errors import UsageError

        raise UsageError.single(f"MCP server '{name}' is a stdio server; only HTTP servers log in",
                                fix="give it its keys in its `env` instead")
    McpOAuthStore(paths).forget(name)
    result = asyncio.run(probe_server(paths, entry, timeout, login=True))
    if result.state != "connected":
        typer.echo(f"MCP server '{name}' did not connect: {result.error}", err=True)
        raise typer.Exit(1)
    if result.auth != "logged in":
        typer.echo(f"MCP server '{name}' connected without a login ({result.auth or 'no OAuth'}): nothing to keep")
        return
    typer.echo(f"Logged in to MCP server '{name}'; its token is kept in your key store "
               "(`amplifier mcp logout " + name + "` forgets it)")


@app.command("logout")
def logout(name: str = typer.Argument(..., help="Server name.")) -> None:
    """Forget the OAuth tokens (and client registration) kept for server NAME."""
    from ..config.mcp_oauth_store import McpOAuthStore
    from ..config.paths import AmplifierPaths

    forgotten = McpOAuthStore(AmplifierPaths.discover()).forget(name)
    if not forgotten:
        typer.echo(f"No login kept for MCP server '{name}'.")
        return
    typer.echo(f"Logged out of MCP server '{name}': its token is gone from your key store.")


@app.command("test")
def test(
    name: str = typer.Argument(..., help="Server name."),
    timeout: float = typer.Option(30.0, "--timeout", help="Seconds to wait for the server."),
) -> None:
    """Connect to server NAME as a session would and list its tools; exit 1 when it does not connect."""
    import asyncio

    from ..sessions.mcp_probe import probe_server

    paths, entry = _startable(name)
    result = asyncio.run(probe_server(paths, entry, timeout))
    if result.state != "connected":
        typer.echo(f"MCP server '{name}' did not connect: {result.error}", err=True)
        if result.log_text.strip():
            typer.echo("Its stderr:\n" + result.log_text.rstrip(), err=True)
        raise typer.Exit(1)
    how = result.transport + (f", {result.auth}" if result.auth else "")
    typer.echo(f"MCP server '{name}' connected ({how}): {len(result.tools)} tool(s)"
               + (f", {result.prompts} prompt(s)" if result.prompts else ""))
    for tool in result.tools:
        typer.echo(f"  mcp__{name}__{tool}")
