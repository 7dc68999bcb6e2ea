"""Sessions: a plan made live. Opening one (`factory.open_session`, in named steps), the open session and
its turns (`live`), what a caller asks for (`request`), the store on disk (`store/`: metadata, transcript,
resume repair), usage totals (`usage`), one turn as every front-end runs it (`turns`) and stopping it
(`interrupts`), the session's approval rules (`session_approval`, `tool_call_context`, `approval_memory`), the project's
AGENTS.md / AMPLIFIER.md (`instructions`), sub-agents (`spawner`), which values are secret (`secrets`), the
provider SDK imported early (`sdk_imports`, through the finder in `sdk_finder`) and `amplifier mcp test`
(`mcp_probe`).

Imports `config` and `plans`; never `ui` or `commands`. Nothing here prints: front ends in `ui` do.
"""
