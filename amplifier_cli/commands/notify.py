"""`amplifier notify status|desktop|reset`: a terminal notification (bell, and OSC 9 where the terminal
supports it) when a chat turn ends; no extra service is involved."""

from __future__ import annotations

import typer

app = typer.Typer(help="Notifications when a chat turn ends.", no_args_is_help=True)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="notify")


@app.command("status")
def status(json_output: bool = typer.Option(False, "--json", help="Print JSON."),
           output: str = typer.Option(None, "--output", "-o", help="text or json.")) -> None:
    """Whether desktop notifications are on, and which settings scope says so."""
    from ..config.notify_settings import notify_status

    info = notify_status()
    if json_output or output == "json":
        from ..ui.tables import print_json

        print_json(info)
        return
    desktop = info["desktop"]
    where = f" (from {desktop['scope']} settings)" if desktop["scope"] else " (default)"
    typer.echo(f"Desktop notifications: {'on' if desktop['enabled'] else 'off'}{where}")


@app.command("desktop")
def desktop(
    state: str = typer.Argument(None, metavar="[on|off]", help="on or off (or use --enable/--disable)."),
    enable: bool = typer.Option(False, "--enable", help="Turn on."),
    disable: bool = typer.Option(False, "--disable", help="Turn off."),
    scope_word: str = typer.Option(None, "--scope", help="local, project or global."),
    local: bool = typer.Option(False, "--local"), project: bool = typer.Option(False, "--project"),
    global_: bool = typer.Option(False, "--global"),
) -> None:
    """Turn the end-of-turn notification on or off (default scope: global)."""
    from ..config.notify_settings import set_desktop
    from ..config.scope_flags import scope_from_word_or_flags
    from ..errors import UsageError

    wanted = {"on": True, "off": False, None: None}.get(state.lower() if state else None, "bad")
    if wanted == "bad" or (enable and disable) or (wanted is not None and (enable or disable)):
        raise UsageError.single("say on or off once", fix="amplifier notify desktop on (or --enable / --disable)")
    enabled = wanted if wanted is not None else (True if enable else False if disable else None)
    if enabled is None:
        raise UsageError.single("on or off?", fix="amplifier notify desktop on (or --enable / --disable)")
    scope = scope_from_word_or_flags(scope_word, local, project, global_)
    path = set_desktop(bool(enabled), scope)
    typer.echo(f"Desktop notifications {'on' if enabled else 'off'} ({scope} scope, {path})")


@app.command("reset")
def reset(
    all_: bool = typer.Option(False, "--all", help="Accepted for upstream's form (every scope is the default)."),
    scope_word: str = typer.Option(None, "--scope", help="Only this scope: local, project or global."),
) -> None:
    """Forget the notification settings (one scope, or all)."""
    from ..config.notify_settings import reset_notify
    from ..config.scope_flags import scope_from_word

    paths = reset_notify(scope_from_word(scope_word) if scope_word else None)
    for path in paths:
        typer.echo(f"Removed notify settings from {path}")
    if not paths:
        typer.echo("No notify settings to remove.")
