"""Code that several bundled modules and the app share, kept out of the kernel because it is policy or
platform work, not mechanism: the OS sandbox, secret values, provider call helpers, HTTP status errors,
the shell parse that approvals and tool-bash judge lines with, the agent loop both loop modules mount
(``agent_loop``) and the context manager context-simple mounts and context-persistent extends
(``compacting_context``): bundled modules never import each other, so what two of them share lives here.

Layering: this package may import ``amplifier_core``; it never imports the app (``amplifier_cli``) or a
module (``amplifier_module_*``). Modules and the app import it directly (``amplifier_support.sandbox``)."""
