"""The `amplifier` command's entry point (console script and `python -m amplifier_cli`).

Four answers come before typer and the command groups are imported (they cost about 50 ms): `--version`;
bare `amplifier` in a terminal, which opens the chat; and `amplifier run` / `continue` in their plain forms
(`commands/run_argv.py` says which), which goes straight to the session so the first model request is not
delayed by argument parsing; and `amplifier acp`, whose editor waits for its `initialize` answer. Everything
else goes to the Typer app in `main`.
"""

from __future__ import annotations

import sys

VERSION_ARGUMENTS = (["--version"], ["-V"])


def main() -> None:
    arguments = sys.argv[1:]
    if arguments in VERSION_ARGUMENTS:
        from . import __version__

        sys.stdout.write(f"amplifier {__version__}\n")
        return
    if not arguments:
        from .commands.launch import in_a_terminal, start_reporting_failures

        if in_a_terminal():  # bare `amplifier` in a terminal: the chat, as the Typer app's root would open it
            sys.exit(start_reporting_failures({"prompt": None}))
    from .commands.run_argv import parse_acp_line, parse_command_line  # small: it knows the commands it reads

    acp_options = parse_acp_line(arguments)
    if acp_options is not None:  # an editor starting `amplifier acp`: its first answer must not wait for typer
        from .commands.launch import start_acp_reporting_failures

        sys.exit(start_acp_reporting_failures(acp_options))
    options = parse_command_line(arguments)
    if options is not None:
        from .commands.launch import start_reporting_failures

        sys.exit(start_reporting_failures(options))
    from .main import main as run_app

    run_app()


if __name__ == "__main__":
    main()
