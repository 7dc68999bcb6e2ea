"""Property: a line built at random from a small grammar of bash constructs is never allowed unless its parse is
all literal plain commands (the read-only judgement and an allow-everything rule alike)."""

from __future__ import annotations

from amplifier_module_hooks_approval.rules import Places, Rule, RuleBook
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amplifier_support.shell import read_line

_LITERAL = st.sampled_from(["ls", "cat", "a.txt", "-n", "'q s'", '"d q"', "grep", "x", "git", "log", "echo"])
# Never literal plain: an expansion, substitution, heredoc, function, compound, background job, eval/source ...
_NEVER_PLAIN = ["$x", "${x:-'a'}", "$(ls)", "`ls`", "<(ls)", "$'\\x41'", '$"l"', "$((1))", "{a,b}", "*", "a$()b",
                '"$HOME"', "&", "(", ")", ";;", "<<E\nx\nE\n", "<<<w", "f(){ ls; }"]
# Literal, or structure a plain line may have (a redirection, a literal `sh -c` script, a newline)
_MAYBE_PLAIN = ["x=1", "\\ls", "{", "}", "!", "if", "then", "fi", "eval", "source", "'it''s'", "> f", "1<>f", "2>&1",
                "< f", ">/dev/null", "sh -c", "\n", "~"]
_WORD = st.one_of(_LITERAL.map(lambda word: (word, False)), st.sampled_from(_MAYBE_PLAIN).map(lambda w: (w, False)),
                  st.sampled_from(_NEVER_PLAIN).map(lambda word: (word, True)))
_COMMAND = st.lists(_WORD, min_size=1, max_size=5).map(lambda words: (" ".join(w for w, _ in words),
                                                                       any(bad for _, bad in words)))
_JOINERS = st.sampled_from([" && ", " || ", "; ", " | ", "\n", " "])
_LINE = st.lists(st.tuples(_JOINERS, _COMMAND), min_size=1, max_size=4).map(
    lambda parts: ("".join((joiner if index else "") + command for index, (joiner, (command, _)) in enumerate(parts)),
                   any(bad for _, (_, bad) in parts)))
_BOOKS = [
    RuleBook(rules=[], ask_tools=["bash"], default_action="allow", shell_tools=["bash"], read_only_commands=[]),
    RuleBook(rules=[Rule(tool="bash")], ask_tools=["bash"], default_action="allow", shell_tools=["bash"],
             read_only_commands=[]),
]


def _all_literal_plain(line: str) -> bool:
    reading = read_line(line, strict=True)
    return reading.plain and all(step.command.argv is not None for step in reading.steps)


@settings(suppress_health_check=[HealthCheck.too_slow])  # examples and deadline: the profile (conftest.py)
@given(_LINE)
def test_never_allowed_unless_the_parse_is_all_literal_plain_commands(case: tuple[str, bool]) -> None:
    line, has_a_construct_that_is_never_plain = case
    places = Places("/nonexistent-project", "/nonexistent-project")
    for book in _BOOKS:
        verdict = book.judge("bash", {"command": line}, places)
        if verdict.action == "allow":
            assert not has_a_construct_that_is_never_plain, line
            assert _all_literal_plain(line), line
