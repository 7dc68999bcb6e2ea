"""Compare two recorded public surfaces (see scripts/record_upstream_surface.py).

"Compatible" means code written against upstream keeps working here: every upstream name exists
with the same kind; a signature here accepts every call upstream's accepts, with the same defaults
(extra parameters are allowed only when they have defaults); pydantic fields keep their defaults and
aliases; constants keep their values. Additions here are never differences.
"""

from __future__ import annotations

from typing import Any


def _parse(tokens: list[str]) -> tuple[list[tuple[str, str | None]], dict[str, str | None], bool, bool]:
    positional: list[tuple[str, str | None]] = []
    keyword_only: dict[str, str | None] = {}
    var_args = var_kwargs = False
    in_keyword_only = False
    for token in tokens:
        if token == "*":
            in_keyword_only = True
            continue
        if token == "*args":
            var_args = in_keyword_only = True
            continue
        if token == "**kwargs":
            var_kwargs = True
            continue
        name, _, default = token.partition("=")
        entry = default if "=" in token else None
        if in_keyword_only:
            keyword_only[name] = entry
        else:
            positional.append((name, entry))
    return positional, keyword_only, var_args, var_kwargs


def signature_problems(upstream: list[str] | None, here: list[str] | None) -> list[str]:
    if upstream is None:
        return []  # upstream not introspectable (compiled): nothing to hold us to
    if here is None:
        return ["signature not introspectable here"]
    up_pos, up_kw, up_var, up_varkw = _parse(upstream)
    my_pos, my_kw, my_var, my_varkw = _parse(here)
    problems: list[str] = []
    for index, (name, default) in enumerate(up_pos):
        if index >= len(my_pos) or my_pos[index][0] != name:
            problems.append(f"positional parameter {index} is {name!r} upstream")
        elif my_pos[index][1] != default:
            problems.append(f"{name}: default {default} upstream, {my_pos[index][1]} here")
    for name, default in my_pos[len(up_pos):]:
        if default is None and name not in up_kw:
            problems.append(f"extra required parameter {name!r}")
    my_all = dict(my_pos) | my_kw
    for name, default in up_kw.items():
        if name not in my_all:
            problems.append(f"keyword {name!r} missing")
        elif my_all[name] != default:
            problems.append(f"{name}: default {default} upstream, {my_all[name]} here")
    for name, default in my_kw.items():
        if default is None and name not in up_kw:
            problems.append(f"extra required keyword {name!r}")
    if up_var and not my_var:
        problems.append("*args missing")
    if up_varkw and not my_varkw:
        problems.append("**kwargs missing")
    return problems


def _member_problems(up: dict[str, Any], here: dict[str, Any]) -> list[str]:
    up_kind, my_kind = up["kind"], here["kind"]
    if up_kind == "property":
        return [] if my_kind in ("property", "attribute") else [f"property upstream, {my_kind} here"]
    if up_kind != my_kind:
        return [f"{up_kind} upstream, {my_kind} here"]
    problems = []
    if up_kind == "method" and up["call"] != "native" and up["call"] != here["call"]:
        problems.append(f"{up['call']} upstream, {here['call']} here")
    if up_kind == "attribute" and up["value"] != here["value"]:
        problems.append(f"value {up['value']!r} upstream, {here['value']!r} here")
    return problems + signature_problems(up.get("signature"), here.get("signature"))


def entry_differences(path: str, up: dict[str, Any], here: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    if up["kind"] != here["kind"]:
        out[path] = f"{up['kind']} upstream, {here['kind']} here"
        return out
    kind = up["kind"]
    if kind == "constant" and up["value"] != here["value"]:
        out[path] = f"value {up['value']!r} upstream, {here['value']!r} here"
    if kind == "fixture" and (up["scope"], up["autouse"]) != (here["scope"], here["autouse"]):
        out[f"{path}.scope"] = f"scope/autouse {up['scope']}/{up['autouse']} upstream, " \
                               f"{here['scope']}/{here['autouse']} here"
    if kind in ("function", "fixture"):
        problems = signature_problems(up["signature"], here["signature"])
        if up["call"] != "native" and up["call"] != here["call"]:
            problems.append(f"{up['call']} upstream, {here['call']} here")
        if problems:
            out[path] = "; ".join(problems)
    if kind == "protocol" and up["runtime_checkable"] != here["runtime_checkable"]:
        out[f"{path}.runtime_checkable"] = f"{up['runtime_checkable']} upstream"
    if kind == "enum" and up["members"] != here["members"]:
        out[f"{path}.members"] = f"{up['members']} upstream, {here['members']} here"
    if kind == "pydantic":
        for name, field in up["fields"].items():
            mine = here["fields"].get(name)
            if mine is None:
                out[f"{path}.fields.{name}"] = "missing here"
            elif mine != field:
                out[f"{path}.fields.{name}"] = f"{field} upstream, {mine} here"
        if up.get("extra") != here.get("extra"):
            out[f"{path}.extra"] = f"extra={up.get('extra')} upstream, {here.get('extra')} here"
    if "init" in up:
        problems = signature_problems(up["init"], here.get("init"))
        if problems:
            out[f"{path}.init"] = "; ".join(problems)
    if kind != "enum":
        for name, member in up.get("members", {}).items():
            mine = here.get("members", {}).get(name)
            if mine is None and name in here.get("fields", {}):
                continue
            if mine is None:
                out[f"{path}.members.{name}"] = "missing here"
                continue
            problems = _member_problems(member, mine)
            if problems:
                out[f"{path}.members.{name}"] = "; ".join(problems)
    return out


def surface_differences(upstream: dict[str, Any], here: dict[str, Any]) -> dict[str, str]:
    """Path -> what differs, for every upstream module/name this surface is incompatible with."""
    out: dict[str, str] = {}
    for module_name, up_module in upstream.items():
        if "import_error" in up_module:
            continue
        my_module = here.get(module_name)
        if my_module is None:
            out[module_name] = "module missing here"
            continue
        if "import_error" in my_module:
            out[module_name] = my_module["import_error"]
            continue
        up_all = set(up_module.get("__all__", []))
        missing_all = sorted(up_all - set(my_module.get("__all__", up_all)))
        if missing_all:
            out[f"{module_name}.__all__"] = f"lacks {missing_all}"
        for name, up_entry in up_module["names"].items():
            path = f"{module_name}.{name}"
            my_entry = my_module["names"].get(name)
            if my_entry is None:
                out[path] = "missing here"
            else:
                out.update(entry_differences(path, up_entry, my_entry))
    return out
