"""MountPlanValidator: structural checks of a mount plan before anything is loaded.

Differs from upstream in one documented way: ``session.orchestrator`` / ``session.context`` may be the string
form (``orchestrator: loop-basic``) the session itself accepts; its config then lives in the top-level
``orchestrator:`` / ``context:`` sections, which are therefore known sections here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .base import CheckTally, Severity, ValidationCheck

_MODULE_LISTS = ("providers", "tools", "hooks")
_SESSION_MODULES = ("orchestrator", "context")
_KNOWN_SECTIONS = frozenset({"session", *_MODULE_LISTS, "agents", *_SESSION_MODULES})
_EXPECTED_SHAPE = "{'module': 'module-id', 'source': 'optional source', 'config': {...}}"


@dataclass
class MountPlanValidationResult(CheckTally):
    checks: list[ValidationCheck] = field(default_factory=list)

    def format_errors(self) -> str:
        if not self.errors:
            return "No errors"
        lines = ["Mount Plan Validation Failed:"]
        lines += [f"  {index}. [{check.name}] {check.message}" for index, check in enumerate(self.errors, 1)]
        lines.append(f"Total: {len(self.errors)} error(s)")
        return "\n".join(lines)


class MountPlanValidator:
    def validate(self, plan: Any) -> MountPlanValidationResult:
        result = MountPlanValidationResult()

        def check(name: str, passed: bool, message: str, severity: Severity = "error") -> bool:
            # a passed check is informational whatever it would have been on failure
            result.add(ValidationCheck(name, passed, message, severity if not passed else "info"))
            return passed

        if not check("root_type", isinstance(plan, dict),
                     f"Mount plan must be a mapping (dict), got {type(plan).__name__}"):
            return result

        check("session_present", "session" in plan,
              "Mount plan is missing the required 'session' section (with orchestrator and context)")
        unknown = sorted(str(key) for key in plan if key not in _KNOWN_SECTIONS)
        if unknown:
            check("unknown_sections", False,
                  f"Unknown top-level section(s): {', '.join(unknown)}; known sections are "
                  f"{', '.join(sorted(_KNOWN_SECTIONS))}", "warning")

        session = plan.get("session")
        if "session" in plan and check("session_type", isinstance(session, dict),
                                       f"'session' must be a mapping, got {type(session).__name__}"):
            for field_name in _SESSION_MODULES:
                path = f"session.{field_name}"
                if check(f"session_{field_name}_present", bool(session.get(field_name)),
                         f"Mount plan must specify {path} (a module id such as 'loop-basic', or "
                         f"{_EXPECTED_SHAPE})"):
                    self._check_session_module(plan, session, field_name, check)
            for limit in ("injection_budget_per_turn", "injection_size_limit"):
                value = session.get(limit)
                if value is not None:
                    check(f"session.{limit}_type",
                          isinstance(value, int) and not isinstance(value, bool) and value >= 0,
                          f"session.{limit} must be a non-negative integer or null, got {value!r}")

        for section in _MODULE_LISTS:
            if section not in plan:
                continue
            entries = plan[section]
            if not check(f"{section}_type", isinstance(entries, list),
                         f"'{section}' must be a list of module specs, got {type(entries).__name__}"):
                continue
            if not entries:
                check(f"{section}_empty", True, f"'{section}' is empty", "info")
            for index, spec in enumerate(entries):
                self._check_spec(spec, f"{section}[{index}]", check)
        return result

    def _check_session_module(self, plan: dict[str, Any], session: dict[str, Any], field_name: str,
                              check: Any) -> None:
        spec = session[field_name]
        path = f"session.{field_name}"
        if not isinstance(spec, str):
            self._check_spec(spec, path, check)
            return
        check(f"{path}_module_valid", True, f"{path} names module {spec!r}", "info")
        source = session.get(f"{field_name}_source")
        if source is not None:
            check(f"session.{field_name}_source_type", isinstance(source, str),
                  f"session.{field_name}_source must be a string, got {type(source).__name__}")
        section = plan.get(field_name)
        if section is None:
            return
        if check(f"{field_name}_type", isinstance(section, dict),
                 f"'{field_name}' must be a mapping with a 'config' mapping, got {type(section).__name__}"):
            config = section.get("config")
            if config is not None:
                check(f"{field_name}.config_type", isinstance(config, dict),
                      f"{field_name}.config must be a mapping, got {type(config).__name__}")

    def _check_spec(self, spec: Any, path: str, check: Any) -> None:
        if not check(f"{path}_type", isinstance(spec, dict),
                     f"{path} must be a module spec {_EXPECTED_SHAPE}, got {type(spec).__name__}: {spec!r}"):
            return
        if not check(f"{path}_module_required", "module" in spec,
                     f"{path} is missing the required 'module' field. Received: {spec!r}. "
                     f"Expected: {_EXPECTED_SHAPE}"):
            return
        module = spec["module"]
        if check(f"{path}_module_type", isinstance(module, str),
                 f"{path}.module must be a string (a module id), got {type(module).__name__}") and \
                check(f"{path}_module_empty", bool(module.strip()), f"{path}.module must not be empty"):
            check(f"{path}_module_valid", True, f"{path} names module {module!r}", "info")
        if "config" in spec and spec["config"] is not None:
            check(f"{path}_config_type", isinstance(spec["config"], dict),
                  f"{path}.config must be a mapping, got {type(spec['config']).__name__}")
        if "source" in spec and spec["source"] is not None:
            check(f"{path}_source_type", isinstance(spec["source"], str),
                  f"{path}.source must be a string (a path, git+https URL or package name), "
                  f"got {type(spec['source']).__name__}")
