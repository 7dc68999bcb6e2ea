"""Configuration: where amplifier keeps things (`paths`), the settings scopes and their merge (`settings`,
`merge`), reading and editing YAML with line numbers and comments kept (`yaml_document`, `yaml_edit`),
`${VAR}` references (`env_refs`), pydantic errors as user-facing problems (`schema_errors`), the
`--local/--project/--global` flags (`scope_flags`) and saved approval rules (`approval_rules`).

The bottom layer of the app: it imports nothing from `plans`, `sessions`, `ui` or `commands`.
"""
