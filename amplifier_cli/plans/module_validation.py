"""`amplifier module validate`: find the package, pick the module type, run the kernel's validators and,
optionally, its behavioural pytest suite for that type."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from amplifier_core.module_ids import MODULE_TYPES, type_from_name

from ..errors import RuntimeFailure, UsageError
from .module_types import declared_type

VALIDATOR_NAMES = {
    "provider": "ProviderValidator",
    "tool": "ToolValidator",
    "hook": "HookValidator",
    "orchestrator": "OrchestratorValidator",
    "context": "ContextValidator",
}


def find_package_dir(path: Path) -> Path:
    """The `amplifier_module_*` package to validate: the path itself, or the one package inside it.
    When there is none the path is returned as is and the validator's import check reports it."""
    from amplifier_core.module_ids import find_package_dir as find_module_package_dir

    return find_module_package_dir(None, path) or path


def detect_type(path: Path, package_dir: Path, explicit: str | None) -> str:
    if explicit is not None:
        kind = {"hooks": "hook", "loop": "orchestrator"}.get(explicit, explicit)
        if kind not in MODULE_TYPES:
            raise UsageError.single(f"unknown module type '{explicit}'", fix=f"use one of: {', '.join(MODULE_TYPES)}")
        return kind
    for candidate in (manifest_type(path), declared_type(package_dir), type_from_name(package_dir.name),
                      type_from_name(path.name)):
        if candidate in MODULE_TYPES:
            return candidate
    raise UsageError.single(
        f"cannot tell the module type of {path}",
        fix="pass --type provider|tool|hook|orchestrator|context, or set __amplifier_module_type__ in the package",
    )


def manifest_type(path: Path) -> str | None:
    """The type a gRPC, native or WASM module's amplifier.toml declares (or its component exports); None for a
    Python module. A manifest that cannot be used is a usage error naming the file and key."""
    from amplifier_core.module_manifest import MANIFEST_FILE, ManifestError

    if not ((path / MANIFEST_FILE).is_file() or path.suffix == ".wasm" or any(path.glob("*.wasm"))):
        return None
    from amplifier_core.polyglot import PolyglotLoadError, polyglot_package

    try:
        stand_in = polyglot_package(path)
    except (ManifestError, PolyglotLoadError) as error:
        raise UsageError.single(str(error)) from None
    if stand_in is None:
        return None
    kind = stand_in.__amplifier_module_type__
    if kind not in VALIDATOR_NAMES:
        raise UsageError.single(f"{path}: {kind} modules cannot be validated here",
                                fix=f"validate one of: {', '.join(VALIDATOR_NAMES)}")
    return str(kind)


@dataclass
class ValidationReport:
    module_type: str
    module_path: Path
    passed: bool
    checks: list[dict[str, Any]]
    summary: str
    behavioral: dict[str, Any] | None = None
    stand_ins: list[str] = field(default_factory=list)  # config keys validation supplied (placeholders)

    def as_json(self) -> dict[str, Any]:
        data = {
            "module_type": self.module_type,
            "module_path": str(self.module_path),
            "passed": self.passed,
            "summary": self.summary,
            "checks": self.checks,
        }
        if self.stand_ins:
            data["stand_ins"] = self.stand_ins
        if self.behavioral is not None:
            data["behavioral"] = self.behavioral
        return data


def parse_module_config(text: str | None) -> dict[str, Any]:
    """`--config`: a YAML/JSON mapping inline, or the path of a YAML file holding one."""
    if not text:
        return {}
    from ..config.yaml_document import load_yaml_document, parse_yaml_text

    candidate = Path(text).expanduser()
    doc = load_yaml_document(candidate) if candidate.is_file() else parse_yaml_text(text, Path("--config"))
    if not isinstance(doc.data, dict):
        raise UsageError.single("--config must be a mapping, e.g. --config '{api_key: test}'")
    from ..config.env_refs import expand_env_refs

    return expand_env_refs(doc.data)


def validate_module(
    path: Path,
    module_type: str | None = None,
    *,
    behavioral: bool = False,
    config: dict[str, Any] | None = None,
) -> ValidationReport:
    """Validate the module at ``path`` offline: bundled modules that need a key or a file get stand-ins
    (see validation_stand_ins) for whatever ``config`` does not set."""
    import asyncio
    import tempfile

    from ..config.module_facts import FACTS_FILE, ModuleFacts, ModuleFactsError, facts_in
    from .validation_stand_ins import module_id_of, with_stand_ins

    path = path.resolve()
    if not path.exists():
        raise UsageError.single(f"module path {path} does not exist", fix="pass the module's directory")
    package_dir = find_package_dir(path)
    kind = detect_type(path, package_dir, module_type)
    try:
        from amplifier_core import validation
    except ImportError as exc:
        raise RuntimeFailure(f"the kernel's validators are not available: {exc}") from exc
    validator = getattr(validation, VALIDATOR_NAMES[kind])()
    with tempfile.TemporaryDirectory(prefix="amplifier-validate-") as scratch:
        facts_check: dict[str, Any] | None = None
        try:
            facts = facts_in(package_dir)
            if (package_dir / FACTS_FILE).is_file():
                facts_check = {"name": "module_facts", "passed": True, "severity": "info",
                               "message": f"{FACTS_FILE} reads well"}
        except ModuleFactsError as error:
            facts = ModuleFacts()  # reported above; validate with the defaults
            facts_check = {"name": "module_facts", "passed": False, "severity": "error",
                           "message": f"{error} (see the README's module author section)"}
        mount_config, stand_ins = with_stand_ins(module_id_of(package_dir), dict(config or {}), Path(scratch), facts)
        result = asyncio.run(validator.validate(package_dir, config=mount_config))
        checks = [
            {"name": c.name, "passed": bool(c.passed), "message": str(c.message), "severity": c.severity}
            for c in result.checks
        ]
        passed = bool(result.passed)
        if facts_check is not None:
            checks.insert(0, facts_check)
            passed = passed and facts_check["passed"]
        report = ValidationReport(kind, package_dir, passed, checks, result.summary(), stand_ins=stand_ins)
        if behavioral and report.passed:
            report.behavioral = run_behavioral(kind, package_dir, mount_config)
            report.passed = report.passed and report.behavioral["passed"]
    return report


def behavioral_suite(kind: str) -> Path | None:
    import importlib.util

    spec = importlib.util.find_spec("amplifier_core.validation.behavioral")
    if spec is None or not spec.submodule_search_locations:
        return None
    suite = Path(next(iter(spec.submodule_search_locations))) / f"test_{kind}.py"
    return suite if suite.is_file() else None


def run_behavioral(kind: str, package_dir: Path, config: dict[str, Any]) -> dict[str, Any]:
    """Run the kernel's behavioural pytest file for `kind` against the module, in a subprocess."""
    suite = behavioral_suite(kind)
    if suite is None:
        return {"passed": True, "ran": False, "output": f"no behavioural tests for type '{kind}' in the kernel"}
    command = [
        sys.executable,
        "-m",
        "pytest",
        str(suite),
        f"--module-path={package_dir}",
        "-q",
        "--tb=short",
        "-p",
        "no:cacheprovider",
        "--rootdir",
        str(suite.parent),
        "-c",
        os.devnull,  # the kernel suite alone: no project ini, no project conftests
        "--noconftest",
        "-p",  # pytest-asyncio and the kernel's plugin (--module-path, fixtures), and no other plugin (autoload
        "pytest_asyncio.plugin",  # is off below): one installed for something else can neither break the suite
        "-p",  # nor slow it (3.7 s -> 1.5 s a run here)
        "amplifier_core.pytest_plugin",
        "-o",
        "asyncio_mode=auto",
        "-o",
        "asyncio_default_fixture_loop_scope=function",
    ]
    if config:
        import json

        command.append(f"--module-config={json.dumps(config)}")
    environment = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    result = subprocess.run(command, capture_output=True, text=True, check=False, cwd=suite.parent, env=environment)
    return {
        "passed": result.returncode == 0,
        "ran": True,
        "exit_code": result.returncode,
        "output": (result.stdout + result.stderr).strip(),
    }
