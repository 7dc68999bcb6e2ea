"""`amplifier run --record DIR` / `--replay DIR` / `--replay-tools`: the app's side of the kernel's cassettes
(amplifier_core/cassette.py): open the cassette once per run, put every session of the run (sub-agents
included) behind it right after its modules mount, and mask every secret any of those sessions knows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from amplifier_core.cassette import Cassette, CassetteError, ReplayMismatch, attach_cassette
from amplifier_support.secret_values import SecretValues

from ..errors import ConfigError

__all__ = ["ReplayMismatch", "attach_session", "open_cassette"]


class _Masking:
    """The secrets of every session attached so far (and of the environment): what the cassette must not hold."""

    def __init__(self) -> None:
        self.values = SecretValues.from_environment()

    def add(self, secrets: SecretValues | None) -> None:
        if secrets:
            self.values = SecretValues([*self.values.items(), *secrets.items()])

    def __call__(self, value: Any) -> Any:
        return self.values.mask(value)


def open_cassette(record: str | None, replay: str | None, replay_tools: bool) -> Cassette | None:
    """The run's cassette, or None without --record / --replay; a missing or unreadable cassette is a ConfigError."""
    if record is None and replay is None:
        return None
    masking = _Masking()
    try:
        if record is not None:
            return Cassette(Path(record), "record", mask=masking)
        return Cassette(Path(replay or ""), "replay", replay_tools=replay_tools, mask=masking)
    except CassetteError as error:
        raise ConfigError.single(str(error), fix="pass a directory written by `amplifier run --record DIR`") from None
    except OSError as error:
        raise ConfigError.single(f"cannot write the cassette: {error.strerror or error}",
                                 file=error.filename or record, fix="pass a writable directory to --record") from None


def attach_session(coordinator: Any, cassette: Cassette, secrets: SecretValues | None) -> None:
    """After mount: providers and tools of this session go through the cassette, masked with its secrets too."""
    mask = cassette.mask
    if isinstance(mask, _Masking):
        mask.add(secrets)
    attach_cassette(coordinator, cassette)
