"""MountPlanValidator: structural checks of a mount plan before anything is loaded.

Answers as 2.0.2 does: the plan and every module spec (``session.orchestrator`` and ``session.context``
included) must be dicts with a ``module``; sections other than session, providers, tools, hooks and agents
only warn. Beyond 2.0.2 it rejects a blank module id and negative or non-integer injection limits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .base import CheckTally, Severity, ValidationCheck

_MODULE_LISTS = ("providers", "tools", "hooks")
_SESSION_MODULES = ("orchestrator", "context")
_EXPECTED_SHAPE = "{'module': 'module-id', 'source': 'optional source', 'config': {...}}"


@dataclass
class MountPlanValidationResult(CheckTally):
    checks: list[ValidationCheck] = field(default_factory=list)

    def format_errors(self) -> str:
        if not self.errors:
            return "No errors"
        lines = ["Mount Plan Validation Failed:", ""]
        lines += [f"  {index}. [{check.name}] {check.message}" for index, check in enumerate(self.errors, 1)]
        lines += ["", f"Total: {len(self.errors)} error(s)"]
        return "\n".join(lines)


class MountPlanValidator:
    # 2.0.2's class attributes; agents is a mapping of agent configs, never checked as a module list
    REQUIRED_SECTIONS: set[str] = {"session"}
    OPTIONAL_SECTIONS: set[str] = {"providers", "tools", "hooks", "agents"}
    REQUIRED_SESSION_FIELDS: set[str] = set(_SESSION_MODULES)
    REQUIRED_MODULE_SPEC_FIELDS: set[str] = {"module"}

    def validate(self, mount_plan: Any) -> MountPlanValidationResult:
        plan = mount_plan
        result = MountPlanValidationResult()

        def check(name: str, passed: bool, message: str, severity: Severity = "error") -> bool:
            # a passed check is informational whatever it would have been on failure
            result.add(ValidationCheck(name, passed, message, severity if not passed else "info"))
            return passed

        if not check("root_type", isinstance(plan, dict),
                     f"Mount plan must be a dict, got {type(plan).__name__}"):
            return result

        check("session_present", "session" in plan,
              "Mount plan is missing the required 'session' section (with orchestrator and context)")
        known = self.REQUIRED_SECTIONS | self.OPTIONAL_SECTIONS
        unknown = sorted(str(key) for key in plan if key not in known)
        if unknown:
            check("unknown_sections", False,
                  f"Unknown sections will be ignored: {', '.join(unknown)} (known sections: "
                  f"{', '.join(sorted(known))})", "warning")

        session = plan.get("session")
        if "session" in plan and check("session_type", isinstance(session, dict),
                                       f"Session section must be a dict, got {type(session).__name__}"):
            for field_name in _SESSION_MODULES:
                path = f"session.{field_name}"
                if check(f"session_{field_name}_present", field_name in session,
                         f"Session section missing required '{field_name}' field ({path}: {_EXPECTED_SHAPE})"):
                    self._check_spec(session[field_name], path, check)
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
                         f"'{section}' section must be a list of module specs, got {type(entries).__name__}"):
                continue
            if not entries:
                check(f"{section}_empty", True, f"'{section}' is empty", "info")
            for index, spec in enumerate(entries):
                self._check_spec(spec, f"{section}[{index}]", check)
        return result

    def _check_spec(self, spec: Any, path: str, check: Any) -> None:
        if not check(f"{path}_type", isinstance(spec, dict),
                     f"Module spec at {path} must be a dict {_EXPECTED_SHAPE}, got {type(spec).__name__}: {spec!r}"):
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
        if "config" in spec:
            check(f"{path}_config_type", isinstance(spec["config"], dict),
                  f"{path}.config must be a mapping, got {type(spec['config']).__name__}")
        if "source" in spec:
            check(f"{path}_source_type", isinstance(spec["source"], str),
                  f"{path}.source must be a string (a path, git+https URL or package name), "
                  f"got {type(spec['source']).__name__}")
