"""In the chat, the model's writes to the places that decide what the next session trusts are asked, whatever
the rules say, and "Always allow" is not offered: a person sees each one."""

from __future__ import annotations

from fakeapi import ToolCall, Turn
from testkit.trust import trust_project_now

PROFILE = """\
profile: {name: chat-test, description: protected writes in the chat}
session: {orchestrator: {module: loop-streaming}, context: {module: context-simple}}
providers: [{module: provider-anthropic, config: {default_model: claude-test, max_retries: 0}}]
tools: [{module: tool-filesystem}, {module: tool-bash}]
hooks:
  - module: hooks-streaming-ui
  - module: hooks-approval
    config: {rules: [{tool: "*", action: allow}]}
"""


def test_protected_writes_are_asked_in_the_chat_even_with_an_allow_all_rule(spawn_chat, fake_api, chat_project):
    (chat_project / ".amplifier" / "profiles" / "chat-test.yaml").write_text(PROFILE, encoding="utf-8")
    trust_project_now(chat_project)
    fake_api.add(Turn(tool_calls=[ToolCall("write_file", {"file_path": ".mcp.json", "content": "{}\n"})]),
                 when_last_user_contains="plant")
    fake_api.add(Turn(tool_calls=[ToolCall("edit_file", {"file_path": ".amplifier/settings.yaml",
                                                         "old_string": "false", "new_string": "true"})]),
                 when_last_tool_result_contains=".mcp.json")
    fake_api.add(Turn(tool_calls=[ToolCall("bash", {"command": "echo '{}' > .amplifier/mcp.json"})]),
                 when_last_tool_result_contains="settings.yaml")
    fake_api.add(Turn(tool_calls=[ToolCall("write_file", {"file_path": ".git/hooks/pre-commit", "content": "x"})]),
                 when_last_tool_result_contains="mcp.json")
    fake_api.add(Turn(tool_calls=[ToolCall("edit_file", {"file_path": ".git/config", "old_string": "[core]",
                                                         "new_string": "[core]\n\thooksPath = x"})]),
                 when_last_tool_result_contains="pre-commit")
    fake_api.add(Turn(text="all-tried"), when_last_tool_result_contains="")
    (chat_project / ".git" / "hooks").mkdir(parents=True)
    (chat_project / ".git" / "config").write_text("[core]\n")
    (chat_project / ".amplifier" / "settings.yaml").write_text("updates: {auto_prompt: false}\n")
    trust_project_now(chat_project)
    chat = spawn_chat()
    chat.ready()
    chat.send_line("plant config")
    for shown_path in (".mcp.json", ".amplifier/settings.yaml", ".amplifier/mcp.json", ".git/hooks/pre-commit",
                       ".git/config"):
        chat.expect("Approval needed")
        shown = chat.expect("choose 1-")
        assert shown_path in shown
        assert "[2] Deny" in shown and "] Always allow" not in shown
        chat.child.send("n")
    chat.expect("all-tried")
    chat.prompt()
    assert chat.exit() == 0
    assert not (chat_project / ".mcp.json").exists() and not (chat_project / ".amplifier" / "mcp.json").exists()
    assert (chat_project / ".amplifier" / "settings.yaml").read_text() == "updates: {auto_prompt: false}\n"
    assert list((chat_project / ".git" / "hooks").iterdir()) == []
    assert (chat_project / ".git" / "config").read_text() == "[core]\n"
