"""WASM components written as component text (wasmtime compiles it; no toolchain needed), implementing worlds
of amplifier_core/polyglot/wit/amplifier-modules.wit.

- ``tool_component(behaviour)``: a tool named ``wasm_echo`` whose ``execute`` answers
  ``{"success": true, "output": <the arguments>}`` ("echo"), spins forever ("spin": the CPU limit stops it) or
  asks for 128 MiB more memory and reports whether it got it ("grow": the memory limit refuses it).
- ``orchestrator_component(tool_request)``: ``execute({"prompt"})`` calls the kernel service's ``execute-tool``
  with ``tool_request`` (any mounted tool, Python ones included), adds the prompt to the context
  (``add-message``), then calls ``complete-with-provider`` with it as the user message, and answers with the
  provider's ChatResponse JSON (the prompt's JSON string is spliced in as it came, escapes and all).

Memory layout of these guests: strings from data segments below 4096, scratch buffers at 8192 and 32768, a bump
allocator (for the host's lowering of lists) from 65536.
"""

from __future__ import annotations

import json

_ALLOCATOR = """
    (global $bump (mut i32) (i32.const 65536))
    (func $realloc (export "realloc") (param i32 i32 i32 i32) (result i32)
      (local $p i32)
      (local.set $p (i32.and (i32.add (global.get $bump) (i32.const 7)) (i32.const -8)))
      (global.set $bump (i32.add (local.get $p) (local.get 3)))
      (local.get $p))
"""


def _data(offset: int, text: str | bytes) -> str:
    raw = text if isinstance(text, bytes) else text.encode()
    escaped = "".join(chr(b) if 32 <= b < 127 and chr(b) not in '"\\' else f"\\{b:02x}" for b in raw)
    return f'(data (i32.const {offset}) "{escaped}")'


def tool_component(behaviour: str = "echo") -> str:
    spec = json.dumps({"name": "wasm_echo", "description": "Echo the arguments (a WASM tool)",
                       "parameters": {"type": "object", "properties": {"text": {"type": "string"}}}})
    prefix = '{"success":true,"output":'
    refused = "the memory limit refused 128 MiB"
    granted = '{"success":true,"output":"granted"}'
    if behaviour == "spin":
        body = "(loop $forever (br $forever)) (i32.const 0)"
    elif behaviour == "grow":
        body = f"""
        (if (i32.eq (memory.grow (i32.const 2048)) (i32.const -1))
          (then (i32.store8 (i32.const 4000) (i32.const 1))
                (i32.store (i32.const 4004) (i32.const 3000))
                (i32.store (i32.const 4008) (i32.const {len(refused)})))
          (else (i32.store8 (i32.const 4000) (i32.const 0))
                (i32.store (i32.const 4004) (i32.const 3500))
                (i32.store (i32.const 4008) (i32.const {len(granted)}))))
        (i32.const 4000)"""
    else:
        body = f"""
        (memory.copy (i32.const 8192) (i32.const 2048) (i32.const {len(prefix)}))
        (memory.copy (i32.add (i32.const 8192) (i32.const {len(prefix)})) (local.get $ptr) (local.get $len))
        (i32.store8 (i32.add (i32.const 8192) (i32.add (i32.const {len(prefix)}) (local.get $len))) (i32.const 125))
        (i32.store8 (i32.const 4000) (i32.const 0))
        (i32.store (i32.const 4004) (i32.const 8192))
        (i32.store (i32.const 4008) (i32.add (local.get $len) (i32.const {len(prefix) + 1})))
        (i32.const 4000)"""
    return f"""
(component
  (core module $m
    (memory (export "mem") 2)
    {_ALLOCATOR}
    {_data(16, spec)}
    {_data(2048, prefix)}
    {_data(3000, refused)}
    {_data(3500, granted)}
    (func (export "get-spec") (result i32)
      (i32.store (i32.const 0) (i32.const 16))
      (i32.store (i32.const 4) (i32.const {len(spec.encode())}))
      (i32.const 0))
    (func (export "execute") (param $ptr i32) (param $len i32) (result i32)
      {body})
  )
  (core instance $i (instantiate $m))
  (func $get-spec (result (list u8))
    (canon lift (core func $i "get-spec") (memory (core memory $i "mem")) (realloc (core func $i "realloc"))))
  (func $execute (param "input" (list u8)) (result (result (list u8) (error string)))
    (canon lift (core func $i "execute") (memory (core memory $i "mem")) (realloc (core func $i "realloc"))))
  (instance $tool (export "get-spec" (func $get-spec)) (export "execute" (func $execute)))
  (export "amplifier:modules/tool@1.0.0" (instance $tool))
)
"""


def orchestrator_component(tool_request: dict[str, object]) -> str:
    tool_json = json.dumps(tool_request)
    head = '{"request":{"messages":['
    prefix = head + '{"role":"user","content":'
    suffix = "}]}}"
    envelope = len('{"prompt":')  # the host's request is {"prompt":"<the prompt as a JSON string>"}
    result_type = "(result (list u8) (error string))"
    return f"""
(component
  (import "amplifier:modules/kernel-service@1.0.0" (instance $ks
    (export "execute-tool" (func (param "request" (list u8)) (result {result_type})))
    (export "complete-with-provider" (func (param "request" (list u8)) (result {result_type})))
    (export "add-message" (func (param "request" (list u8)) (result (result (error string)))))))
  (alias export $ks "execute-tool" (func $execute-tool))
  (alias export $ks "add-message" (func $add-message))
  (alias export $ks "complete-with-provider" (func $complete))
  (core module $libc
    (memory (export "mem") 4)
    {_ALLOCATOR})
  (core instance $libc (instantiate $libc))
  (core func $execute-tool-lowered
    (canon lower (func $execute-tool) (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
  (core func $complete-lowered
    (canon lower (func $complete) (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
  (core func $add-message-lowered
    (canon lower (func $add-message) (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
  (core module $main
    (import "libc" "mem" (memory 4))
    (import "ks" "execute-tool" (func $execute-tool (param i32 i32 i32)))
    (import "ks" "complete-with-provider" (func $complete (param i32 i32 i32)))
    (import "ks" "add-message" (func $add-message (param i32 i32 i32)))
    {_data(16, tool_json)}
    {_data(2048, prefix)}
    {_data(3000, suffix)}
    (func (export "execute") (param $ptr i32) (param $len i32) (result i32)
      (local $text i32)
      (local.set $text (i32.sub (local.get $len) (i32.const {envelope + 1})))
      (call $execute-tool (i32.const 16) (i32.const {len(tool_json.encode())}) (i32.const 4000))
      (memory.copy (i32.const 32768) (i32.const 2048) (i32.const {len(prefix)}))
      (memory.copy (i32.const {32768 + len(prefix)}) (i32.add (local.get $ptr) (i32.const {envelope}))
                   (local.get $text))
      (memory.copy (i32.add (i32.const {32768 + len(prefix)}) (local.get $text)) (i32.const 3000)
                   (i32.const {len(suffix)}))
      (call $add-message (i32.const {32768 + len(head)})
                         (i32.add (local.get $text) (i32.const {len(prefix) - len(head) + 1})) (i32.const 4032))
      (call $complete (i32.const 32768) (i32.add (local.get $text) (i32.const {len(prefix) + len(suffix)}))
                      (i32.const 4016))
      (i32.const 4016)))
  (core instance $main (instantiate $main
    (with "libc" (instance $libc))
    (with "ks" (instance (export "execute-tool" (func $execute-tool-lowered))
                         (export "complete-with-provider" (func $complete-lowered))
                         (export "add-message" (func $add-message-lowered))))))
  (func $execute (param "request" (list u8)) (result {result_type})
    (canon lift (core func $main "execute") (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
  (instance $orchestrator (export "execute" (func $execute)))
  (export "amplifier:modules/orchestrator@1.0.0" (instance $orchestrator))
)
"""


def compile_to_file(text: str, path: object) -> bytes:
    """The component's binary (wasmtime's text-to-binary), written to ``path``."""
    import wasmtime

    binary = bytes(wasmtime.wat2wasm(text))
    from pathlib import Path

    Path(str(path)).write_bytes(binary)
    return binary


def wasi_probe_component() -> str:
    """A tool ``wasi_probe`` that asks WASI for its environment variables and preopened directories and answers
    ``"env=E dirs=D"`` (each count capped at 9): what ambient authority the runtime grants a component."""
    spec = json.dumps({"name": "wasi_probe", "description": "Count what WASI exposes",
                       "parameters": {"type": "object"}})
    answer = '{"success":true,"output":"env=0 dirs=0"}'
    env_digit = answer.index("env=") + 4
    dirs_digit = answer.index("dirs=") + 5
    return f"""
(component
  (import "wasi:cli/environment@0.2.0" (instance $env
    (export "get-environment" (func (result (list (tuple string string)))))))
  (import "wasi:filesystem/types@0.2.0" (instance $types
    (export "descriptor" (type (sub resource)))))
  (alias export $types "descriptor" (type $descriptor))
  (import "wasi:filesystem/preopens@0.2.0" (instance $preopens
    (alias outer 1 $descriptor (type $d))
    (export "get-directories" (func (result (list (tuple (own $d) string)))))))
  (alias export $env "get-environment" (func $get-environment))
  (alias export $preopens "get-directories" (func $get-directories))
  (core module $libc
    (memory (export "mem") 2)
    {_ALLOCATOR})
  (core instance $libc (instantiate $libc))
  (core func $env-lowered
    (canon lower (func $get-environment) (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
  (core func $dirs-lowered
    (canon lower (func $get-directories) (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
  (core module $main
    (import "libc" "mem" (memory 2))
    (import "wasi" "env" (func $env (param i32)))
    (import "wasi" "dirs" (func $dirs (param i32)))
    {_data(16, spec)}
    {_data(2048, answer)}
    (func $digit (param $count i32) (result i32)
      (i32.add (i32.const 48) (select (i32.const 9) (local.get $count) (i32.gt_u (local.get $count) (i32.const 9)))))
    (func (export "get-spec") (result i32)
      (i32.store (i32.const 0) (i32.const 16))
      (i32.store (i32.const 4) (i32.const {len(spec.encode())}))
      (i32.const 0))
    (func (export "execute") (param $ptr i32) (param $len i32) (result i32)
      (call $env (i32.const 1000))
      (call $dirs (i32.const 1100))
      (i32.store8 (i32.const {2048 + env_digit}) (call $digit (i32.load (i32.const 1004))))
      (i32.store8 (i32.const {2048 + dirs_digit}) (call $digit (i32.load (i32.const 1104))))
      (i32.store8 (i32.const 4000) (i32.const 0))
      (i32.store (i32.const 4004) (i32.const 2048))
      (i32.store (i32.const 4008) (i32.const {len(answer)}))
      (i32.const 4000)))
  (core instance $main (instantiate $main (with "libc" (instance $libc))
    (with "wasi" (instance (export "env" (func $env-lowered)) (export "dirs" (func $dirs-lowered))))))
  (func $get-spec (result (list u8))
    (canon lift (core func $main "get-spec") (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
  (func $execute (param "input" (list u8)) (result (result (list u8) (error string)))
    (canon lift (core func $main "execute") (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
  (instance $tool (export "get-spec" (func $get-spec)) (export "execute" (func $execute)))
  (export "amplifier:modules/tool@1.0.0" (instance $tool))
)
"""


def static_component(interface: str, functions: dict[str, tuple[int, str, object]]) -> str:
    """A component exporting ``amplifier:modules/<interface>@1.0.0`` whose functions ignore their arguments and
    answer fixed values: ``{name: (number of list<u8> parameters, kind, answer)}`` with kind ``list``
    (``-> list<u8>``), ``result`` (``-> result<list<u8>, string>``, ok) or ``unit`` (``-> result<_, string>``,
    ok); an answer is JSON-encoded unless it is bytes, which are answered as they are."""
    data, core_functions, lifted, exported = [], [], [], []
    offset = 16
    for index, (name, (parameters, kind, answer)) in enumerate(functions.items()):
        text = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
        data.append(_data(offset, text))
        area = 8192 + index * 16
        params = " ".join("(param i32 i32)" for _ in range(parameters))
        if kind == "list":
            body = (f"(i32.store (i32.const {area}) (i32.const {offset})) "
                    f"(i32.store (i32.const {area + 4}) (i32.const {len(text)}))")
            result_type = "(list u8)"
        elif kind == "result":
            body = (f"(i32.store8 (i32.const {area}) (i32.const 0)) "
                    f"(i32.store (i32.const {area + 4}) (i32.const {offset})) "
                    f"(i32.store (i32.const {area + 8}) (i32.const {len(text)}))")
            result_type = "(result (list u8) (error string))"
        else:
            body = f"(i32.store8 (i32.const {area}) (i32.const 0))"
            result_type = "(result (error string))"
        core_functions.append(f'(func (export "{name}") {params} (result i32) {body} (i32.const {area}))')
        lifted_params = " ".join(f'(param "p{n}" (list u8))' for n in range(parameters))
        lifted.append(f'(func ${name} {lifted_params} (result {result_type}) (canon lift (core func $i "{name}") '
                      f'(memory (core memory $i "mem")) (realloc (core func $i "realloc"))))')
        exported.append(f'(export "{name}" (func ${name}))')
        offset += len(text) + 16
    return f"""
(component
  (core module $m
    (memory (export "mem") 2)
    {_ALLOCATOR}
    {" ".join(data)}
    {" ".join(core_functions)})
  (core instance $i (instantiate $m))
  {" ".join(lifted)}
  (instance $exports {" ".join(exported)})
  (export "amplifier:modules/{interface}@1.0.0" (instance $exports))
)
"""


def upstream_hook_component(event: str, priority: int, name: str, answer: dict[str, object]) -> str:
    """A hook component with upstream's exact hook-handler interface (as its guest SDK's ``export_hook!`` builds
    it): ``get-subscriptions`` answers one ``event-subscription`` record, ``handle`` answers ``answer`` as JSON."""
    text = json.dumps(answer)
    strings = 1024
    return f"""
(component
  (core module $m
    (memory (export "mem") 2)
    {_ALLOCATOR}
    {_data(16, text)}
    {_data(strings, event)}
    {_data(strings + 256, name)}
    (func (export "get-subscriptions") (param i32 i32) (result i32)
      (i32.store (i32.const 8192) (i32.const {strings}))
      (i32.store (i32.const 8196) (i32.const {len(event.encode())}))
      (i32.store (i32.const 8200) (i32.const {priority}))
      (i32.store (i32.const 8204) (i32.const {strings + 256}))
      (i32.store (i32.const 8208) (i32.const {len(name.encode())}))
      (i32.store (i32.const 8300) (i32.const 8192))
      (i32.store (i32.const 8304) (i32.const 1))
      (i32.const 8300))
    (func (export "handle") (param i32 i32) (result i32)
      (i32.store8 (i32.const 8400) (i32.const 0))
      (i32.store (i32.const 8404) (i32.const 16))
      (i32.store (i32.const 8408) (i32.const {len(text.encode())}))
      (i32.const 8400)))
  (core instance $i (instantiate $m))
  (type $subscription (record (field "event" string) (field "priority" s32) (field "name" string)))
  (func $get-subscriptions (param "config" (list u8)) (result (list $subscription))
    (canon lift (core func $i "get-subscriptions") (memory (core memory $i "mem")) (realloc (core func $i "realloc"))))
  (func $handle (param "event" (list u8)) (result (result (list u8) (error string)))
    (canon lift (core func $i "handle") (memory (core memory $i "mem")) (realloc (core func $i "realloc"))))
  (instance $exports
    (export "event-subscription" (type $subscription))
    (export "handle" (func $handle))
    (export "get-subscriptions" (func $get-subscriptions)))
  (export "amplifier:modules/hook-handler@1.0.0" (instance $exports))
)
"""


def upstream_orchestrator_component(tool_request: dict[str, object], capability: str, value: object,
                                    first_wit: bool = False) -> str:
    """An orchestrator importing upstream's exact ``kernel-service`` (all seven functions, each taking one
    ``list<u8>`` of JSON). ``execute`` registers the capability ``{"name": capability, "value": value}``, runs
    ``tool_request`` through ``execute-tool``, reads ``get-messages``, then answers with what ``get-capability``
    returned for ``capability``: with a JSON string ``value`` that is upstream's answer shape.

    ``first_wit``: the same calls through this project's first kernel-service signatures (``get-messages()``,
    ``get-capability(name: string)``, ``register-capability(name: string, value: list<u8>)``)."""
    register = json.dumps({"name": capability, "value": value})
    lookup = json.dumps({"name": capability})
    tool_json = json.dumps(tool_request)
    ok = "(result (list u8) (error string))"
    unit = "(result (error string))"
    imports = {"execute-tool": ok, "complete-with-provider": ok, "emit-hook": ok, "get-messages": ok,
               "add-message": unit, "get-capability": ok, "register-capability": unit}
    params = {name: '(param "request" (list u8))' for name in imports}
    core_params = {name: "(param i32 i32 i32)" for name in imports}
    if first_wit:
        params.update({"get-messages": "", "get-capability": '(param "name" string)',
                       "register-capability": '(param "name" string) (param "value" (list u8))'})
        core_params.update({"get-messages": "(param i32)", "register-capability": "(param i32 i32 i32 i32 i32)"})
    declared = "\n    ".join(f'(export "{name}" (func {params[name]} (result {result})))'
                             for name, result in imports.items())
    aliases = "\n  ".join(f'(alias export $ks "{name}" (func ${name}))' for name in imports)
    lowered = "\n  ".join(f'(core func ${name}-lowered (canon lower (func ${name}) (memory (core memory $libc "mem")) '
                          f'(realloc (core func $libc "realloc"))))' for name in imports)
    core_imports = "\n    ".join(f'(import "ks" "{name}" (func ${name} {core_params[name]}))' for name in imports)
    if first_wit:
        value_json = json.dumps(value)
        register_call = (f"(call $register-capability (i32.const 1024) (i32.const {len(capability.encode())}) "
                         f"(i32.const 16) (i32.const {len(value_json.encode())}) (i32.const 4000))")
        messages_call = "(call $get-messages (i32.const 4032))"
        lookup_call = f"(call $get-capability (i32.const 1024) (i32.const {len(capability.encode())}) (i32.const 4048))"
        register, lookup = value_json, capability
    else:
        register_call = (f"(call $register-capability (i32.const 16) (i32.const {len(register.encode())}) "
                         f"(i32.const 4000))")
        messages_call = "(call $get-messages (i32.const 3072) (i32.const 2) (i32.const 4032))"
        lookup_call = f"(call $get-capability (i32.const 1024) (i32.const {len(lookup.encode())}) (i32.const 4048))"
    provided = " ".join(f'(export "{name}" (func ${name}-lowered))' for name in imports)
    return f"""
(component
  (import "amplifier:modules/kernel-service@1.0.0" (instance $ks
    {declared}))
  {aliases}
  (core module $libc
    (memory (export "mem") 4)
    {_ALLOCATOR})
  (core instance $libc (instantiate $libc))
  {lowered}
  (core module $main
    (import "libc" "mem" (memory 4))
    {core_imports}
    {_data(16, register)}
    {_data(1024, lookup)}
    {_data(2048, tool_json)}
    {_data(3072, "{}")}
    (func (export "execute") (param i32 i32) (result i32)
      {register_call}
      (call $execute-tool (i32.const 2048) (i32.const {len(tool_json.encode())}) (i32.const 4016))
      {messages_call}
      {lookup_call}
      (i32.const 4048)))
  (core instance $main (instantiate $main
    (with "libc" (instance $libc))
    (with "ks" (instance {provided}))))
  (func $execute (param "request" (list u8)) (result {ok})
    (canon lift (core func $main "execute") (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
  (instance $orchestrator (export "execute" (func $execute)))
  (export "amplifier:modules/orchestrator@1.0.0" (instance $orchestrator))
)
"""


def _wit_type(ty: object) -> str:
    """A component value type in WIT spelling (the few kinds the module interfaces use)."""
    from wasmtime.component import _types as types

    if isinstance(ty, types.ListType):
        return f"list<{_wit_type(ty.element)}>"
    if isinstance(ty, types.ResultType):
        ok = "_" if ty.ok is None else _wit_type(ty.ok)
        return f"result<{ok}, {_wit_type(ty.err)}>" if ty.err is not None else f"result<{ok}>"
    if isinstance(ty, types.RecordType):
        return "record{" + ", ".join(f"{name}: {_wit_type(field)}" for name, field in ty.fields) + "}"
    return type(ty).__name__.lower()  # U8 -> u8, S32 -> s32, String -> string


def interface_signatures(binary: bytes, name: str, imported: bool = False) -> dict[str, str]:
    """``{function: "func(param: type, ...) -> type"}`` of the interface the component exports (or imports)."""
    from wasmtime import component

    from amplifier_core.polyglot.wasm_runtime import engine

    compiled = component.Component(engine(), binary)
    items = (compiled.type.imports if imported else compiled.type.exports)(engine())
    found = {}
    for function, item in items[name].ty.exports(engine()).items():
        ty = getattr(item, "ty", item)
        if isinstance(ty, component.FuncType):
            params = ", ".join(f"{param}: {_wit_type(kind)}" for param, kind in ty.params)
            found[function] = f"func({params})" + ("" if ty.result is None else f" -> {_wit_type(ty.result)}")
    return found
