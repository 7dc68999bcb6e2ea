"""Output read by another program (`| cat`, `2> log`): whole values and whole lines, not a guessed 80 columns."""

from __future__ import annotations

NO_WIDTH = {"COLUMNS": ""}  # as in a pipe from a shell: rich would otherwise assume 80 columns
LONG_PROMPT = "please write a greeting file and then describe in some detail what the file holds and why it exists"


def test_module_list_piped_prints_whole_module_ids(e2e) -> None:
    result = e2e.run("module", "list", env=NO_WIDTH)
    assert result.returncode == 0, result.stderr
    for module_id in ("provider-anthropic", "hooks-streaming-ui", "context-persistent"):
        assert f" {module_id} " in result.stdout
    assert "…" not in result.stdout


def test_session_list_piped_prints_the_whole_first_prompt(e2e) -> None:
    assert e2e.run("run", "-P", "demo", LONG_PROMPT).returncode == 0
    result = e2e.run("session", "list", env=NO_WIDTH)
    assert result.returncode == 0, result.stderr
    assert LONG_PROMPT in result.stdout and "…" not in result.stdout


def test_long_lines_on_a_redirected_stderr_stay_whole(e2e) -> None:
    long_name = "a-file-with-a-rather-long-name-so-that-the-tool-line-is-well-over-eighty-columns.txt"
    e2e.profile("long-lines", provider="scripted", script=[
        {"tool_calls": [{"name": "write_file", "arguments": {"file_path": long_name, "content": "hi\n"}}]},
        "done"])
    result = e2e.run("run", "-P", "long-lines", "go", env=NO_WIDTH)
    assert result.returncode == 0, result.stderr
    [result_line] = [line for line in result.stderr.splitlines() if "write_file: Created" in line]
    assert long_name in result_line and len(result_line) > 80
