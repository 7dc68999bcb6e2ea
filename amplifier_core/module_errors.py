"""Why a module could not be loaded: the errors the loader and the transports raise, each with a reason code from
``loader.MODULE_FAILURE_REASONS``."""

from __future__ import annotations


class ModuleValidationError(Exception):
    """A module was found but does not have the shape of an amplifier module."""

    def __init__(self, message: str, *, reason_code: str = "validation_failed") -> None:
        super().__init__(message)
        self.reason_code = reason_code


class ModuleDiscoveryError(ValueError):
    """No module could be found for an id (a ValueError, as callers of the loader have always caught)."""

    def __init__(self, message: str, *, reason_code: str = "missing_source") -> None:
        super().__init__(message)
        self.reason_code = reason_code
