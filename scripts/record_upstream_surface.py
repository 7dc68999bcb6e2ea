"""Record amplifier_core's public Python surface as JSON.

Run by hand with an interpreter that has the published ``amplifier-core==2.0.2`` installed:

    /tmp/ac202/bin/python scripts/record_upstream_surface.py > tests/core/upstream_surface_2_0_2.json

``tests/core/test_upstream_surface.py`` imports the pure functions below to compute this kernel's
surface the same way and compares the two, so the recording and the check can never drift apart.
The surface is what a module author relies on: per public module, each public name with its kind,
its signature (parameter names, kinds and defaults; annotations are left out because their spelling
differs with ``from __future__ import annotations``), pydantic fields with defaults and aliases,
enum members, protocol runtime-checkability, and the values of simple constants (event names).
"""

from __future__ import annotations

import enum
import importlib
import inspect
import json
import pkgutil
import sys
import types
from typing import Any

PACKAGE = "amplifier_core"
# Transport-specific or generated internals that no module author imports.
SKIPPED_MODULE_PARTS = ("_grpc_gen",)
SIMPLE_TYPES = (str, int, float, bool, type(None))
# Module-level names that are artefacts of how a file is written, not API.
IGNORED_NAMES = frozenset({"TYPE_CHECKING"})


def public_module_names(package: str = PACKAGE) -> list[str]:
    """Every importable submodule whose dotted path has no private component."""
    root = importlib.import_module(package)
    names = [package]
    for info in pkgutil.walk_packages(root.__path__, prefix=f"{package}."):
        parts = info.name.split(".")
        if any(part.startswith("_") for part in parts) or any(p in SKIPPED_MODULE_PARTS for p in parts):
            continue
        names.append(info.name)
    return sorted(names)


def describe_value(value: Any) -> Any:
    """A JSON-stable rendering of a default or constant: simple values as is, others by type."""
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    if isinstance(value, SIMPLE_TYPES):
        return value
    if isinstance(value, (list, tuple, set, frozenset)) and all(isinstance(v, SIMPLE_TYPES) for v in value):
        items = list(value)
        if isinstance(value, (set, frozenset)):
            items = sorted(items, key=repr)
        return {"type": type(value).__name__, "items": items}
    if isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, SIMPLE_TYPES) for k, v in value.items()):
        return {"type": "dict", "items": dict(sorted(value.items()))}
    return {"type": type(value).__name__}


def describe_signature(func: Any) -> list[str] | None:
    """Parameters as tokens: ``name``, ``name=<json default>``, ``*``, ``*args``, ``**kwargs``.

    Annotations, positional-only markers and the names of ``*args``/``**kwargs`` are left out: callers
    cannot tell them apart, and the Rust-backed classes of 2.0.2 spell them differently.
    None when the callable cannot be introspected.
    """
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return None
    tokens: list[str] = []
    keyword_only_started = False
    for param in signature.parameters.values():
        if param.kind is param.VAR_POSITIONAL:
            tokens.append("*args")
            keyword_only_started = True
        elif param.kind is param.VAR_KEYWORD:
            tokens.append("**kwargs")
        else:
            if param.kind is param.KEYWORD_ONLY and not keyword_only_started:
                tokens.append("*")
                keyword_only_started = True
            token = param.name
            if param.default is not param.empty:
                token += "=" + json.dumps(describe_value(param.default), sort_keys=True)
            tokens.append(token)
    return tokens


def _callable_kind(func: Any) -> str:
    """``async``/``sync`` for Python callables; ``native`` for compiled ones, which cannot tell."""
    unwrapped = inspect.unwrap(func)
    if not (inspect.isfunction(unwrapped) or inspect.ismethod(unwrapped)):
        return "native"
    if inspect.iscoroutinefunction(unwrapped) or inspect.isasyncgenfunction(unwrapped):
        return "async"
    return "sync"


def _is_pydantic_model(cls: type) -> bool:
    return hasattr(cls, "model_fields") and hasattr(cls, "model_dump")


def _is_protocol(cls: type) -> bool:
    return bool(getattr(cls, "_is_protocol", False))


def _foreign_base_names(cls: type) -> set[str]:
    """Attribute names every class of this flavour has (object, BaseModel, Exception, Enum...)."""
    names: set[str] = set()
    for base in inspect.getmro(cls):
        module = getattr(base, "__module__", "") or ""
        if not module.startswith(PACKAGE) and base is not cls:
            names.update(dir(base))
    return names


def describe_class(cls: type) -> dict[str, Any]:
    entry: dict[str, Any] = {"kind": "class"}
    if issubclass(cls, BaseException):
        entry["kind"] = "exception"
        entry["bases"] = [base.__name__ for base in cls.__bases__]
    elif issubclass(cls, enum.Enum):
        entry["kind"] = "enum"
        entry["members"] = {member.name: describe_value(member.value) for member in cls}
        return entry
    elif _is_protocol(cls):
        entry["kind"] = "protocol"
        entry["runtime_checkable"] = bool(getattr(cls, "_is_runtime_protocol", False))
    elif _is_pydantic_model(cls):
        entry["kind"] = "pydantic"
        fields: dict[str, Any] = {}
        for name, field in cls.model_fields.items():
            info: dict[str, Any] = {"required": field.is_required()}
            if field.default_factory is not None:
                info["default"] = "<factory>"
            elif not field.is_required():
                info["default"] = describe_value(field.default)
            if field.alias and field.alias != name:
                info["alias"] = field.alias
            fields[name] = info
        entry["fields"] = fields
        extra = cls.model_config.get("extra")
        if extra is not None:
            entry["extra"] = str(extra)
    if not _is_pydantic_model(cls) and not issubclass(cls, enum.Enum):
        init = cls.__dict__.get("__init__")
        if init is None:
            for base in inspect.getmro(cls)[1:]:
                if (getattr(base, "__module__", "") or "").startswith(PACKAGE) and "__init__" in base.__dict__:
                    init = base.__dict__["__init__"]
                    break
        if init is not None:
            entry["init"] = describe_signature(init)
    members: dict[str, Any] = {}
    foreign = _foreign_base_names(cls)
    for name in sorted(dir(cls)):
        if name.startswith("_") or name in foreign:
            continue
        if _is_pydantic_model(cls) and name in cls.model_fields:
            continue
        try:
            raw = inspect.getattr_static(cls, name)
        except AttributeError:
            continue
        members[name] = describe_member(cls, name, raw)
    entry["members"] = members
    return entry


def describe_member(cls: type, name: str, raw: Any) -> dict[str, Any]:
    if isinstance(raw, property) or type(raw).__name__ in ("getset_descriptor", "member_descriptor"):
        return {"kind": "property"}
    if isinstance(raw, classmethod):
        return {"kind": "classmethod", "signature": describe_signature(getattr(cls, name))}
    if isinstance(raw, staticmethod):
        return {"kind": "staticmethod", "signature": describe_signature(raw.__func__)}
    if callable(raw) and not isinstance(raw, type):
        return {"kind": "method", "call": _callable_kind(raw), "signature": describe_signature(raw)}
    return {"kind": "attribute", "value": describe_value(raw)}


def describe_object(obj: Any) -> dict[str, Any] | None:
    """Describe one public name; None for names that are not part of the surface (loggers, typing)."""
    if isinstance(obj, types.ModuleType):
        return {"kind": "module", "target": obj.__name__}
    marker = getattr(obj, "_fixture_function_marker", None)
    if marker is not None:  # a pytest fixture: what matters is its name, arguments (fixtures it uses), scope
        wrapped = getattr(obj, "_fixture_function", None) or obj
        return {"kind": "fixture", "scope": str(marker.scope), "autouse": bool(marker.autouse),
                "call": _callable_kind(wrapped), "signature": describe_signature(wrapped)}
    if isinstance(obj, type):
        return describe_class(obj)
    if inspect.isfunction(obj) or inspect.isbuiltin(obj) or inspect.ismethod(obj):
        return {"kind": "function", "call": _callable_kind(obj), "signature": describe_signature(obj)}
    if isinstance(obj, SIMPLE_TYPES) or isinstance(obj, (list, tuple, set, frozenset, dict)):
        return {"kind": "constant", "value": describe_value(obj)}
    return None


def _belongs_to_surface(module: types.ModuleType, name: str, obj: Any) -> bool:
    if name.startswith("_") or name in IGNORED_NAMES:
        return False
    exported = getattr(module, "__all__", None)
    if exported is not None and name in exported:
        return True
    if isinstance(obj, types.ModuleType):
        return obj.__name__.startswith(f"{module.__name__}.")
    origin = getattr(obj, "__module__", None)
    if isinstance(obj, (type,)) or inspect.isfunction(obj) or inspect.isbuiltin(obj) \
            or hasattr(obj, "_fixture_function_marker"):
        return bool(origin) and origin.startswith(PACKAGE)
    # other values: only simple constants (event names, reason tables) count
    return isinstance(obj, (*SIMPLE_TYPES, list, tuple, set, frozenset, dict))


def describe_module(module_name: str) -> dict[str, Any]:
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # a broken import is part of what we record
        return {"import_error": f"{type(error).__name__}: {error}"}
    names: dict[str, Any] = {}
    # dir(), not vars(): names a module provides lazily through __getattr__/__dir__ count too
    candidates = set(getattr(module, "__all__", [])) | {n for n in dir(module) if not n.startswith("_")}
    for name in sorted(candidates):
        try:
            obj = getattr(module, name)
        except AttributeError:
            names[name] = {"kind": "missing"}
            continue
        if not _belongs_to_surface(module, name, obj):
            continue
        described = describe_object(obj)
        if described is not None:
            names[name] = described
    result: dict[str, Any] = {"names": names}
    if hasattr(module, "__all__"):
        result["__all__"] = sorted(module.__all__)
    return result


def record_surface(package: str = PACKAGE) -> dict[str, Any]:
    return {name: describe_module(name) for name in public_module_names(package)}


def main() -> int:
    module = importlib.import_module(PACKAGE)
    surface = {"package": PACKAGE, "version": getattr(module, "__version__", None),
               "modules": record_surface()}
    json.dump(surface, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
