"""`python -m fakeapi --script FILE.yaml|json [--port N]`: serve a script until killed.

The first stdout line is the base URL (flushed at once), so a parent process can read it and connect.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path

from .script_file import ScriptError, load_script
from .server import FakeAPIServer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fakeapi", description=__doc__)
    parser.add_argument("--script", type=Path, help="YAML or JSON file with the rules (see fakeapi/README.md)")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    args = parser.parse_args(argv)
    server = FakeAPIServer(port=args.port)
    if args.script is not None:
        try:
            load_script(args.script, server)
        except (OSError, ScriptError, ValueError) as error:
            print(f"fakeapi: cannot load script: {error}", file=sys.stderr)
            return 2
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    with server:
        print(server.base_url, flush=True)
        stop.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
