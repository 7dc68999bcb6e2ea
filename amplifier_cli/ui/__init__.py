"""Presentation: everything a person or a pipe sees. The two front ends (`oneshot` for `amplifier run
"prompt"`, `repl/` for the chat), the approval and display systems handed to the kernel
(`approval_systems`, `display_system`), machine output (`output_formats`), tables and lines the commands
print (`tables`, `*_lines`, `update_advice`), and tools called directly (`direct_tool_calls`). What a
command reads or writes in settings lives in `config/` (`*_settings`), what it reports about plans in
`plans/`, about stored sessions in `sessions/`.

Imports `config`, `plans` and `sessions`; never `commands`.
"""
