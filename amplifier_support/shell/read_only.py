"""Commands known to only read, each with its options checked, and a label that says what a command does.

``judge(argv)`` is the read-only judgement: ``read_only`` only for a program on this list whose every option
is one that reads (``sed -n '1,5p'`` yes, ``sed -n 'w out'`` no; ``find`` without ``-delete``/``-fprint``;
``rg`` without ``--pre``; ``git log`` without ``--output``/``--ext-diff``). Redirections are not seen here: the
caller treats any output redirection as a write. ``written_paths(argv)`` names the files a known writing
command changes, for the protected-places check.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .wrappers import SHELLS, basename

__all__ = ["RUNS_CODE", "Judgement", "judge", "written_paths"]


@dataclass(frozen=True)
class Judgement:
    read_only: bool
    label: str  # what the command does, for the approval prompt ("reads files", "deletes files")
    risk: str  # "low" (reads only), "medium" (changes files here), "high" (anything else)


def _operands(args: list[str]) -> list[str]:
    found, after = [], False
    for arg in args:
        if arg == "--" and not after:
            after = True
        elif after or not arg.startswith("-") or arg == "-":
            found.append(arg)
    return found


def _options(args: list[str]) -> list[str]:
    found = []
    for arg in args:
        if arg == "--":
            break
        if arg.startswith("-") and arg != "-":
            found.append(arg)
    return found


def _without(*forbidden: str) -> Callable[[list[str]], bool]:
    """Every option allowed except these (``--opt`` also as ``--opt=value``; ``-x`` also inside ``-abx``)."""
    longs = tuple(option for option in forbidden if option.startswith("--"))
    shorts = "".join(option[1] for option in forbidden if len(option) == 2)
    singles = tuple(option for option in forbidden if not option.startswith("--") and len(option) > 2)

    def check(args: list[str]) -> bool:
        for option in _options(args):
            if option.startswith("--"):
                if option.partition("=")[0] in longs:
                    return False
            elif option in singles or any(option.startswith(single + "=") for single in singles):
                return False
            elif shorts and any(letter in shorts for letter in option[1:]):
                return False
        return True
    return check


def _any(args: list[str]) -> bool:
    return True


def _no_operands(args: list[str]) -> bool:
    return not _operands(args)


_SED_ADDRESS = r"(\d+(~\d+)?|\$|/[^/\\]*/)"
_SED_SCRIPT = re.compile(rf"^\s*({_SED_ADDRESS}(\s*,\s*{_SED_ADDRESS})?)?\s*[p=l]\s*$")


def _sed(args: list[str]) -> bool:
    """``sed -n`` with scripts that only print (``p``, ``=``, ``l`` after an address): no ``w``, ``e``, ``s``."""
    quiet, scripts, index, operands = False, [], 0, []
    while index < len(args):
        arg = args[index]
        if arg in ("-n", "--quiet", "--silent"):
            quiet = True
        elif arg in ("-e", "--expression"):
            if index + 1 >= len(args):
                return False
            scripts.append(args[index + 1])
            index += 1
        elif arg.startswith("--expression="):
            scripts.append(arg.partition("=")[2])
        elif arg in ("-E", "-r", "--regexp-extended", "-s", "--separate", "-u", "--unbuffered", "-z",
                     "--null-data", "--posix"):
            pass
        elif arg.startswith("-") and arg != "-" and set(arg[1:]) <= set("nErsuz"):
            quiet = quiet or "n" in arg
        elif arg.startswith("-") and arg != "-":
            return False
        else:
            operands.append(arg)
        index += 1
    if not scripts:
        if not operands:
            return False
        scripts.append(operands.pop(0))
    return quiet and all(_SED_SCRIPT.match(part) for script in scripts for part in re.split(r"[;\n]", script)
                         if part.strip())


def _sort(args: list[str]) -> bool:
    return _without("-o", "--output", "--compress-program")(args)


def _uniq(args: list[str]) -> bool:
    return len(_operands(args)) <= 1  # `uniq in out` writes out


def _find(args: list[str]) -> bool:
    forbidden = {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
    return not any(arg in forbidden for arg in args)


def _rg(args: list[str]) -> bool:
    return _without("--pre", "--pre-glob", "--hostname-bin", "--search-zip", "-z")(args)


def _date(args: list[str]) -> bool:
    return _without("-s", "--set")(args)


def _printf(args: list[str]) -> bool:
    return not args or args[0] != "-v"


_GIT_GLOBAL_VALUE = frozenset({"-C"})
_GIT_GLOBAL_FLAGS = frozenset({"--no-pager", "--no-optional-locks", "--literal-pathspecs", "--no-replace-objects"})
_GIT_NEVER = ("--output", "--ext-diff", "--textconv", "--exec", "--open-files-in-pager", "--upload-pack",
              "--receive-pack", "--config", "--config-env", "--run")
_GIT_BRANCH_FLAGS = frozenset({"--list", "-l", "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose",
                               "--show-current", "--no-color", "--color", "--merged", "--no-merged", "--contains",
                               "--no-contains", "--sort", "--format", "--points-at", "--column", "--no-column"})


def _git_options_ok(args: list[str]) -> bool:
    for option in _options(args):
        name = option.partition("=")[0]
        if name in _GIT_NEVER or option == "-O" or option.startswith("-O"):
            return False
    return True


def _git(args: list[str]) -> tuple[bool, str]:
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in _GIT_GLOBAL_VALUE:
            index += 2
            continue
        if arg in _GIT_GLOBAL_FLAGS:
            index += 1
            continue
        break
    if index >= len(args):
        return False, "runs git"
    sub, rest = args[index], args[index + 1:]
    if args[index].startswith("-"):
        return False, f"runs git with `{args[index]}`"
    if sub in ("status", "log", "show", "diff", "blame", "shortlog", "rev-parse", "ls-files", "describe",
               "rev-list", "cat-file", "ls-tree", "whatchanged", "reflog", "grep"):
        if sub == "reflog" and rest and rest[0] not in ("show",) and not rest[0].startswith("-"):
            return False, "changes the reflog"
        return _git_options_ok(rest), "shows git history and state"
    if sub == "branch":
        options = [option.partition("=")[0] for option in _options(rest)]
        listing = "--list" in options or "-l" in options
        return all(option in _GIT_BRANCH_FLAGS for option in options) and (listing or not _operands(rest)), \
            "lists git branches"
    if sub == "tag":
        options = _options(rest)
        return (not rest or "-l" in options or "--list" in options) and \
            all(option in ("-l", "--list", "-n") or option.startswith("--sort") for option in options), "lists tags"
    if sub == "remote":
        return all(arg in ("-v", "--verbose") for arg in rest), "lists remotes"
    if sub == "stash":
        return rest[:1] == ["list"], "lists stashes"
    if sub in ("push", "pull", "fetch", "clone", "ls-remote", "submodule"):
        return False, "uses the network (git)"
    return False, "changes the repository (git)"


# program -> (check of its arguments, what it does)
_READERS: dict[str, tuple[Callable[[list[str]], bool], str]] = {
    **{name: (_any, "reads files") for name in (
        "cat", "head", "tail", "wc", "nl", "stat", "file", "cut", "diff", "cmp", "comm", "md5sum", "sha1sum",
        "sha256sum", "sha512sum", "b2sum", "cksum", "readlink", "realpath", "du", "column", "tac", "rev", "fold",
        "od", "hexdump", "strings", "jq", "ls", "tr", "expand", "unexpand", "paste", "join", "numfmt", "look")},
    **{name: (_any, "searches files") for name in ("grep", "egrep", "fgrep")},
    "rg": (_rg, "searches files"),
    "find": (_find, "searches files"),
    "sed": (_sed, "prints lines of files"),
    "sort": (_sort, "reads files"),
    "uniq": (_uniq, "reads files"),
    "tree": (_without("-o"), "lists files"),
    **{name: (_any, "prints text") for name in ("echo", "true", "false", "seq", "yes")},
    "printf": (_printf, "prints text"),
    "sleep": (_any, "waits"),
    **{name: (_any, "looks up a command") for name in ("which", "type", "whereis")},
    **{name: (_any, "shows system information") for name in (
        "pwd", "whoami", "id", "uname", "df", "nproc", "free", "uptime", "groups", "arch", "tty", "locale")},
    "date": (_date, "shows the date"),
    "hostname": (_no_operands, "shows the host name"),
    "basename": (_any, "prints part of a path"),
    "dirname": (_any, "prints part of a path"),
    "test": (_any, "tests files or strings"),
    "cd": (_any, "changes the directory of the commands after it"),
}
# Safe whatever arguments come from input (xargs): no option of these runs or writes anything.
_ANY_ARGUMENTS = frozenset({"cat", "head", "tail", "wc", "ls", "stat", "file", "echo", "grep", "egrep", "fgrep",
                            "basename", "dirname", "du", "md5sum", "sha1sum", "sha256sum", "sha512sum", "realpath",
                            "readlink", "nl"})

_DELETERS = frozenset({"rm", "rmdir", "shred", "unlink", "srm", "wipe"})
_WRITERS = frozenset({"mv", "cp", "ln", "touch", "mkdir", "install", "tee", "truncate", "dd", "chmod", "chown",
                      "chgrp", "patch", "rsync", "tar", "unzip", "zip", "gzip", "gunzip", "bzip2", "xz", "split",
                      "csplit", "mkfifo", "mknod", "setfacl", "chattr", "sponge", "ed", "ex", "vi", "vim",
                      "nano", "emacs"})
_NETWORK = frozenset({"curl", "wget", "ssh", "scp", "sftp", "nc", "ncat", "netcat", "telnet", "ftp", "socat",
                      "aria2c", "http", "https"})
_PACKAGES = frozenset({"pip", "pip3", "npm", "npx", "yarn", "pnpm", "cargo", "go", "apt", "apt-get", "brew", "gem",
                       "poetry", "uv", "uvx", "conda", "dnf", "yum", "pacman", "apk", "bundle", "composer"})
_INTERPRETERS = frozenset({"python", "python3", "node", "deno", "bun", "ruby", "perl", "php", "lua", "Rscript",
                           "java", "awk", "gawk", "mawk", "osascript", "powershell", "pwsh", *SHELLS})
_BUILDERS = frozenset({"make", "cmake", "ninja", "pytest", "tox", "nox", "gradle", "mvn", "bazel", "just"})
_PRIVILEGE = frozenset({"sudo", "su", "doas", "pkexec", "run0", "runuser", "sudoedit"})
_SIGNALS = frozenset({"kill", "pkill", "killall"})
_CONTAINERS = frozenset({"docker", "podman", "kubectl", "helm", "nerdctl"})
RUNS_CODE = frozenset({"eval", "source", ".", "exec", "trap", "alias", "coproc", "builtin", "enable", "hash",
                       "mapfile", "readarray", "let", "declare", "typeset", "export", "shopt", "fc", "complete",
                       "compgen", "bind", "unalias", "local", "readonly"})
"""Builtins that run a string as shell code or change what a name runs: never judged by their words."""


def _labelled(name: str, args: list[str]) -> Judgement:
    """What a command that is not read-only does."""
    if name in _DELETERS:
        return Judgement(False, "deletes files", "high")
    if name == "sed" and any(arg.startswith("-i") or arg.startswith("--in-place") for arg in args):
        return Judgement(False, "edits files in place", "medium")
    if name in _WRITERS:
        return Judgement(False, "changes files", "medium")
    if name in _NETWORK:
        return Judgement(False, "uses the network", "high")
    if name in _PACKAGES:
        return Judgement(False, "installs or runs packages", "high")
    if name in _INTERPRETERS:
        return Judgement(False, "runs a program or script", "high")
    if name in _BUILDERS:
        return Judgement(False, "builds or tests the project (runs its code)", "high")
    if name in _PRIVILEGE:
        return Judgement(False, "runs with elevated privileges", "high")
    if name in _SIGNALS:
        return Judgement(False, "stops processes", "high")
    if name in _CONTAINERS:
        return Judgement(False, "controls containers", "high")
    if name in RUNS_CODE:
        return Judgement(False, "runs or changes shell code", "high")
    if name in _READERS:
        return Judgement(False, f"{_READERS[name][1]} with options that are not known to only read", "high")
    return Judgement(False, f"runs {name} (effects not known)", "high")


def judge(argv: list[str], input_args: bool = False) -> Judgement:
    """Is this command (literal words, wrappers already peeled) known to only read? With ``input_args`` more
    arguments come from input (``xargs``), so only programs that no argument can make write pass."""
    if not argv:
        return Judgement(False, "runs nothing", "low")
    name, args = argv[0], argv[1:]
    if "/" in name:
        return Judgement(False, f"runs {name} (effects not known)", "high")
    if input_args and name not in _ANY_ARGUMENTS:
        return _labelled(name, args)
    if name == "git":
        read_only, label = _git(args)
        return Judgement(True, label, "low") if read_only else Judgement(False, label, "high")
    entry = _READERS.get(name)
    if entry is not None and entry[0](args):
        return Judgement(True, entry[1], "low")
    return _labelled(basename(name), args)


def written_paths(argv: list[str]) -> list[str]:
    """The paths a known writing command changes (``cp a b`` -> ``b``; ``rm a b`` -> both; ``tee f``; ``dd of=f``;
    ``sed -i ... f``; ``git config`` -> ``.git/config``)."""
    if not argv:
        return []
    name, args = basename(argv[0]), argv[1:]
    operands = _operands(args)
    if name in ("cp", "ln", "install", "rsync"):
        for index, arg in enumerate(args):
            if arg in ("-t", "--target-directory") and index + 1 < len(args):
                return [args[index + 1]]
            if arg.startswith("--target-directory="):
                return [arg.partition("=")[2]]
        return operands[-1:]
    if name in _DELETERS or name in ("mv", "touch", "mkdir", "tee", "truncate", "chmod", "chown", "chgrp", "patch",
                                     "mkfifo", "mknod", "setfacl", "chattr", "sponge", "split", "unzip", "tar"):
        return operands
    if name == "dd":
        return [arg[3:] for arg in args if arg.startswith("of=")]
    if name == "sed" and any(arg.startswith("-i") or arg.startswith("--in-place") for arg in args):
        return operands[1:] if not any(arg in ("-e", "--expression") for arg in args) else operands
    if name == "git" and args[:1] == ["config"] and not any(arg in ("--get", "--get-all", "--list", "-l",
                                                                       "--get-regexp") for arg in args):
        return [".git/config"]
    return []
