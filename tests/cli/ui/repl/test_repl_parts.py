"""The REPL's pieces without a terminal: mentions, approvals and saved rules, export, completion, warm-up."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from prompt_toolkit.application import create_app_session
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from amplifier_cli.config.approval_rules import save_rule, saved_rules
from amplifier_cli.config.paths import AmplifierPaths
from amplifier_cli.config.settings import load_settings
from amplifier_cli.ui.repl.approval import ReplApproval, choose_option
from amplifier_cli.ui.repl.export import save_transcript
from amplifier_cli.ui.repl.input import ReplCompleter, history_path, open_history
from amplifier_cli.ui.repl.mentions import expand_mentions
from amplifier_cli.ui.repl.warmup import provider_sdks
from amplifier_core.approval import ApprovalTimeoutError


def test_a_mentioned_file_is_attached_once_after_the_prompt(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha")
    expanded = expand_mentions("see @a.txt and again @a.txt, thanks", tmp_path)
    assert expanded.problems == []
    assert expanded.prompt.startswith("see @a.txt and again @a.txt, thanks\n\n")
    assert expanded.prompt.count('<file path="a.txt">\nalpha\n</file>') == 1


def test_a_missing_path_is_reported_but_a_handle_or_an_email_is_left_alone(tmp_path: Path) -> None:
    expanded = expand_mentions("ask @alice, mail bob@example.com, read @docs/x.md", tmp_path)
    assert len(expanded.problems) == 1 and "@docs/x.md: no such file" in expanded.problems[0]
    assert str(tmp_path) in expanded.problems[0]


def test_directories_and_binary_files_are_refused_with_a_reason(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "blob.bin").write_bytes(b"\xff\xfe\x00")
    problems = expand_mentions("@src @blob.bin", tmp_path).problems
    assert "is a directory" in problems[0] and "not UTF-8 text" in problems[1]


def test_an_image_is_attached_as_an_image_block_judged_by_its_bytes(tmp_path: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n" + bytes(24)
    (tmp_path / "pic.png").write_bytes(png)
    (tmp_path / "noext").write_bytes(b"GIF89a" + bytes(10))  # no image name, but GIF bytes
    (tmp_path / "fake.jpg").write_text("not a picture")  # an image name, but text bytes
    expanded = expand_mentions("compare @pic.png with @noext", tmp_path)
    assert expanded.problems == [] and expanded.prompt == "compare @pic.png with @noext"
    assert [image["source"]["media_type"] for image in expanded.images] == ["image/png", "image/gif"]
    assert expanded.images[0]["source"]["data"] == base64.b64encode(png).decode()
    problems = expand_mentions("what is @fake.jpg", tmp_path).problems
    assert problems == ["@fake.jpg is not a PNG, JPEG, GIF or WebP image (judged by its bytes, not its name); "
                        "convert it to PNG, JPEG, GIF or WebP"]


def test_an_image_over_the_limit_is_refused_with_the_limit(tmp_path: Path) -> None:
    from amplifier_cli.sessions.prompt_images import MAX_IMAGE_BYTES

    (tmp_path / "huge.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(MAX_IMAGE_BYTES))
    [problem] = expand_mentions("@huge.png", tmp_path).problems
    assert f"over the {MAX_IMAGE_BYTES:,}-byte limit" in problem and "scale it down" in problem


def _paths(project: Path) -> AmplifierPaths:
    return AmplifierPaths.discover(cwd=project)


def test_always_allow_rules_are_saved_in_the_users_config_dir_per_project_and_read_after_settings_rules(
        project_dir: Path) -> None:
    from testkit.trust import trust_project_now

    paths = _paths(project_dir)
    (project_dir / ".amplifier" / "settings.yaml").write_text(
        "approval:\n  rules:\n    - {tool: bash, command: make}\n")
    trust_project_now(project_dir)  # the project's own rules apply only once trusted
    rule = {"tool": "bash", "command": "touch a", "action": "allow"}
    written = save_rule(paths, rule)
    save_rule(paths, rule)
    assert written == paths.config_dir / "project-approvals.yaml"
    assert yaml.safe_load(written.read_text()) == {str(project_dir.resolve()): {"rules": [rule]}}
    assert not (project_dir / ".amplifier" / "settings.local.yaml").exists()  # the project is left as trusted
    assert saved_rules(load_settings(_paths(project_dir))) == [{"tool": "bash", "command": "make"}, rule]
    other = project_dir.parent / "other"
    (other / ".amplifier").mkdir(parents=True)
    assert saved_rules(load_settings(_paths(other))) == []  # remembered for that project only


class _Coordinator:
    def __init__(self, rule: dict | None) -> None:
        self.rule = rule
        self.asked: list[str] = []

    def get_capability(self, name: str):
        def remember(prompt: str):
            self.asked.append(prompt)
            return self.rule

        return remember if name == "approval.remember" else None


async def test_always_allow_asks_the_hook_for_the_rule_and_saves_it(project_dir: Path) -> None:
    approval = ReplApproval(_paths(project_dir))
    approval.coordinator = _Coordinator({"tool": "bash", "command": "ls x", "action": "allow"})

    async def pick_always(options):
        return "Always allow"

    approval.choose = pick_always
    assert await approval.request_approval("Tool: bash", ["Allow once", "Always allow", "Deny"], 10, "deny") \
        == "Always allow"
    assert approval.coordinator.asked == ["Tool: bash"]
    saved = yaml.safe_load((_paths(project_dir).config_dir / "project-approvals.yaml").read_text())
    assert saved[str(project_dir.resolve())]["rules"] == [{"tool": "bash", "command": "ls x", "action": "allow"}]


async def test_allow_once_saves_nothing(project_dir: Path) -> None:
    approval = ReplApproval(_paths(project_dir))
    approval.coordinator = _Coordinator({"tool": "bash"})

    async def pick_once(options):
        return "Allow once"

    approval.choose = pick_once
    assert await approval.request_approval("p", ["Allow once", "Always allow", "Deny"], 10, "deny") == "Allow once"
    assert approval.coordinator.asked == []
    assert not (project_dir / ".amplifier" / "settings.local.yaml").exists()


async def test_no_answer_in_time_raises_approval_timeout_and_closes_the_question(project_dir: Path) -> None:
    approval = ReplApproval(_paths(project_dir))
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        with pytest.raises(ApprovalTimeoutError):
            await approval.request_approval("p", ["Allow once", "Always allow", "Deny"], 0.05, "deny")
        pipe.send_text("1")  # the next question works: the timed-out one let go of the terminal
        assert await choose_option(["Allow once", "Always allow", "Deny"]) == "Allow once"


@pytest.mark.parametrize(("keys", "expected"), [("2", "Always allow"), ("3", "Deny"), ("y", "Allow once"),
                                                ("n", "Deny"), ("x\r\x03", "Deny")])
async def test_one_key_picks_an_option_and_ctrl_c_denies(keys: str, expected: str) -> None:
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text(keys)
        assert await choose_option(["Allow once", "Always allow", "Deny"]) == expected


def test_save_writes_markdown_or_json_by_file_name(tmp_path: Path) -> None:
    call = {"type": "tool_call", "id": "c1", "name": "bash", "input": {"command": "ls"}}
    messages = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "text", "text": "calling"}, call],
         "tool_calls": [{"id": "c1", "tool": "bash", "arguments": {"command": "ls"}}]},
        {"role": "tool", "tool_call_id": "c1", "name": "bash", "content": "a.txt"},
    ]
    roots = [tmp_path]
    header = {"session_id": "abc", "model": "m"}
    markdown = save_transcript(tmp_path / "s.md", messages, header, roots=roots).read_text()
    assert "# Session abc" in markdown and "## You\n\nhi" in markdown and "### Tool call: bash" in markdown
    assert "### Result of bash" in markdown
    data = json.loads(save_transcript(tmp_path / "s.json", messages, {"session_id": "abc"}, roots=roots).read_text())
    assert data["session_id"] == "abc" and data["messages"] == messages


def test_slash_commands_complete_with_descriptions_and_at_paths_complete_files(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("")
    (tmp_path / "src").mkdir()
    completer = ReplCompleter([("/status", "show status"), ("/save", "save")], tmp_path)

    def complete(text: str) -> list[str]:
        return [item.text for item in completer.get_completions(Document(text), CompleteEvent())]

    assert complete("/s") == ["/status", "/save"]
    assert complete("look at @no") == ["notes.txt"]
    assert complete("look at @s") == ["src/"]
    assert complete("plain words") == []


def test_history_is_one_file_per_project_in_the_data_dir(tmp_path: Path) -> None:
    first = history_path(tmp_path / "data", Path("/p/one"))
    assert first.parent == tmp_path / "data" / "history"
    assert first != history_path(tmp_path / "data", Path("/p/two"))
    assert first == history_path(tmp_path / "data", Path("/p/one"))


def test_the_history_file_is_private_and_holds_no_known_secret(tmp_path: Path, monkeypatch) -> None:
    """What the user types is kept across sessions; a key pasted into the prompt must not be."""
    import stat

    monkeypatch.setenv("DEPLOY_TOKEN", "deploy-token-value-77")
    path = history_path(tmp_path / "data", Path("/p/one"))
    history, warning = open_history(path)
    assert warning is None
    history.store_string("use deploy-token-value-77 for the deploy")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    text = path.read_text("utf-8")
    assert "deploy-token-value-77" not in text and "use [REDACTED:DEPLOY_TOKEN] for the deploy" in text
    path.chmod(0o644)  # a file from an older version
    open_history(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_saved_conversation_is_private(tmp_path: Path) -> None:
    import stat

    written = save_transcript(tmp_path / "notes" / "chat.md", [{"role": "user", "content": "hi"}],
                              {"session_id": "s1"}, roots=[tmp_path])
    assert stat.S_IMODE(written.stat().st_mode) == 0o600 and "hi" in written.read_text()


def test_saving_never_writes_through_a_symlink_at_the_given_name(tmp_path: Path) -> None:
    """A command run for the model can leave `chat.md -> ~/.bashrc` in the project before the user types
    `/save chat.md`."""
    victim = tmp_path / "bashrc"
    victim.write_text("original\n")
    (tmp_path / "chat.md").symlink_to(victim)
    with pytest.raises(OSError) as raised:
        save_transcript(tmp_path / "chat.md", [{"role": "user", "content": "hi"}], {"session_id": "s1"},
                        roots=[tmp_path])
    assert "symbolic link" in raised.value.strerror
    assert victim.read_text() == "original\n"


def test_warm_up_imports_the_sdk_of_each_bundled_provider_in_the_plan() -> None:
    plan = {"providers": [{"module": "provider-anthropic"}, {"module": "provider-openai"},
                          {"module": "provider-scripted"}, {"module": "provider-anthropic", "instance_id": "b"}]}
    assert provider_sdks(plan) == ["anthropic", "openai"]


def test_the_repl_modules_import_neither_the_kernel_nor_a_provider_sdk_before_the_prompt() -> None:
    code = ("import sys, amplifier_cli.ui.repl, amplifier_cli.ui.repl.app, amplifier_cli.ui.repl.input; "
            "heavy = [m for m in ('amplifier_core', 'anthropic', 'openai', 'pydantic') if m in sys.modules]; "
            "print(heavy)")
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert output.strip() == "[]"


def test_hook_messages_show_level_message_and_source() -> None:
    import io

    from prompt_toolkit.output.plain_text import PlainTextOutput

    from amplifier_cli.ui.repl.display import ReplDisplay

    written = io.StringIO()
    with create_app_session(output=PlainTextOutput(written)):
        ReplDisplay().show_message("3 lint issues", level="warning", source="hook:lint")
    assert written.getvalue().strip() == "⚠ WARNING 3 lint issues  (hook:lint)"


async def test_ctrl_c_between_turns_when_no_prompt_is_up_does_not_end_the_chat(project_dir: Path, monkeypatch) -> None:
    import asyncio
    import io
    import os
    import signal

    from amplifier_cli.sessions.request import SessionRequest
    from amplifier_cli.ui.repl import app as repl_app

    inputs = iter(["!true", "second"])
    handled: list[str] = []

    class _Prompt:
        async def prompt_async(self, *args, **kwargs) -> str:
            try:
                return next(inputs)
            except StopIteration:
                raise EOFError from None

    monkeypatch.setattr(repl_app, "build_prompt_session", lambda history, completer, **_: _Prompt())
    repl = repl_app.Repl(SessionRequest(), "ask", io.StringIO())
    monkeypatch.setattr(repl, "start_opening", lambda: None)
    original = repl.handle

    async def handle(text: str) -> bool:
        if text.startswith("!"):
            await original(text)  # runs a shell command, which takes SIGINT over meanwhile
        os.kill(os.getpid(), signal.SIGINT)  # a Ctrl-C after it, before the next prompt is up
        await asyncio.sleep(0)  # let the loop run its signal callbacks
        handled.append(text)
        return True

    monkeypatch.setattr(repl, "handle", handle)
    assert await repl.run() == 0
    assert handled == ["!true", "second"]


def test_a_quoted_mention_attaches_a_file_whose_name_has_spaces(tmp_path: Path) -> None:
    (tmp_path / "my notes.txt").write_text("spaced")
    expanded = expand_mentions('read @"my notes.txt" please', tmp_path)
    assert expanded.problems == [] and expanded.attached == [(tmp_path / "my notes.txt").resolve()]
    assert '<file path="my notes.txt">\nspaced\n</file>' in expanded.prompt
    missing = expand_mentions("read @'no such file.txt'", tmp_path)
    assert len(missing.problems) == 1 and "@no such file.txt: no such file" in missing.problems[0]
