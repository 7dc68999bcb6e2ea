"""amplifier's app layer (policy). The map, bottom layer first; each package imports only the ones listed
before it, never one after (tests/cli/test_layers.py checks this):

- `errors`       user-facing error types (file, key path, fix; exit code). Used by every layer.
- `config/`      where things live, settings scopes, YAML reading and editing, `${VAR}` references.
- `plans/`       profiles and bundles -> mount plan; module sources (resolver, git cache); module checks;
                 sub-agent definitions.
- `sessions/`    opening a session from a plan, running turns, the session store, resume, usage,
                 interrupts, project instructions, sub-agent spawning.
- `ui/`          front ends (one-shot run, REPL), approval and display systems, output formats, views.
- `commands/`    the thin Typer layer: parse arguments, call the layers above, exit with their code.
                 `launch` (what run / continue / the chat start) and `run_argv` (`run` / `continue` read
                 without typer) import no typer.
- `main`         the Typer app: registers the command groups. `__main__` is the entry point: it answers
                 `--version`, bare `amplifier` in a terminal and plain `run` / `continue` itself, before typer
                 is imported.

`docs/APP.md` walks through the layers and the path of one request.
"""

from __future__ import annotations

__version__ = "0.1.0"
