"""Presentation: everything a person, a pipe or an editor sees. The three front ends (`oneshot` for `amplifier
run "prompt"`, `repl/` for the chat, `acp/` for an editor over the Agent Client Protocol), the approval and display
systems handed to the kernel (`approval_systems`, `display_system`), machine output (`output_formats`,
`protocol_stdout`), tables and lines the commands
print (`tables`, `*_lines`, `update_advice`), and tools called directly (`direct_tool_calls`). What a
command reads or writes in settings lives in `config/` (`*_settings`), what it reports about plans in
`plans/`, about stored sessions in `sessions/`.

Imports `config`, `plans` and `sessions`; never `commands`.
"""
