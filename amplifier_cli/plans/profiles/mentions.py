"""`@namespace:path` mentions in a bundle's instruction and context files, as upstream bundles write them
(`@foundation:context/shared/common-system-base.md`): each one that names a file of a bundle in this load is
put before the instruction, once, and mentions inside those files are followed up to MAX_DEPTH levels. A
mention that resolves to nothing stays plain text (it may mean something else, such as an e-mail address);
mentions inside fenced code blocks are ignored."""

from __future__ import annotations

import re
from pathlib import Path

from .includes import ReferenceNotFound, ReferenceResolver

MAX_DEPTH = 3
MENTION = re.compile(r"(?<![\w@/])@([A-Za-z0-9][\w.-]*):([^\s`'\"()<>\[\]]+)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)


def mentioned_files(texts: list[str], resolver: ReferenceResolver, known: set[Path]) -> list[tuple[str, Path]]:
    """(reference, file) for every resolvable mention in `texts` and in the files they mention, in order of
    first mention; files in `known` (already in the instruction) are skipped."""
    found: list[tuple[str, Path]] = []
    seen = set(known)
    pending = list(texts)
    for _depth in range(MAX_DEPTH):
        next_round: list[str] = []
        for text in pending:
            for ref in _mentions(text):
                path = _resolve(ref, resolver)
                if path is None or path.resolve() in seen:
                    continue
                seen.add(path.resolve())
                found.append((ref, path))
                try:
                    next_round.append(path.read_text(encoding="utf-8"))
                except (OSError, UnicodeDecodeError):
                    continue  # reported when the section is read
        pending = next_round
    return found


def _mentions(text: str) -> list[str]:
    without_code = FENCE.sub("", text)
    return [f"{ns}:{path.rstrip('.,;:!?')}" for ns, path in MENTION.findall(without_code)]


def _resolve(ref: str, resolver: ReferenceResolver) -> Path | None:
    if ref.split(":", 1)[0] not in resolver.namespaces:
        return None
    try:
        path = resolver.namespaced_path(ref)
    except ReferenceNotFound:
        return None
    return path if path.is_file() else None
