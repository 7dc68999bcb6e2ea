"""The suite's bytecode pre-pass (tests/support/testkit/bytecode.py): what it writes ahead of collection is what
pytest itself loads, a changed source is never served stale, and pytest-xdist workers split the files."""

from __future__ import annotations

from pathlib import Path

import pytest
from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc, get_cache_dir
from testkit import bytecode


def _load(module: Path) -> dict[str, object]:
    code = _read_pyc(module, get_cache_dir(module) / (module.stem + PYC_TAIL))  # pytest's own reader
    assert code is not None, "pytest would not use the written file"
    namespace: dict[str, object] = {}
    exec(code, namespace)
    return namespace


def test_a_test_module_written_ahead_loads_in_pytest_with_rewritten_asserts(tmp_path: Path,
                                                                           pytestconfig: pytest.Config) -> None:
    rewrite = bytecode._assert_rewriter(pytestconfig)
    assert rewrite is not None
    module = tmp_path / "test_sample.py"
    module.write_text("def test_sum():\n    total = 1 + 1\n    assert total == 3\n")
    rewrite(module)
    with pytest.raises(AssertionError, match=r"assert 2 == 3"):  # pytest's explanation: the asserts were rewritten
        _load(module)["test_sum"]()  # type: ignore[operator]

    module.write_text("def test_sum():\n    total = 2 + 1\n    assert total == 3\n")
    rewrite(module)  # the cached file was made from other source: written again
    _load(module)["test_sum"]()  # type: ignore[operator]


def test_xdist_workers_take_every_nth_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    assert bytecode._worker_slot() == (1, 2)
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT")
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    assert bytecode._worker_slot() == (0, 1)  # a plain run does all of it
