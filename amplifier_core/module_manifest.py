"""``amplifier.toml``: how a module that is not a Python package says what it is and how to reach it.

A module directory may hold ``amplifier.toml``::

    [module]
    transport = "grpc"        # python (default) | grpc | wasm | rust (alias: native)
    type = "tool"             # tool | provider | hook | context | orchestrator | approval
    artifact = "tool.wasm"    # wasm: the component file (a plain file name inside the directory)
    crate = "my-tool"         # rust: the executable's name (in the directory or target/release/)
    sha256 = "..."            # optional: the artifact's / executable's digest; a mismatch stops the load
    startup_timeout = 10      # rust: seconds to wait for the executable's READY:<port> line

    [grpc]
    endpoint = "127.0.0.1:50051"

    [wasm]
    max_memory_mb = 64        # the component's memory limit
    max_cpu_seconds = 10      # CPU time one call may use (an epoch deadline); waiting on a host call is not counted

A directory with no manifest and no Python package but exactly one ``*.wasm`` file is a WASM module whose
type is read from the component's exports (``wasm_components.detect_world``). Reading is done the way
amplifier-core 2.0.2 reads it, with its guards: names that leave the module directory are refused.
"""

from __future__ import annotations

import hashlib
import logging
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .module_errors import ModuleValidationError

logger = logging.getLogger(__name__)

MANIFEST_FILE = "amplifier.toml"
TRANSPORTS = ("python", "grpc", "wasm", "rust")
TRANSPORT_ALIASES = {"native": "rust"}
MANIFEST_TYPES = ("tool", "provider", "hook", "context", "orchestrator", "approval")
TYPE_ALIASES = {"hooks": "hook", "hook-handler": "hook", "context-manager": "context", "loop": "orchestrator",
                "approval-provider": "approval"}


class ManifestError(ModuleValidationError):
    """A module's manifest is unreadable, incomplete or unsafe; the message names the module, file and key."""

    def __init__(self, module_id: str, file: Path, key: str | None, problem: str, fix: str) -> None:
        where = f"{file}" + (f", key '{key}'" if key else "")
        super().__init__(f"Module '{module_id}' ({where}): {problem}. {fix}", reason_code="invalid_module_metadata")
        self.module_id = module_id
        self.file = file
        self.key = key
        self.problem = problem
        self.fix = fix


@dataclass(frozen=True)
class ModuleManifest:
    """What the loader needs to start a non-Python module."""

    module_id: str
    directory: Path
    transport: str
    module_type: str | None = None
    artifact: Path | None = None  # wasm: the component file; rust: the executable
    sha256: str | None = None
    endpoint: str | None = None
    crate: str | None = None
    file: Path | None = None  # the manifest file, when there is one
    startup_timeout: float | None = None  # rust: seconds to wait for READY:<port>
    wasm_memory_mb: float | None = None  # wasm: the linear memory limit ([wasm] max_memory_mb)
    wasm_cpu_seconds: float | None = None  # wasm: the CPU time one call may use ([wasm] max_cpu_seconds)

    @property
    def where(self) -> Path:
        return self.file or self.artifact or self.directory


def read_manifest(module_id: str, directory: Path) -> ModuleManifest:
    """The module's manifest; ``transport == "python"`` when it has none (a Python package).

    Raises ManifestError for a manifest that cannot be used, an escaping name or a digest that does not match."""
    directory = Path(directory)
    if directory.is_file() and directory.suffix == ".wasm":
        return _lone_component(module_id, directory.parent, directory)
    file = directory / MANIFEST_FILE
    if not file.is_file():
        components = sorted(directory.glob("*.wasm")) if directory.is_dir() else []
        if len(components) == 1 and not _has_python_package(directory):
            return _lone_component(module_id, directory, components[0])
        return ModuleManifest(module_id, directory, "python")
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        if _has_python_package(directory):  # a Python module with some other amplifier.toml: loads as before
            logger.warning("module %s: %s is not a usable manifest (%s); loading its Python package", module_id,
                           file, error)
            return ModuleManifest(module_id, directory, "python")
        problem = f"is not valid TOML ({error})" if isinstance(error, tomllib.TOMLDecodeError) \
            else f"cannot be read ({error})"
        raise ManifestError(module_id, file, None, problem, "fix the file") from None
    section = data.get("module")
    if not isinstance(section, dict) and _has_python_package(directory):
        return ModuleManifest(module_id, directory, "python")
    if not isinstance(section, dict):
        raise ManifestError(module_id, file, "module", "has no [module] table",
                            'add [module] with transport = "grpc" | "wasm" | "rust" and type = "tool" (or another '
                            "module type)")
    transport = _text(module_id, file, section, "transport") or "python"
    transport = TRANSPORT_ALIASES.get(transport, transport)
    if transport not in TRANSPORTS:
        raise ManifestError(module_id, file, "module.transport", f"unknown transport '{transport}'",
                            f"use one of: {', '.join(TRANSPORTS)}")
    module_type = _module_type(module_id, file, section, required=transport != "python")
    if transport == "python":
        return ModuleManifest(module_id, directory, "python", module_type, file=file)
    sha256 = _digest_setting(module_id, file, section)
    if transport == "grpc":
        grpc = data.get("grpc")
        endpoint = grpc.get("endpoint") if isinstance(grpc, dict) else None
        if not isinstance(endpoint, str) or not endpoint.strip():
            raise ManifestError(module_id, file, "grpc.endpoint", "a gRPC module needs an endpoint",
                                'add [grpc] endpoint = "127.0.0.1:PORT" (where the service listens)')
        return ModuleManifest(module_id, directory, "grpc", module_type, endpoint=endpoint.strip(), file=file)
    if transport == "wasm":
        name = _text(module_id, file, section, "artifact")
        if name is None:
            components = sorted(directory.glob("*.wasm"))
            if len(components) != 1:
                raise ManifestError(module_id, file, "module.artifact",
                                    f"{'no' if not components else 'more than one'} .wasm file in {directory}",
                                    'set artifact = "NAME.wasm" to the component to load')
            name = components[0].name
        artifact = _inside(module_id, file, "module.artifact", directory, name)
        if not artifact.is_file():
            raise ManifestError(module_id, file, "module.artifact", f"'{name}' does not exist in {directory}",
                                "build the component into the module directory, or fix the name")
        _check_digest(module_id, file, artifact, sha256)
        wasm = data.get("wasm")
        limits: dict[str, Any] = wasm if isinstance(wasm, dict) else {}
        return ModuleManifest(module_id, directory, "wasm", module_type, artifact=artifact, sha256=sha256, file=file,
                              wasm_memory_mb=_positive(module_id, file, limits, "wasm", "max_memory_mb"),
                              wasm_cpu_seconds=_positive(module_id, file, limits, "wasm", "max_cpu_seconds"))
    crate = _text(module_id, file, section, "crate")
    if crate is None:
        raise ManifestError(module_id, file, "module.crate", "a rust (native) module needs its executable's name",
                            'add crate = "NAME" (the binary in the module directory or target/release/)')
    _inside(module_id, file, "module.crate", directory, crate)
    candidates = [directory / crate, directory / "target" / "release" / crate]
    binary = next((candidate for candidate in candidates if candidate.is_file()), None)
    if binary is None:
        raise ManifestError(module_id, file, "module.crate",
                            f"no executable '{crate}' in {directory} or {directory / 'target' / 'release'}",
                            "build it (cargo build --release) or fix the name")
    real = binary.resolve()
    if not real.is_relative_to(directory.resolve()):
        raise ManifestError(module_id, file, "module.crate", f"'{binary}' leads outside the module directory",
                            "keep the executable inside the module directory (no symlink out of it)")
    _check_digest(module_id, file, binary, sha256)
    return ModuleManifest(module_id, directory, "rust", module_type, artifact=binary, sha256=sha256, crate=crate,
                          file=file, startup_timeout=_positive(module_id, file, section, "module", "startup_timeout"))


def _positive(module_id: str, file: Path, table: dict[str, Any], table_name: str, key: str) -> float | None:
    value = table.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ManifestError(module_id, file, f"{table_name}.{key}", f"must be a positive number, not {value!r}",
                            f"set {key} to a number above 0")
    return float(value)


def _has_python_package(directory: Path) -> bool:
    return (directory / "__init__.py").is_file() or any(
        (child / "__init__.py").is_file() for child in directory.glob("amplifier_module_*"))


def _lone_component(module_id: str, directory: Path, artifact: Path) -> ModuleManifest:
    """A directory holding only a component: its type comes from what it exports (read when it is loaded)."""
    return ModuleManifest(module_id, directory, "wasm", None, artifact=artifact)


def _text(module_id: str, file: Path, section: dict[str, Any], key: str) -> str | None:
    value = section.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ManifestError(module_id, file, f"module.{key}", f"must be a non-empty string, not {value!r}",
                            f"set {key} = \"...\"")
    return value.strip()


def _module_type(module_id: str, file: Path, section: dict[str, Any], *, required: bool) -> str | None:
    value = _text(module_id, file, section, "type")
    if value is None:
        if required:
            raise ManifestError(module_id, file, "module.type", "the module type is missing",
                                f"add type = \"tool\" (one of: {', '.join(MANIFEST_TYPES)})")
        return None
    value = TYPE_ALIASES.get(value, value)
    if value not in MANIFEST_TYPES:
        raise ManifestError(module_id, file, "module.type", f"unknown module type '{value}'",
                            f"use one of: {', '.join(MANIFEST_TYPES)}")
    return value


def _inside(module_id: str, file: Path, key: str, directory: Path, name: str) -> Path:
    """``directory / name`` for a plain file name that stays in the directory (symlinks followed)."""
    if name in (".", "..") or "/" in name or "\\" in name or Path(name).is_absolute():
        raise ManifestError(module_id, file, key, f"'{name}' is not a plain file name",
                            "name a file directly inside the module directory (no '/', no '..')")
    path = directory / name
    if path.exists() and not path.resolve().is_relative_to(directory.resolve()):
        raise ManifestError(module_id, file, key, f"'{name}' leads outside the module directory",
                            "keep the file inside the module directory (no symlink out of it)")
    return path


def _digest_setting(module_id: str, file: Path, section: dict[str, Any]) -> str | None:
    value = _text(module_id, file, section, "sha256")
    if value is None:
        return None
    digest = value.lower().removeprefix("sha256:")
    if len(digest) != 64 or any(char not in "0123456789abcdef" for char in digest):
        raise ManifestError(module_id, file, "module.sha256", f"'{value}' is not a SHA-256 digest",
                            "set it to the 64 hex digits `sha256sum FILE` prints")
    return digest


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _check_digest(module_id: str, file: Path, path: Path, expected: str | None) -> None:
    if expected is None:
        return
    actual = file_sha256(path)
    if actual != expected:
        raise ManifestError(module_id, file, "module.sha256",
                            f"{path.name} does not match its digest (expected {expected[:12]}…, found "
                            f"{actual[:12]}…): the file changed since the digest was written",
                            "rebuild or re-download the module; update sha256 only if you trust the new file")
