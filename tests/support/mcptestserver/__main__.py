"""Run the test server: ``python -m mcptestserver --transport stdio|http|sse|oauth`` (oauth: Streamable HTTP
behind the loopback authorization server of oauth.py)."""

from __future__ import annotations

import argparse
import socket
import sys
import threading

import anyio

from .server import build_server


async def _serve_http(transport: str, token_lifetime: int) -> None:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)  # connections queue here until uvicorn accepts them
    port = sock.getsockname()[1]
    if transport == "oauth":
        from .oauth import build_oauth_server

        app = build_oauth_server(f"http://127.0.0.1:{port}", token_lifetime).streamable_http_app()
    else:
        server = build_server()
        app = server.streamable_http_app() if transport == "http" else server.sse_app()
    path = "/sse" if transport == "sse" else "/mcp"
    print(f"http://127.0.0.1:{port}{path}", flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    await uvicorn.Server(config).serve(sockets=[sock])


def main() -> int:
    parser = argparse.ArgumentParser(prog="mcptestserver")
    parser.add_argument("--transport", choices=["stdio", "http", "sse", "oauth"], default="stdio")
    parser.add_argument("--linger", action="store_true",
                        help="stdio: keep running after stdin closes (a badly behaved server; only a signal ends it)")
    parser.add_argument("--token-lifetime", type=int, default=3600,
                        help="oauth: seconds an access token lives (and the expires_in it is issued with)")
    args = parser.parse_args()
    if args.transport == "stdio":
        build_server().run("stdio")
        if args.linger:
            threading.Event().wait()
    else:
        anyio.run(_serve_http, args.transport, args.token_lifetime)
    return 0


if __name__ == "__main__":
    sys.exit(main())
