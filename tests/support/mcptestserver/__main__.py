"""Run the test server: ``python -m mcptestserver --transport stdio|http|sse``."""

from __future__ import annotations

import argparse
import socket
import sys
import threading

import anyio

from .server import build_server


async def _serve_http(transport: str) -> None:
    import uvicorn

    server = build_server()
    app = server.streamable_http_app() if transport == "http" else server.sse_app()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)  # connections queue here until uvicorn accepts them
    port = sock.getsockname()[1]
    path = "/mcp" if transport == "http" else "/sse"
    print(f"http://127.0.0.1:{port}{path}", flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    await uvicorn.Server(config).serve(sockets=[sock])


def main() -> int:
    parser = argparse.ArgumentParser(prog="mcptestserver")
    parser.add_argument("--transport", choices=["stdio", "http", "sse"], default="stdio")
    parser.add_argument("--linger", action="store_true",
                        help="stdio: keep running after stdin closes (a badly behaved server; only a signal ends it)")
    args = parser.parse_args()
    if args.transport == "stdio":
        build_server().run("stdio")
        if args.linger:
            threading.Event().wait()
    else:
        anyio.run(_serve_http, args.transport)
    return 0


if __name__ == "__main__":
    sys.exit(main())
