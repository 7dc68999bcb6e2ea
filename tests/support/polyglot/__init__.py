"""Modules in other languages, built by the tests themselves: gRPC services served in this process with grpcio
(servers.py), a native stand-in executable (native.py) and WASM components from component text (components.py),
each laid out as a module directory with its amplifier.toml (layout.py)."""
