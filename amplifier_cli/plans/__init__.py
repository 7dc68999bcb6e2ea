"""Plans: what a session is made of. Profiles (YAML and Markdown) and their inheritance (`profiles/`), the
mount plan built from a profile + settings + flags (`plan`, `mount_plan`), where each module comes from
(`sources/`: the layered resolver and the git cache), module ids and types (`module_types`), the checks run
before mounting and by `amplifier module validate` (`module_preflight`, `module_validation`), and sub-agent
definitions (`agents/`).

Imports `config` only; never `sessions`, `ui` or `commands`.
"""
