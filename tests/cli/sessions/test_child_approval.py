"""Approval questions of several sub-agents: asked one at a time through the top-level approval system, each
naming the agent that asks; a grandchild's question goes to the same system under the same lock."""

from __future__ import annotations

import asyncio

from amplifier_cli.sessions.child_approval import ChildApproval


class _Person:
    asks_a_person = True

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.open = 0
        self.most_open = 0
        self.answer = asyncio.Event()
        self.first_asked = asyncio.Event()

    async def request_approval(self, prompt: str, options: list[str], timeout: float, default: str) -> str:
        self.asked.append(prompt)
        self.first_asked.set()
        self.open += 1
        self.most_open = max(self.most_open, self.open)
        await self.answer.wait()
        self.open -= 1
        return options[0]


async def test_questions_of_several_children_are_asked_one_at_a_time_naming_the_agent() -> None:
    person = _Person()
    lock = asyncio.Lock()
    reviewer, writer = ChildApproval(person, "reviewer", lock), ChildApproval(person, "writer", lock)
    grandchild = ChildApproval(writer, "checker", lock)
    asked = [asyncio.ensure_future(system.request_approval("Run bash: make?", ["allow", "deny"], 30, "deny"))
             for system in (reviewer, writer, grandchild)]
    await person.first_asked.wait()
    await asyncio.wait(asked, timeout=0)  # the loop has run every waiting task once
    assert person.asked == ["[agent reviewer] Run bash: make?"]  # the others wait their turn
    person.answer.set()
    assert await asyncio.gather(*asked) == ["allow"] * 3
    assert person.most_open == 1
    assert person.asked[1:] == ["[agent writer] Run bash: make?", "[agent checker] Run bash: make?"]
    assert grandchild.inner is person and grandchild.asks_a_person
