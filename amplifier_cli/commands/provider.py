"""`amplifier provider list|current|use|add|edit|remove|reset|test|models`: settings `config.providers`,
with scopes. Keys are read from the environment or the user's key store (`--save-key`), never written into
settings: an entry names a key as `${VAR}`."""

from __future__ import annotations

import typer

app = typer.Typer(help="Configure LLM providers and the default one.", no_args_is_help=True)

_LOCAL = typer.Option(False, "--local", help="Only this checkout (.amplifier/settings.local.yaml).")
_PROJECT = typer.Option(False, "--project", help="Everyone on the project (.amplifier/settings.yaml).")
_GLOBAL = typer.Option(False, "--global", help="All projects (user settings; the default).")
_MODEL = typer.Option(None, "--model", "-m", help="Default model.")
_ENDPOINT = typer.Option(None, "--endpoint", "--base-url", help="API base URL (an OpenAI-compatible server...).")
_KEY_ENV = typer.Option(None, "--key-env", help="Read the key from this variable (written as ${VAR}).")
_SAVE_KEY = typer.Option(False, "--save-key",
                         help="Ask for the key (or read it from stdin) and keep it in the user's key store (0600).")
_JSON = typer.Option(False, "--json", help="Print JSON.")
_OUTPUT = typer.Option(None, "--output", "-o", help="table or json.")
_BUNDLE = typer.Option(None, "--bundle", "-B", "--profile", "-P", help="Profile (bundle) whose providers to use.")


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="provider")


def _scope(local: bool, project: bool, global_: bool, word: str | None = None):
    from ..config.scope_flags import scope_from_word_or_flags

    return scope_from_word_or_flags(word, local, project, global_)


def _json(json_output: bool, output: str | None) -> bool:
    return json_output or output == "json"


def _read_key(name: str) -> str:
    import sys

    if sys.stdin.isatty():
        return typer.prompt(f"{name} API key", hide_input=True)
    return sys.stdin.readline().strip()


def _maybe_save_key(name: str, save_key: bool) -> None:
    if not save_key:
        return
    from ..config.provider_settings import save_provider_key

    env, path = save_provider_key(name, _read_key(name))
    typer.echo(f"Saved {env} in the key store {path} (read by every session; never in settings)")


@app.command("list")
def list_providers(json_output: bool = _JSON, output: str = _OUTPUT) -> None:
    """Providers available here, where their key comes from, and which one is the default."""
    from ..plans.provider_listing import provider_listing
    from ..ui.tables import print_json, print_table

    rows = provider_listing()
    if _json(json_output, output):
        print_json(rows)
        return
    print_table("Providers", ["ID", "Module", "Key", "Configured", "Default", "Description"],
                [(r["id"], r["module"], r["key"], "yes" if r["configured"] else "", "default" if r["default"] else "",
                  r["description"]) for r in rows])


@app.command("current")
def current(json_output: bool = _JSON, output: str = _OUTPUT, bundle: str = _BUNDLE) -> None:
    """The provider and model the next session uses, and which settings chose it."""
    from ..plans.provider_listing import current_provider

    info = current_provider(bundle=bundle)
    if _json(json_output, output):
        from ..ui.tables import print_json

        print_json(info)
        return
    if info["id"] is None:
        typer.echo(f"No provider: profile '{info['profile']}' mounts none (amplifier provider use anthropic)")
        return
    where = f"{info['scope']} settings" if info["scope"] else f"profile '{info['profile']}'"
    typer.echo(f"Provider: {info['id']}  model: {info['model'] or 'module default'}  (from {where})")


@app.command("use")
def use(name: str = typer.Argument(..., help="Provider id (anthropic, openai, ...)."),
        model: str = _MODEL, endpoint: str = _ENDPOINT, key_env: str = _KEY_ENV, save_key: bool = _SAVE_KEY,
        local: bool = _LOCAL, project: bool = _PROJECT, global_: bool = _GLOBAL) -> None:
    """Make NAME the default provider (priority 1 in `config.providers` at the scope)."""
    from ..config.provider_settings import provider_config, provider_id, write_provider

    scope = _scope(local, project, global_)
    _maybe_save_key(name, save_key)
    path = write_provider(name, scope, provider_config(model, endpoint, key_env), make_default=True)
    typer.echo(f"Default provider: {provider_id(name)}{' (' + model + ')' if model else ''} ({scope} scope, {path})")


@app.command("add")
def add(name: str = typer.Argument(..., help="Provider id (its module is provider-<id>)."),
        source: str = typer.Option(None, "--source", "-s", help="Module source (git+URL@ref or a path)."),
        model: str = _MODEL, endpoint: str = _ENDPOINT, key_env: str = _KEY_ENV, save_key: bool = _SAVE_KEY,
        local: bool = _LOCAL, project: bool = _PROJECT, global_: bool = _GLOBAL) -> None:
    """Configure a provider without making it the default (sessions mount it beside the profile's)."""
    from ..config.paths import AmplifierPaths
    from ..config.provider_settings import provider_config, provider_id, write_provider
    from ..config.source_uri import normalize_source_uri

    scope = _scope(local, project, global_)
    _maybe_save_key(name, save_key)
    uri = normalize_source_uri(source, AmplifierPaths.discover().cwd) if source else None
    path = write_provider(name, scope, provider_config(model, endpoint, key_env), source=uri, make_default=False)
    typer.echo(f"Added provider {provider_id(name)} ({scope} scope, {path})")


@app.command("edit")
def edit(name: str = typer.Argument(..., help="Provider id."),
         model: str = _MODEL, endpoint: str = _ENDPOINT, key_env: str = _KEY_ENV,
         set_: list[str] = typer.Option(None, "--set", help="key=value in its config (JSON values allowed)."),
         unset: list[str] = typer.Option(None, "--unset", help="Remove this config key."),
         save_key: bool = _SAVE_KEY,
         local: bool = _LOCAL, project: bool = _PROJECT, global_: bool = _GLOBAL) -> None:
    """Change a configured provider's settings at a scope."""
    from ..config.provider_settings import edit_provider, provider_config, provider_id
    from .tool_arguments import parse_tool_arguments

    scope = _scope(local, project, global_)
    _maybe_save_key(name, save_key)
    extra = parse_tool_arguments(set_ or [])
    if "api_key" in extra and "${" not in str(extra["api_key"]):
        from ..errors import UsageError

        raise UsageError.single("keys are not written into settings",
                                fix=f"use --key-env VAR (or --save-key) for provider {provider_id(name)}")
    path = edit_provider(name, scope, provider_config(model, endpoint, key_env, extra), list(unset or []))
    typer.echo(f"Updated provider {provider_id(name)} ({scope} scope, {path})")


@app.command("remove")
def remove(name: str = typer.Argument(..., help="Provider id."),
           scope_word: str = typer.Argument(None, metavar="[SCOPE]", help="local, project or global."),
           local: bool = _LOCAL, project: bool = _PROJECT, global_: bool = _GLOBAL) -> None:
    """Drop a provider from a scope's `config.providers`."""
    from ..config.provider_settings import provider_id, remove_provider

    scope = _scope(local, project, global_, scope_word)
    typer.echo(f"Removed provider {provider_id(name)} ({scope} scope, {remove_provider(name, scope)})")


@app.command("reset")
def reset(scope_word: str = typer.Argument(None, metavar="[SCOPE]", help="local, project or global."),
          scope_opt: str = typer.Option(None, "--scope", help="local, project or global."),
          local: bool = _LOCAL, project: bool = _PROJECT, global_: bool = _GLOBAL) -> None:
    """Forget a scope's provider settings (sessions use the profile's providers again)."""
    from ..config.provider_settings import reset_providers

    scope = _scope(local, project, global_, scope_word or scope_opt)
    typer.echo(f"Provider settings removed ({scope} scope, {reset_providers(scope)}); using the profile's providers")


@app.command("test")
def test(name: str = typer.Argument(None, help="Provider id (default: the current one)."),
         bundle: str = _BUNDLE, json_output: bool = _JSON, output: str = _OUTPUT) -> None:
    """One cheap request; says in one line what failed (auth, network, model) or that it works."""
    from ..sessions.provider_checks import test_provider

    result = test_provider(name, bundle)
    if _json(json_output, output):
        from ..ui.tables import print_json

        print_json(result)
    elif result["ok"]:
        typer.echo(f"ok: {result['provider']} answered ({result['model'] or 'default model'}, "
                   f"{result['elapsed_ms']} ms)")
    else:
        typer.echo(f"failed ({result['kind']}): {result['provider']}: {result['message']}", err=True)
    raise typer.Exit(0 if result["ok"] else 1)


@app.command("models")
def models(name: str = typer.Argument(None, help="Provider id (default: the current one)."),
           bundle: str = _BUNDLE, json_output: bool = _JSON, output: str = _OUTPUT) -> None:
    """The models the provider offers (asked from its API when reachable)."""
    from ..sessions.provider_checks import list_models

    rows = list_models(name, bundle)
    if _json(json_output, output):
        from ..ui.tables import print_json

        print_json(rows)
        return
    for row in rows:
        typer.echo(row["id"] if row["name"] in (row["id"], "") else f"{row['id']}  ({row['name']})")
