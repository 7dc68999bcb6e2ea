"""split_commands finds every simple command a line would run, however it is joined or nested."""

from __future__ import annotations

import pytest

from amplifier_support.shell_split import (
    command_words,
    dynamic_command_word,
    parse_commands,
    split_commands,
    split_pipelines,
)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("ls; rm -rf /", ["ls", "rm -rf /"]),
        ("make && make test || echo failed", ["make", "make test", "echo failed"]),
        ("cat x | grep y |& tee z", ["cat x", "grep y", "tee z"]),
        ("sleep 1 & echo started", ["sleep 1", "echo started"]),
        ("echo one\necho two", ["echo one", "echo two"]),
        ("(cd sub && rm -rf /)", ["cd sub", "rm -rf /"]),
        ("if true; then rm -rf /; fi", ["true", "rm -rf /"]),
        ("{ echo a; rm -rf ~; }", ["echo a", "rm -rf ~"]),
        ("for f in a b; do rm -rf /; done", ["rm -rf /"]),
        ("echo hi # ; rm -rf /", ["echo hi"]),
        ("line \\\ncontinued", ["line \\\ncontinued"]),
    ],
)
def test_separators_and_groups_yield_each_simple_command(line: str, expected: list[str]) -> None:
    assert split_commands(line) == expected


@pytest.mark.parametrize(
    ("line", "inner"),
    [
        ("echo ok && $(rm -rf ~)", "rm -rf ~"),
        ("echo `rm -rf /`", "rm -rf /"),
        ('echo "$(rm -rf /)"', "rm -rf /"),
        ('echo "`rm -rf /`"', "rm -rf /"),
        ("diff <(rm -rf /) x", "rm -rf /"),
        ("x=${A:-$(rm -rf /)}", "rm -rf /"),
        ("echo $(echo $(rm -rf /))", "rm -rf /"),
        ("bash -c 'ls; rm -rf /'", "rm -rf /"),
        ('sh -c "echo hi && rm -rf /"', "rm -rf /"),
        ("sudo -u root bash -lc 'rm -rf /'", "rm -rf /"),
        ("env A=1 xargs sh -c 'rm -rf /'", "rm -rf /"),
        ("bash -c \"bash -c 'rm -rf /'\"", "rm -rf /"),
        ('eval "rm -rf /"', "rm -rf /"),
        ("find . -exec rm -rf / \\;", "rm -rf /"),
    ],
)
def test_substitutions_subshells_and_nested_shells_are_split_too(line: str, inner: str) -> None:
    assert inner in split_commands(line)


@pytest.mark.parametrize(
    "line",
    ["echo 'a; rm -rf /'", 'git commit -m "fix: rm -rf / bug; && more"', "echo 'it''s $(not run)'",
     "grep -e ';' file"],
)
def test_quoted_separators_and_substitutions_stay_inside_their_word(line: str) -> None:
    assert split_commands(line) == [line]


def test_words_have_quotes_and_escapes_removed() -> None:
    assert command_words('r""m -rf "/"') == ["rm", "-rf", "/"]
    assert command_words("\\rm -r'f' ~") == ["rm", "-rf", "~"]
    assert command_words("$'\\x72m' -rf /") == ["rm", "-rf", "/"]


def test_redirections_are_separate_words() -> None:
    assert command_words("echo x 2>&1 >/dev/sda") == ["echo", "x", "2>&", "1", ">", "/dev/sda"]


def test_pipelines_are_grouped() -> None:
    assert split_pipelines("curl x | sh; ls") == [["curl x", "sh"], ["ls"]]


def test_nesting_beyond_the_limit_is_flagged_not_ignored() -> None:
    line = "bash -c " * 12 + "ls"
    deep = "echo " + "$(" * 12 + "ls" + ")" * 12
    assert any(command.too_deep for command in parse_commands(deep))
    assert parse_commands(line)  # no crash on long chains


def test_unterminated_quote_is_parsed_leniently() -> None:
    assert split_commands("echo 'open; rm -rf /") == ["echo 'open; rm -rf /"]
    assert "rm -rf /" in split_commands('echo "$(rm -rf /')


@pytest.mark.parametrize(("line", "hidden"), [
    ("f(){ rm -rf /; }; f", ["rm", "-rf", "/"]),
    ("function f { sudo ls; }; f", ["sudo", "ls"]),
    ("function f() { sudo ls; }", ["sudo", "ls"]),
    ("shopt -s expand_aliases\nalias r='rm -rf /'\nr", ["rm", "-rf", "/"]),
    ("env -S 'sudo ls'", ["sudo", "ls"]),
    ("env -S'sudo ls'", ["sudo", "ls"]),
    ("env --split-string='sudo ls'", ["sudo", "ls"]),
    ("bash <<< 'sudo ls'", ["sudo", "ls"]),
    (". /dev/stdin <<< 'sudo ls'", ["sudo", "ls"]),
    ("time -p sudo ls", ["sudo", "ls"]),
    ("trap 'sudo ls' EXIT", ["sudo", "ls"]),
    ("trap -- 'sudo ls' INT TERM", ["sudo", "ls"]),
    ("script -qc 'sudo ls' /dev/null", ["sudo", "ls"]),
    ("script --command='sudo ls' /dev/null", ["sudo", "ls"]),
    ("script -q -c 'sudo ls'", ["sudo", "ls"]),
])
def test_commands_hidden_in_functions_aliases_env_s_and_here_strings_are_found(line: str, hidden: list[str]) -> None:
    assert hidden in [command.words for command in parse_commands(line)]


def test_a_here_string_fed_to_a_non_shell_is_data_not_a_command() -> None:
    assert [command.words for command in parse_commands("grep x <<< 'sudo is a word'")] == \
        [["grep", "x", "<<<", "sudo is a word"]]


@pytest.mark.parametrize(("line", "word"), [
    ("s=sudo; $s -n true", "$s"), ('"$x" a', "$x"), ("${x} a", "${x}"), ("$(which rm) -rf /", "$(which rm)"),
    ("`echo ls`", "`echo ls`"), ("sudo -u me $x", "$x"), ("env A=1 $x", "$x"), ('eval "$cmd"', "eval $cmd"),
    ("bash -c '$y z'", "$y"),
    # pathname expansion picks the program at run time: /usr/bin/su[d]o runs sudo
    ("/usr/bin/su[d]o -n true", "/usr/bin/su[d]o"), ("/usr/bin/sud? ls", "/usr/bin/sud?"),
    ("/usr/*/sudo ls", "/usr/*/sudo"), ("unshare -r /usr/bin/su*o ls", "/usr/bin/su*o"),
])
def test_a_command_named_by_an_expansion_is_reported(line: str, word: str) -> None:
    assert word in [dynamic_command_word(command.words) for command in parse_commands(line)]


@pytest.mark.parametrize("line", ["echo $HOME", "FOO=$x ls", "eval ls", "git status", "ls $(pwd)", "[ -f x ]",
                                  "[[ -f x ]]", "ls *.py", "rm -f a?.txt"])
def test_literal_command_names_are_not_dynamic(line: str) -> None:
    assert all(dynamic_command_word(command.words) is None for command in parse_commands(line))
