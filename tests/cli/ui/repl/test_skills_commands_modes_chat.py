"""The chat with what people bring from other agents: a `.claude/commands/review.md` becomes `/review` with
`$ARGUMENTS` filled, `/skills` lists skills with where each came from, and plan mode (`/mode plan`, Shift-Tab)
refuses a write and a bash command but lets a read run."""

from __future__ import annotations

from pathlib import Path

from fakeapi import ToolCall, Turn
from testkit.trust import trust_project_now

PROFILE = """\
profile: {name: chat-test, description: skills commands and modes in the chat}
session: {orchestrator: {module: loop-streaming}, context: {module: context-simple}}
providers: [{module: provider-anthropic, config: {default_model: claude-test, max_retries: 0}}]
tools: [{module: tool-filesystem}, {module: tool-bash}, {module: tool-skills}]
hooks:
  - module: hooks-streaming-ui
  - module: hooks-approval
    config: {rules: [{tool: "*", action: allow}]}
"""


def use_profile(project: Path) -> None:
    (project / ".amplifier" / "profiles" / "chat-test.yaml").write_text(PROFILE, encoding="utf-8")


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_a_claude_code_command_is_a_slash_command_with_its_arguments_filled(spawn_chat, fake_api, chat_project):
    use_profile(chat_project)
    write(chat_project / ".claude" / "commands" / "review.md",
          "---\ndescription: Review a file for bugs\nargument-hint: FILE\n---\nREVIEW-PROMPT: review $ARGUMENTS "
          "and list bugs.\n")
    write(chat_project / ".claude" / "commands" / "git" / "summary.md", "Summarise the git log.\n")
    trust_project_now(chat_project)
    fake_api.add(Turn(text="review-answered"),
                 when_last_user_contains="REVIEW-PROMPT: review src/app.py --strict and list bugs.")
    chat = spawn_chat()
    chat.ready()
    chat.send_line("/help")
    shown = chat.expect("Input: Enter sends")
    assert "/review FILE" in shown and "Review a file for bugs" in shown and "/git:summary" in shown
    chat.exchange("/review src/app.py --strict", "review-answered")
    assert chat.exit() == 0


def test_skills_lists_each_skill_with_where_it_came_from(spawn_chat, chat_project, amplifier_home):
    use_profile(chat_project)
    write(amplifier_home / "config" / "skills" / "commit-style" / "SKILL.md",
          "---\nname: commit-style\ndescription: How commit messages are written here.\n---\nUse the imperative.\n")
    write(chat_project / ".claude" / "skills" / "deploy" / "SKILL.md",
          "---\nname: deploy\ndescription: How this project deploys.\n---\nRun make deploy.\n")
    trust_project_now(chat_project)
    chat = spawn_chat()
    chat.ready()
    chat.send_line("/skills")
    shown = chat.expect(f"[project] {chat_project / '.claude' / 'skills' / 'deploy'}")
    assert "commit-style" in shown and "How commit messages are written here." in shown
    assert f"[user] {amplifier_home / 'config' / 'skills' / 'commit-style'}" in shown
    assert "How this project deploys." in shown
    assert chat.exit() == 0


def test_plan_mode_refuses_a_write_and_a_bash_command_and_allows_a_read(spawn_chat, fake_api, chat_project):
    use_profile(chat_project)
    trust_project_now(chat_project)
    (chat_project / "notes.txt").write_text("NOTES-CONTENT\n", encoding="utf-8")
    fake_api.add(Turn(tool_calls=[ToolCall("write_file", {"file_path": "plan.txt", "content": "x"})]),
                 when_last_user_contains="make a plan")
    fake_api.add(Turn(tool_calls=[ToolCall("bash", {"command": "touch ran.txt"})]),
                 when_last_tool_result_contains="'write_file' was not run")
    fake_api.add(Turn(tool_calls=[ToolCall("read_file", {"file_path": "notes.txt"})]),
                 when_last_tool_result_contains="'bash' was not run")
    fake_api.add(Turn(text="plan-ready"), when_last_tool_result_contains="NOTES-CONTENT")
    fake_api.add(Turn(tool_calls=[ToolCall("write_file", {"file_path": "after.txt", "content": "x"})]),
                 when_last_user_contains="now do it")
    fake_api.add(Turn(text="done-writing"), when_last_tool_result_contains="after.txt")
    chat = spawn_chat()
    chat.ready()
    chat.exchange("/mode plan", "Mode: plan")
    chat.exchange("make a plan", "plan-ready")
    assert not (chat_project / "plan.txt").exists() and not (chat_project / "ran.txt").exists()
    chat.child.send("\x1b[Z")  # Shift-Tab leaves plan mode
    chat.expect("Mode: normal")
    chat.exchange("now do it", "done-writing")
    assert (chat_project / "after.txt").exists()
    assert chat.exit() == 0
