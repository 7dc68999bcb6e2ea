"""keys.env: what is saved reads back the same, whatever characters a key holds, however often the file is
rewritten (each save rewrites every key)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from amplifier_cli.config.key_store import key_store_path, read_key_store, save_key
from amplifier_cli.config.paths import AmplifierPaths


def test_keys_with_quotes_and_backslashes_read_back_unchanged_after_many_saves(tmp_path: Path) -> None:
    paths = AmplifierPaths.discover(cwd=tmp_path)
    odd = 'sk-a\\b"c\\\\d'
    save_key(paths, "ODD_KEY", odd)
    for number in range(3):  # every save rewrites the whole file
        save_key(paths, f"OTHER_{number}", "plain")
    assert read_key_store(paths)["ODD_KEY"] == odd
    assert stat.S_IMODE(os.stat(key_store_path(paths)).st_mode) == 0o600


def test_hand_written_lines_are_read_as_upstreams_keys_env(tmp_path: Path) -> None:
    paths = AmplifierPaths.discover(cwd=tmp_path)
    path = key_store_path(paths)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# comment\nexport A_KEY='single'\nB_KEY=bare\nC_KEY=\"dou\\\"ble\"\n", encoding="utf-8")
    assert read_key_store(paths) == {"A_KEY": "single", "B_KEY": "bare", "C_KEY": 'dou"ble'}
