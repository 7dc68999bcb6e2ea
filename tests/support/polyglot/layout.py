"""Module directories for the transports: an amplifier.toml and, where one is needed, the artifact."""

from __future__ import annotations

import hashlib
from pathlib import Path


def grpc_module(directory: Path, endpoint: str, module_type: str = "tool") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "amplifier.toml").write_text(
        f'[module]\ntransport = "grpc"\ntype = "{module_type}"\n\n[grpc]\nendpoint = "{endpoint}"\n', encoding="utf-8")
    return directory


def artifact_module(directory: Path, transport: str, module_type: str, name: str, content: bytes, *,
                    sha256: str | None = None, executable: bool = False, extra: str = "") -> Path:
    """A wasm (``artifact``) or rust (``crate``) module holding ``content`` as the file ``name``."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_bytes(content)
    if executable:
        path.chmod(0o755)
    key = "artifact" if transport == "wasm" else "crate"
    digest = f'sha256 = "{sha256}"\n' if sha256 else ""
    (directory / "amplifier.toml").write_text(
        f'[module]\ntransport = "{transport}"\ntype = "{module_type}"\n{key} = "{name}"\n{digest}{extra}',
        encoding="utf-8")
    return directory


def digest(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()
