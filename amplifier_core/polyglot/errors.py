"""Errors of the non-Python transports."""

from __future__ import annotations

from ..module_errors import ModuleValidationError

EXTRA_HINT = "pip install 'amplifier[polyglot]'"


class PolyglotLoadError(ModuleValidationError):
    """A gRPC, native or WASM module could not be started or reached; the message says which and how to fix."""

    def __init__(self, message: str, *, reason_code: str = "validation_failed") -> None:
        super().__init__(message, reason_code=reason_code)


def missing_extra(what: str, error: ImportError) -> PolyglotLoadError:
    """The one message for a missing optional dependency of the polyglot transports."""
    missing = getattr(error, "name", None) or str(error)
    return PolyglotLoadError(
        f"{what} modules need the optional packages grpcio, protobuf and wasmtime ('{missing}' is not installed). "
        f"Install them with: {EXTRA_HINT}", reason_code="missing_source")
