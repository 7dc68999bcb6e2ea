"""What a cached git checkout could move to: the remote asked with the real `git ls-remote` (bounded by a
timeout, never prompting for credentials), compared with the commit the cache holds.

A branch (or the default branch) has an update when the remote's branch head differs from the cached commit;
a tag or commit is pinned, and what is reported is the newest version tag the remote has, when it is not the
one pinned."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass

from .git_cache import CacheEntry

LS_REMOTE_TIMEOUT = 20.0  # seconds; a remote that has not answered by then is reported as unreachable
_VERSION_TAG = re.compile(r"^v?\d+(?:\.\d+)*$")


class RemoteUnreachable(Exception):
    """The remote could not be asked (offline, unknown host, no access, timeout): one line saying why."""


@dataclass(frozen=True)
class UpdateCheck:
    status: str  # update-available | up-to-date | pinned | newer-tag | unreachable | missing-ref
    available: str  # the commit (12 chars) or tag the checkout could move to; "" when none
    detail: str  # one line for people


def remote_refs(url: str, timeout: float = LS_REMOTE_TIMEOUT) -> dict[str, str]:
    """ref name -> commit, as `git ls-remote` lists them (peeled tags `^{}` win over tag objects)."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": "",
           "GIT_SSH_COMMAND": os.environ.get("GIT_SSH_COMMAND", "ssh -o BatchMode=yes -o ConnectTimeout=10")}
    try:
        result = subprocess.run(["git", "ls-remote", "--symref", url], capture_output=True, text=True,
                                timeout=timeout, check=False, env=env, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise RemoteUnreachable("git is not installed or not on PATH") from None
    except subprocess.TimeoutExpired:
        raise RemoteUnreachable(f"no answer within {timeout:g} s") from None
    if result.returncode != 0:
        lines = [line.strip() for line in (result.stderr or result.stdout).splitlines() if line.strip()]
        raise RemoteUnreachable(lines[-1].removeprefix("fatal: ") if lines else f"exit status {result.returncode}")
    refs: dict[str, str] = {}
    for line in result.stdout.splitlines():
        parts = line.split("\t")
        if len(parts) != 2 or line.startswith("ref:"):
            continue
        commit, name = parts
        if name.endswith("^{}"):
            refs[name[:-3]] = commit
        else:
            refs.setdefault(name, commit)
    return refs


def check_entry(entry: CacheEntry, timeout: float = LS_REMOTE_TIMEOUT) -> UpdateCheck:
    try:
        refs = remote_refs(entry.url, timeout)
    except RemoteUnreachable as error:
        return UpdateCheck("unreachable", "", f"cannot ask {entry.url}: {error}")
    if entry.ref_kind in ("branch", "default"):
        name = "HEAD" if entry.ref_kind == "default" else f"refs/heads/{entry.ref}"
        remote = refs.get(name)
        if remote is None:
            return UpdateCheck("missing-ref", "", f"the remote has no branch '{entry.ref}' any more")
        if remote == entry.commit:
            return UpdateCheck("up-to-date", remote[:12], "up to date")
        return UpdateCheck("update-available", remote[:12],
                           f"{entry.commit[:12]} -> {remote[:12]} (amplifier module refresh)")
    newest = newest_version_tag(refs)
    if newest and newest != entry.ref and refs.get(f"refs/tags/{newest}") != entry.commit:
        return UpdateCheck("newer-tag", newest, f"pinned; the remote's newest tag is {newest} (change the @ref)")
    return UpdateCheck("pinned", "", f"pinned to {entry.ref_kind} {entry.ref}")


def newest_version_tag(refs: dict[str, str]) -> str | None:
    tags = [name.removeprefix("refs/tags/") for name in refs if name.startswith("refs/tags/")]
    versions = [tag for tag in tags if _VERSION_TAG.match(tag)]
    if not versions:
        return None
    return max(versions, key=lambda tag: [int(part) for part in tag.lstrip("v").split(".")])
