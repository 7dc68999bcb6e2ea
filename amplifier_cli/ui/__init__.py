"""Presentation: everything a person or a pipe sees. The two front ends (`oneshot` for `amplifier run
"prompt"`, `repl/` for the chat), the approval and display systems handed to the kernel
(`approval_systems`, `display_system`), machine output (`output_formats`), and the views behind the
listing commands (`tables`, `*_views`).

Imports `config`, `plans` and `sessions`; never `commands`.
"""
