"""Where hooks come from: upstream's user folder ``~/.amplifier/hooks/``, the user's ``<config dir>/hooks/``, the
project's ``.amplifier/hooks/``; in each, ``hooks.json`` plus one ``hooks.json`` per plugin folder below it
(``.amplifier/hooks/<plugin>/hooks.json``, upstream's layout). Every source adds hooks; none replaces another."""

from __future__ import annotations

import json
from pathlib import Path

from .hook_table import HookConfigError, HookTable, parse_hooks_document

HOOKS_FILE = "hooks.json"


def project_hooks_dir(project_dir: Path) -> Path:
    return project_dir / ".amplifier" / "hooks"


def upstream_user_hooks_dir(home: Path) -> Path:
    """Upstream Amplifier's user hooks folder (its user dir is ``~/.amplifier``)."""
    return home / ".amplifier" / "hooks"


def hooks_files(hooks_dir: Path) -> list[Path]:
    """``hooks.json`` of ``hooks_dir`` first, then those of its sub-folders in name order."""
    if not hooks_dir.is_dir():
        return []
    found = [hooks_dir / HOOKS_FILE] if (hooks_dir / HOOKS_FILE).is_file() else []
    found.extend(sorted(path for path in hooks_dir.glob(f"*/{HOOKS_FILE}") if path.is_file()))
    return found


def load_hooks_file(path: Path, default_timeout: float) -> HookTable:
    try:
        text = path.read_text(encoding="utf-8-sig")  # a BOM (Windows editors write one) is not an error
    except OSError as error:
        raise HookConfigError(f"{path}: cannot be read ({error.strerror or error}); fix its permissions or remove "
                              "it") from None
    try:
        document = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as error:
        raise HookConfigError(f"{path}: line {error.lineno} column {error.colno}: not valid JSON ({error.msg}); "
                              'fix the syntax (the file holds {"hooks": {...}})') from None
    return parse_hooks_document(document, str(path), default_timeout, plugin_root=str(path.parent))
