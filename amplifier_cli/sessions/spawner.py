"""The app's side of delegation: the `session.spawn` and `session.resume` capabilities.

A sub-agent is a full session built by `open_session` like any other: its parent's plan with the agent's
partial plan merged over it, the agent's instruction as its system message, its own transcript in the
session store (metadata `parent_id` + `agent`, so `session show` lists it under its parent), the parent's
approval and display systems, an indented `ui.output` so the streaming UI shows its work under the task
call, and the parent's cancellation linked to its own. Depth is counted in capability `session.depth`
(0 for a top-level session) and a spawn that would exceed `max_depth` is refused. The limit a session used
is handed down (capability `session.max_depth`) as a ceiling: an agent whose plan configures tool-task with a
higher `max_depth` cannot lift it.

What the whole tree shares (the limit of children at the model, the list of runs, the observers of their events,
the approval lock) is the SubAgentHub (subagent_hub.py), made by the top-level session and handed down. A child
started with `background` runs in a task of its own, outside the parent's turn; `output` (capability
`session.subagent_output`) reads it, and it stops when its parent session closes. An agent with
`isolation: worktree` works in a git worktree of its own (worktrees.py); its result names the branch.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from amplifier_support.capability_names import (
    AGENTS_CATALOG,
    ROUTING_RESOLVE_ROLE,
    SESSION_DEPTH,
    SESSION_MAX_DEPTH,
    SESSION_MODE,
    SESSION_RESUME,
    SESSION_SANDBOX,
    SESSION_SPAWN,
    SESSION_SUBAGENT_OUTPUT,
    SESSION_SUBAGENTS,
    SUBAGENTS_RUNNING,
    UI_OUTPUT,
    UI_WORKING_INDICATOR,
)

from ..errors import AmplifierError
from ..plans.agents.catalog import (
    AgentCatalog,
    load_agent_catalog,
    select_agents,
    unknown_agent_fix,
)
from ..plans.agents.definitions import AgentDefinition
from ..plans.agents.overlay import plan_for_agent
from .child_approval import ChildApproval
from .plan_mode import DEFAULT_MODE
from .request import SessionRequest
from .subagent_hub import FORWARDED_EVENTS, ChildRun, SubAgentHub

if TYPE_CHECKING:
    from ..config.paths import AmplifierPaths
    from ..config.settings import Settings
    from ..plans.plan import BuiltPlan
    from .live import LiveSession

DEFAULT_MAX_DEPTH = 2  # a top-level session's sub-agents may delegate once more; theirs may not
INDENT_PER_DEPTH = 4


class SubAgentError(Exception):
    """A spawn or resume that could not run or failed; `session_id` is set when a child session exists."""

    def __init__(self, message: str, *, session_id: str | None = None, refused: bool = False) -> None:
        super().__init__(message)
        self.session_id = session_id
        self.refused = refused


class SubAgentSpawner:
    """Registered on one session's coordinator; spawns and resumes that session's children."""

    def __init__(self, paths: AmplifierPaths, settings: Settings,
                 open_session: Callable[..., Awaitable[LiveSession]]) -> None:
        """`open_session` is the factory's own (given, not imported, so sessions and spawner form no cycle)."""
        self.paths = paths
        self.settings = settings
        self._open_session = open_session
        self.live: LiveSession | None = None
        self.warnings: list[str] = []
        self._running: set[str] = set()
        self._top_level = False
        self.hub = SubAgentHub()

    # -- wiring ----------------------------------------------------------------------------------------
    def register(self, coordinator: Any, built: BuiltPlan, given: dict[str, Any]) -> None:
        """Register depth, catalog, spawn and resume (a child's depth and catalog come in `given`)."""
        coordinator.register_capability(SESSION_DEPTH, 0)
        if AGENTS_CATALOG not in given:
            self._top_level = True
            profile_files = [location.path for location in built.profile.chain]
            catalog = load_agent_catalog(self.paths, built.plan.get("agents"), profile_files)
            self.warnings.extend(f"agent definitions: {problem.render()}" for problem in catalog.problems)
            coordinator.register_capability(AGENTS_CATALOG, catalog.capability_value())
        coordinator.register_capability(SESSION_SPAWN, self.spawn)
        coordinator.register_capability(SESSION_RESUME, self.resume)
        # one hub for the whole tree: a child's comes in `given`, a top-level session makes it from settings
        hub = given.get(SESSION_SUBAGENTS)
        self.hub = hub if isinstance(hub, SubAgentHub) else SubAgentHub.for_settings(self.settings.merged)
        coordinator.register_capability(SESSION_SUBAGENTS, self.hub)
        coordinator.register_capability(SESSION_SUBAGENT_OUTPUT, self.output)
        coordinator.register_capability(SUBAGENTS_RUNNING, self.running_children)
        coordinator.register_cleanup(self.stop_background)  # a session's children stop with it

    def bind(self, live: LiveSession) -> None:
        """Hand the spawner its session; a top-level one warns once about agents naming tools it does not have."""
        self.live = live
        if self._top_level:
            available = set(live.tool_names)
            for agent in self._agents().values():
                unknown = [name for name in agent.tool_names or [] if name not in available]
                if unknown:
                    self.warnings.append(
                        f"agent '{agent.name}' ({agent.path or agent.origin}): tools: {', '.join(unknown)} "
                        f"{'is not a tool' if len(unknown) == 1 else 'are not tools'} of this session; the agent "
                        f"runs without {'it' if len(unknown) == 1 else 'them'} (tools here: "
                        f"{', '.join(sorted(available)) or 'none'})")

    # -- capabilities ------------------------------------------------------------------------------------
    async def spawn(
        self,
        agent_name: str,
        instruction: str,
        parent_session: Any = None,
        agent_configs: Any = None,
        sub_session_id: str | None = None,
        *,
        max_depth: int | None = None,
        exclude_tools: list[str] | None = None,
        exclude_hooks: list[str] | None = None,
        background: bool = False,
        **_ignored: Any,
    ) -> dict[str, Any]:
        """Run `instruction` in a new session of agent `agent_name`; return {response, session_id, ...}.
        With `background`, return at once ({session_id, agent, status: running}); `output` reads it later.

        `parent_session` and `agent_configs` are accepted for upstream callers; the parent is always the
        session this capability was registered on and agents come from its catalog."""
        import uuid

        depth, limit = self._check_depth(max_depth)
        agents = self._agents()
        agent = agents.get(agent_name)
        if agent is None:
            raise SubAgentError(f"unknown agent '{agent_name}' ({unknown_agent_fix(agents)})", refused=True)
        exclude = {"tools": list(exclude_tools or []), "hooks": list(exclude_hooks or [])}
        session_id = sub_session_id or str(uuid.uuid4())
        run = ChildRun(session_id=session_id, agent=agent.name, parent_session_id=self._live().session_id,
                       background=background)

        async def start() -> dict[str, Any]:
            request = self._request(agent, agents, exclude, await self._route(agent), session_id=session_id)
            child = await self._open(request, agent, agents, depth, limit, run)
            return await self._run(child, agent, instruction, depth, run)

        if not background:
            return await self._tracked(run, start())
        self.hub.add(run)  # listed at once: task_output may ask before the task has run a step
        run.task = asyncio.ensure_future(self._tracked(run, start()))
        run.task.add_done_callback(_consume_outcome)
        return {"session_id": session_id, "agent": agent.name, "status": "running", "background": True,
                "depth": depth + 1}

    async def resume(self, session_id: str, instruction: str, *, max_depth: int | None = None,
                     exclude_tools: list[str] | None = None, exclude_hooks: list[str] | None = None,
                     **_ignored: Any) -> dict[str, Any]:
        """Continue this session's sub-agent `session_id` (id or unique prefix) with a new instruction."""
        from .store import AmbiguousSessionIdError, SessionNotFoundError
        from .store.locations import session_store_for

        live = self._live()
        depth, limit = self._check_depth(max_depth)
        try:
            record = session_store_for(self.paths).find(session_id)
        except (SessionNotFoundError, AmbiguousSessionIdError) as error:
            raise SubAgentError(f"cannot resume sub-agent '{session_id}': {error}", refused=True) from None
        meta = record.metadata
        if meta.parent_id != live.session_id:
            raise SubAgentError(
                f"session '{session_id}' is not a sub-agent of this session; only sub-agents started here "
                "can be resumed", refused=True)
        if meta.session_id in self._running:
            raise SubAgentError(f"sub-agent session '{meta.session_id}' is already running", refused=True)
        agents = self._agents()
        agent = agents.get(meta.agent or "")
        if agent is None:
            raise SubAgentError(
                f"sub-agent session '{meta.session_id}' ran agent '{meta.agent}', which is no longer defined "
                f"({unknown_agent_fix(agents)})", session_id=meta.session_id, refused=True)
        exclude = {"tools": list(exclude_tools or []), "hooks": list(exclude_hooks or [])}
        request = self._request(agent, agents, exclude, await self._route(agent), resume_id=meta.session_id)
        run = ChildRun(session_id=meta.session_id, agent=agent.name, parent_session_id=live.session_id,
                       resumed_in=meta.cwd)

        async def start() -> dict[str, Any]:
            child = await self._open(request, agent, agents, depth, limit, run)
            return await self._run(child, agent, instruction, depth, run)

        return await self._tracked(run, start())

    async def output(self, session_id: str, wait: bool = False, timeout: float | None = None) -> dict[str, Any]:
        """The state of this session's child `session_id` (id or unique prefix); with `wait`, once it has finished
        (or `timeout` seconds passed: then it is reported still running)."""
        mine = self.hub.children_of(self._live().session_id)
        matches = [run for run in mine if run.session_id == session_id] or \
            [run for run in mine if session_id and run.session_id.startswith(session_id)]
        if len(matches) != 1:
            known = ", ".join(f"{run.session_id} ({run.agent}, {run.state})" for run in mine) or "none yet"
            what = "matches several sub-agents" if matches else "is not a sub-agent started in this session"
            raise SubAgentError(f"'{session_id}' {what}; this session's sub-agents: {known}", refused=True)
        run = matches[0]
        if wait and run.running:
            try:
                await asyncio.wait_for(run.done.wait(), timeout)
            except TimeoutError:
                pass
        return run.report()

    def running_children(self) -> list[dict[str, Any]]:
        """Every sub-agent of the tree running now, as plain data for the UI's list under its indicator."""
        return [{"agent": run.agent, "session_id": run.session_id, "elapsed_seconds": run.elapsed(),
                 "current_tool": run.current_tool, "queued": run.waiting_for_slot, "background": run.background}
                for run in self.hub.running()]

    async def stop_background(self) -> None:
        """Cancel this session's background children (the session is closing); each saves what it did."""
        if self.live is not None:
            await self.hub.stop_background(self.live.session_id)

    # -- internals ---------------------------------------------------------------------------------------
    def _live(self) -> LiveSession:
        if self.live is None:
            raise SubAgentError("the session is not ready yet; sub-agents can start once it runs", refused=True)
        return self.live

    def _check_depth(self, max_depth: int | None) -> tuple[int, int]:
        """(this session's depth, the limit in force); refuses when a child would be deeper than the limit:
        `max_depth` as asked, but never above the ceiling this session inherited."""
        live = self._live()
        depth = int(live.coordinator.get_capability(SESSION_DEPTH) or 0)
        limit = DEFAULT_MAX_DEPTH if max_depth is None else max_depth
        ceiling = live.coordinator.get_capability(SESSION_MAX_DEPTH)
        if isinstance(ceiling, int):
            limit = min(limit, ceiling)
        if depth + 1 > limit:
            raise SubAgentError(
                f"delegation refused: this session is at depth {depth} and the limit is max_depth={limit}, so it "
                "cannot start a sub-agent; do this work directly with your own tools", refused=True)
        if live.coordinator.cancellation.is_cancelled:
            raise SubAgentError("the turn is being cancelled; no sub-agent was started", refused=True)
        return depth, limit

    def _agents(self) -> dict[str, AgentDefinition]:
        value = self._live().coordinator.get_capability(AGENTS_CATALOG) or {}
        return {name: AgentDefinition.from_dict({**data, "name": name}) for name, data in value.items()}

    async def _route(self, agent: AgentDefinition) -> dict[str, Any] | None:
        """The routing matrix's provider and model for the agent's `model_role` (None: no role, an explicit
        `model:`, or no candidate this session can serve, so the child keeps the parent's provider and model)."""
        if not agent.model_role or agent.model:
            return None
        resolve = self._live().coordinator.get_capability(ROUTING_RESOLVE_ROLE)
        if resolve is None:
            return None
        try:
            return await resolve(agent.model_role)
        except AmplifierError as error:  # a broken matrix file: the spawn is refused with its problem
            raise SubAgentError(f"agent '{agent.name}' could not start: {error.render()}", refused=True) from None

    def _request(
        self, agent: AgentDefinition, agents: dict[str, AgentDefinition], exclude: dict[str, list[str]],
        route: dict[str, Any] | None = None, *, session_id: str | None = None, resume_id: str | None = None,
    ) -> SessionRequest:
        import dataclasses

        live = self._live()
        parent_plan = live.built.plan

        def overlay(built: BuiltPlan) -> None:
            built.plan = plan_for_agent(parent_plan, agent, exclude=exclude, route=route)
            built.plan["agents"] = sorted(_child_agents(agents, agent))
            built.profile = dataclasses.replace(
                built.profile, instruction=agent.instruction or built.profile.instruction
            )

        return SessionRequest(
            profile=live.built.profile_name,
            session_id=session_id,
            resume_id=resume_id,
            parent_id=live.session_id,
            agent=agent.name,
            plan_overlay=overlay,
            sandbox=(live.coordinator.get_capability(SESSION_SANDBOX) or {}).get("mode"),  # the parent's --sandbox
        )

    async def _tracked(self, run: ChildRun, work: Awaitable[dict[str, Any]]) -> dict[str, Any]:
        """Run ``work`` as ``run``: listed in the hub while it goes, its end recorded and told to the observers."""
        self.hub.add(run)
        await self.hub.publish("subagent:status", {"status": "running"}, run)
        try:
            result = await work
        except asyncio.CancelledError:
            run.finish("cancelled")
            await self._publish_end(run)
            raise
        except Exception as error:  # SubAgentError, or a bug: the run must not look alive for ever
            run.finish("failed", error=str(error))
            await self._publish_end(run)
            raise
        run.finish("cancelled" if result.get("status") == "cancelled" else "completed", result=result)
        await self._publish_end(run)
        return result

    async def _publish_end(self, run: ChildRun) -> None:
        try:
            await asyncio.shield(self.hub.publish("subagent:status", {"status": run.state}, run))
        except asyncio.CancelledError:  # the observers still hear of it; the caller's cancel goes on
            pass

    def _paths_for(self, agent: AgentDefinition, run: ChildRun) -> AmplifierPaths:
        """Where the child works: the parent's place, or (`isolation: worktree`) a new worktree of its own."""
        if agent.isolation != "worktree":
            return self.paths
        import dataclasses
        import re
        from pathlib import Path

        from ..config.paths import app_worktree_of
        from .worktrees import Worktree, create_worktree, repository_root

        earlier, _ = app_worktree_of(Path(run.resumed_in).resolve(), self.paths.data_dir) if run.resumed_in \
            else (None, None)
        slug = re.sub(r"[^A-Za-z0-9._-]+", "-", agent.name).strip("-.") or "agent"
        try:
            if earlier is not None and earlier.is_dir():  # continued: it goes on in its own worktree and branch
                run.worktree = Worktree(earlier.name, earlier, repository_root(earlier))
            else:
                run.worktree = create_worktree(self.paths.data_dir, self.paths.cwd,
                                               f"{slug[:40]}-{run.session_id[:8]}")
        except AmplifierError as error:
            raise SubAgentError(f"agent '{agent.name}' (isolation: worktree) could not start: {error.render()}",
                                refused=True) from None
        return dataclasses.replace(self.paths, cwd=run.worktree.path, worktree=run.worktree.path)

    @staticmethod
    def _finish_worktree(run: ChildRun, result: dict[str, Any]) -> None:
        """Commit the child's work on its branch (or remove an unchanged worktree) and say so in its result."""
        from .worktrees import finish_worktree

        worktree = run.worktree
        try:
            kept = finish_worktree(worktree, f"amplifier: work of agent {run.agent} (session {run.session_id})")
        except AmplifierError as error:
            result["worktree"] = {"path": str(worktree.path), "branch": worktree.branch, "error": error.render()}
            return
        result["worktree"] = {"branch": worktree.branch if kept else None, "path": str(worktree.path) if kept else None,
                              "changed_files": worktree.changed_files,
                              "note": f"the changes are committed on branch {worktree.branch}; merge it to use them"
                              if kept else "nothing changed; the worktree was removed"}

    async def _open(self, request: SessionRequest, agent: AgentDefinition, agents: dict[str, AgentDefinition],
                    depth: int, limit: int, run: ChildRun) -> LiveSession:
        live = self._live()
        coordinator = live.coordinator
        parent_ui = coordinator.get_capability(UI_OUTPUT) or {}
        # the app never prints a child's answer (the parent gets it), so its UI shows the child's text too
        child_ui = {**parent_ui, "indent": int(parent_ui.get("indent") or 0) + INDENT_PER_DEPTH,
                    "label": agent.name, "show_answer_text": True}
        if run.background:  # it goes on while the parent answers and the person types: it prints nothing (its
            # events still reach stream-json, ACP and the chat's list through the hub; task_output reads it)
            child_ui = {**child_ui, "stream": _Discard(), "working_stream": None}
            child_ui.pop(UI_WORKING_INDICATOR, None)
        catalog = AgentCatalog(agents=_child_agents(agents, agent))
        try:
            child = await self._open_session(
                request,
                paths=self._paths_for(agent, run),
                settings=self.settings,
                approval_system=ChildApproval(coordinator.approval_system, agent.name, self.hub.approval_lock),
                display_system=coordinator.display_system,
                capabilities={
                    SESSION_SUBAGENTS: self.hub,
                    UI_OUTPUT: child_ui,
                    SESSION_DEPTH: depth + 1,
                    SESSION_MAX_DEPTH: limit,
                    AGENTS_CATALOG: catalog.capability_value(),
                    SESSION_MODE: coordinator.get_capability(SESSION_MODE) or DEFAULT_MODE,  # plan mode holds
                },
            )
        except AmplifierError as error:
            raise SubAgentError(f"agent '{agent.name}' could not start: {error.render()}",
                                session_id=request.resume_id) from None
        if agent.tool_names is not None:  # Claude Code's `tools:` names: only these of the inherited tools
            _keep_only_tools(child, agent.tool_names)
        # the parent's usage totals include what its sub-agents spent
        child.coordinator.hooks.register("llm:response", live.usage.on_llm_response, priority=900,
                                         name="parent-usage")
        if run.background:  # not linked to the turn's cancel: a reached budget stops it here, as it stops the turn
            child.coordinator.hooks.register("llm:response", _stop_over_budget(live, child), priority=950,
                                             name="parent-budget")
        self._watch(child, run)
        return child

    def _watch(self, child: LiveSession, run: ChildRun) -> None:
        """Tie the child to its run: its model requests take a slot of the hub's limit, its current tool is kept,
        and its events reach the hub's observers (after hooks-redaction, like the front-ends' own handlers)."""
        run.live = child

        async def slot_status(waiting: ChildRun, status: str) -> None:
            await self.hub.publish("subagent:status", {"status": status}, waiting)

        for provider in (child.coordinator.mount_points.get("providers") or {}).values():
            try:
                provider.complete = self.hub.slots.limited(provider.complete, run, slot_status)
            except AttributeError:  # a provider that refuses attributes (slots, a proxy) runs unlimited
                continue

        async def forward(event: str, data: dict[str, Any]) -> Any:
            from amplifier_core import HookResult

            if event == "tool:pre":
                run.current_tool = str(data.get("tool_name") or "") or None
            elif event in ("tool:post", "tool:error"):
                run.current_tool = None
            if self.hub.observers:
                await self.hub.publish(event, data, run)
            return HookResult()

        for event in FORWARDED_EVENTS:
            child.coordinator.hooks.register(event, forward, priority=1000, name=f"subagent-relay:{event}")

    async def _run(self, child: LiveSession, agent: AgentDefinition, instruction: str, depth: int,
                   run: ChildRun) -> dict[str, Any]:
        live = self._live()
        # a background child is not part of the parent's turn: the turn's cancel does not reach it
        parent_token = live.coordinator.cancellation if not run.background else None
        child_token = child.coordinator.cancellation
        self._running.add(child.session_id)
        outcome: dict[str, Any] = {}
        try:
            if parent_token is not None and parent_token.is_cancelled:
                raise SubAgentError("the turn was cancelled before the sub-agent started",
                                    session_id=child.session_id)
            # no await between linking and execute(): execute resets the child's token synchronously first
            if parent_token is not None:
                parent_token.register_child(child_token)
            try:
                response = await child.execute(instruction)
            finally:
                if parent_token is not None:
                    parent_token.unregister_child(child_token)
            cancelled = child_token.is_cancelled or (parent_token is not None and parent_token.is_cancelled)
            status = "cancelled" if cancelled else "completed"
            outcome.update({
                "response": response,
                "output": response,  # upstream's key
                "session_id": child.session_id,
                "agent": agent.name,
                "status": status,
                "depth": depth + 1,
                "usage": child.usage.session.as_dict(),
            })
            return outcome
        except asyncio.CancelledError:
            raise
        except SubAgentError:
            raise
        except Exception as error:
            raise SubAgentError(f"agent '{agent.name}' failed: {type(error).__name__}: {error}",
                                session_id=child.session_id) from error
        finally:
            self._running.discard(child.session_id)
            await child.close()
            if run.worktree is not None:  # what it changed is committed on its branch before anyone reads it
                await asyncio.to_thread(self._finish_worktree, run, outcome)


class _Discard(io.StringIO):
    """Where a background child's UI writes: nowhere (never a terminal, so no indicator either)."""

    def write(self, text: str) -> int:
        return len(text)


def _stop_over_budget(parent: LiveSession, child: LiveSession) -> Callable[[str, dict[str, Any]], Awaitable[Any]]:
    """A hook stopping ``child`` (after its running tool) once its parent's budget is reached."""

    async def stop_if_spent(event: str, data: dict[str, Any]) -> Any:
        from amplifier_core import HookResult

        if parent.usage.budget_stop is not None:
            await child.coordinator.request_cancel(immediate=False)
        return HookResult()

    return stop_if_spent


def _consume_outcome(task: asyncio.Future[Any]) -> None:
    """A background run's failure is in its ChildRun; reading it here keeps asyncio from logging it as lost."""
    if not task.cancelled():
        task.exception()


def _keep_only_tools(child: LiveSession, names: list[str]) -> None:
    tools = child.coordinator.mount_points.get("tools") or {}
    for name in [name for name in tools if name not in names]:
        del tools[name]


def _child_agents(agents: dict[str, AgentDefinition], agent: AgentDefinition) -> dict[str, AgentDefinition]:
    """The agents a sub-agent may delegate to: its own `agents:` selection minus its `exclude.agents`."""
    visible = select_agents(agents, agent.agents)
    excluded = agent.exclude.get("agents")
    if excluded == "all":
        return {}
    if isinstance(excluded, list):
        visible = {name: value for name, value in visible.items() if name not in excluded}
    return visible
