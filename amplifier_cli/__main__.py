"""The `amplifier` command's entry point (console script and `python -m amplifier_cli`).

`amplifier --version` answers here, before typer and the command groups are imported (they cost about 50 ms);
everything else goes to the Typer app in `main`.
"""

from __future__ import annotations

import sys

VERSION_ARGUMENTS = (["--version"], ["-V"])


def main() -> None:
    if sys.argv[1:] in VERSION_ARGUMENTS:
        from . import __version__

        sys.stdout.write(f"amplifier {__version__}\n")
        return
    from .main import main as run_app

    run_app()


if __name__ == "__main__":
    main()
