"""The budget and prices of a session being opened: settings' `budget:` of every scope, the profile's `budget:`
and `pricing:`, and the command line's limits, narrowed into one `Budget`; `--max-turns` (from any of them)
becomes the orchestrator's `max_iterations`."""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError
from ..plans.plan import BuiltPlan
from .budget import Budget, parse_budget
from .pricing import ModelPrice, Pricer, parse_price
from .usage import UsageTracker


def session_budget(built: BuiltPlan, given: Budget | None) -> Budget:
    """Each scope's and the profile's limits, and the flags': the smallest of each wins."""
    budget = given or Budget()
    for scope in built.settings.scopes.values():
        budget = budget.narrowed(_parse(scope.data.get("budget"), f"settings '{scope.path}'"))
    where = f"profile '{built.profile_name}' ({built.profile.location.path})"
    return budget.narrowed(_parse(built.profile.budget, where))


def session_pricer(built: BuiltPlan) -> Pricer:
    overrides: dict[str, ModelPrice] = {}
    for model, entry in (built.profile.pricing or {}).items():
        try:
            overrides[str(model)] = parse_price(entry)
        except ValueError as error:
            raise ConfigError.single(
                f"profile '{built.profile_name}': pricing.{model}: {error}",
                fix="give USD per million tokens, e.g. pricing: {my-model: {input: 3, output: 15}}",
            ) from None
    return Pricer(overrides)


def apply_max_turns(plan: dict[str, Any], max_turns: int | None) -> None:
    """The orchestrator makes at most ``max_turns`` model calls per turn (a smaller configured limit stays)."""
    if max_turns is None:
        return
    session = plan.setdefault("session", {})
    orchestrator = session.get("orchestrator")
    if isinstance(orchestrator, str):
        orchestrator = {"module": orchestrator}
    orchestrator = dict(orchestrator or {})
    config = dict(orchestrator.get("config") or {})
    current = config.get("max_iterations")
    if not (isinstance(current, int) and 0 < current < max_turns):
        config["max_iterations"] = max_turns
    orchestrator["config"] = config
    session["orchestrator"] = orchestrator


def usage_tracker(built: BuiltPlan, budget: Budget, model: str | None) -> UsageTracker:
    """The tracker with its prices and limits; a cost limit on a model of unknown price is refused (exit 2)."""
    pricer = session_pricer(built)
    if budget.max_cost is not None and not pricer.known(model):
        raise ConfigError.single(
            f"--max-cost needs the price of model '{model or 'unknown'}', which is unknown (never counted as free)",
            fix=f"add it to the profile: pricing: {{{model or 'MODEL'}: {{input: USD_PER_MTOK, output: USD_PER_MTOK}}}}"
                ", pick a priced model with -m, or drop --max-cost",
        )
    return UsageTracker(pricer, budget)


def _parse(data: Any, where: str) -> Budget:
    try:
        return parse_budget(data)
    except ValueError as error:
        raise ConfigError.single(f"{where}: budget: {error}", fix="see `budget:` in README.md") from None
