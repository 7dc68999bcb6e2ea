"""Importing a module from its path (validation and the loader) must not stop other threads importing: the
REPL warm-up and the provider SDK's background import run while modules are mounted."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = """
import sys, threading
sys.path.insert(0, {shared!r})
import gate
from amplifier_core.validation.base import import_module_from_path

def background():
    import slowmod  # holds slowmod's import lock until the main thread's import has started

worker = threading.Thread(target=background)
worker.start()
gate.started.wait()
module = import_module_from_path({package!r})  # its __init__ releases the gate, then imports slowmod
worker.join()
print("ok", module.__name__)
"""


def test_a_path_import_does_not_deadlock_with_another_threads_import(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "gate.py").write_text("import threading\nstarted = threading.Event()\ngo = threading.Event()\n")
    (shared / "slowmod.py").write_text(textwrap.dedent("""
        import gate
        gate.started.set()
        gate.go.wait()
        import latemod  # a first import: it needs the interpreter's import machinery
    """))
    (shared / "latemod.py").write_text("VALUE = 1\n")
    package = tmp_path / "mods" / "amplifier_module_tool_gated"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent("""
        import gate
        gate.go.set()
        import slowmod

        async def mount(coordinator, config=None):
            return None
    """))
    script = SCRIPT.format(shared=str(shared), package=str(package))
    # A deadlock never ends: the timeout only turns it into a failure instead of a hung suite.
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["ok", "amplifier_module_tool_gated"]
