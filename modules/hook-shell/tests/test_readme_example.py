"""The README's "Shell hooks" example, pasted into a shell in a fresh project, gives a working hook."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from hook_lab import HookLab

README = Path(__file__).resolve().parents[3] / "README.md"


def shell_hooks_example() -> str:
    section = README.read_text(encoding="utf-8").split("## Shell hooks", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```sh\n(.*?)```", section, flags=re.S)
    return block


@pytest.fixture
def pasted(lab: HookLab) -> HookLab:
    subprocess.run(["bash", "-e", "-c", shell_hooks_example()], cwd=lab.project, check=True)
    return lab


async def test_the_readme_example_blocks_recursive_deletes_and_nothing_else(pasted: HookLab) -> None:
    coordinator = await pasted.mount()

    async def pre(command: str):
        return await coordinator.hooks.emit("tool:pre", {"tool_name": "bash", "tool_input": {"command": command}})

    blocked = await pre("rm -rf build")
    assert blocked.action == "deny" and "recursive deletes are not allowed here" in blocked.reason
    assert (await pre("rm build/a.o")).action == "continue"
    assert coordinator.display_system.messages == []
