"""Bytecode for the code a test run executes, written before collection and shared by the run's processes.

With PYTHONDONTWRITEBYTECODE set (as in this machine's shells and many CI images) nothing is cached: each
pytest-xdist worker rewrote the asserts of every test module again (collection of a fresh checkout took 20 s
instead of 10), and every `amplifier` or `pytest` process a test starts compiled the app again. Here the
workers split the work (worker N of M takes every M-th file) and write what the processes read anyway:
- the app, kernel, support package, bundled modules and test servers as ordinary .pyc files (compileall,
  up-to-date files left alone), as `pip install` does for an installed package;
- the test modules and conftests (and the kernel's behavioural suite, which `module validate --behavioral`
  runs) as pytest's own rewritten-assert .pyc files, which pytest reads even when it may not write them.
A file the other worker has not reached yet is rewritten by pytest as usual: nothing waits for anything."""

from __future__ import annotations

import compileall
import fnmatch
import importlib.util
import os
import re
from collections.abc import Callable, Iterator
from contextlib import suppress
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
# compiled for the processes tests start: the app and what it loads, and the test servers run as `python -m`
STARTED_CODE = ("amplifier_cli", "amplifier_core", "amplifier_support", "modules", "tests/support")
NOT_STARTED = re.compile(r"[/\\]modules[/\\][^/\\]+[/\\]tests[/\\]")  # a module's own tests: pytest imports them
BEHAVIOURAL_SUITE = "amplifier_core/validation/behavioral"  # test modules outside testpaths


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> None:
    if session.config.pluginmanager.has_plugin("dsession"):
        return  # the pytest-xdist controller: its workers collect
    index, count = _worker_slot()
    rewrite = _assert_rewriter(session.config)
    files = sorted({*_started_code(), *_test_modules(session.config)})
    for path in files[index::count]:
        if _is_started_code(path):
            compileall.compile_file(str(path), quiet=2)
        if rewrite is not None and _is_test_module(path, session.config):
            rewrite(path)


def _worker_slot() -> tuple[int, int]:
    """(this worker's number, how many workers): (0, 1) without pytest-xdist."""
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    return (int(worker[2:]) if worker[2:].isdigit() else 0) % max(count, 1), max(count, 1)


def _started_code() -> Iterator[Path]:
    for root in STARTED_CODE:
        for path in (REPO / root).rglob("*.py"):
            if not NOT_STARTED.search(str(path)) and "__pycache__" not in path.parts:
                yield path


def _is_started_code(path: Path) -> bool:
    return any(path.is_relative_to(REPO / root) for root in STARTED_CODE) and not NOT_STARTED.search(str(path))


def _test_modules(config: pytest.Config) -> Iterator[Path]:
    """The files collection imports with rewritten asserts: the test modules and conftests of the paths this run
    was given (testpaths by default), and the behavioural suite."""
    skip = [*config.getini("norecursedirs"), "__pycache__"]
    for argument in [*config.args, str(config.rootpath / BEHAVIOURAL_SUITE)]:
        root = Path(config.invocation_params.dir, argument.split("::")[0])
        if root.is_file() and _is_test_module(root, config):
            yield root
        for folder, dirs, names in os.walk(root):
            dirs[:] = sorted(name for name in dirs if not any(fnmatch.fnmatch(name, pattern) for pattern in skip))
            for name in names:
                path = Path(folder) / name
                if _is_test_module(path, config):
                    yield path


def _is_test_module(path: Path, config: pytest.Config) -> bool:
    return path.name == "conftest.py" or any(fnmatch.fnmatch(path.name, pattern)
                                             for pattern in config.getini("python_files"))


def _assert_rewriter(config: pytest.Config) -> Callable[[Path], None] | None:
    """A function writing pytest's rewritten .pyc of a test module, or None where pytest does not rewrite asserts
    (``--assert=plain``) or its private helpers moved (then pytest just rewrites while collecting, as always)."""
    if config.getoption("assertmode") != "rewrite":
        return None
    try:
        from _pytest.assertion.rewrite import PYC_TAIL, _rewrite_test, _write_pyc_fp, get_cache_dir
    except ImportError:
        return None

    def rewrite(path: Path) -> None:
        pyc = get_cache_dir(path) / (path.name[:-3] + PYC_TAIL)
        try:
            source_hash = importlib.util.source_hash(path.read_bytes())[:8]
            with open(pyc, "rb") as cached:
                header = cached.read(16)  # magic number, flags, then the hash of the source it was made from
            if header[:4] == importlib.util.MAGIC_NUMBER and header[8:] == source_hash:
                return
        except OSError:
            pass
        partial = pyc.with_name(f"{pyc.name}.{os.getpid()}")
        try:
            _hash, code = _rewrite_test(path, config)
            pyc.parent.mkdir(exist_ok=True)
            with open(partial, "wb") as out:
                _write_pyc_fp(out, _hash, code)
            os.replace(partial, pyc)  # atomic: the other worker reads a whole file or none
        except (OSError, SyntaxError):  # pytest rewrites it while collecting, and reports a broken file there
            with suppress(OSError):
                os.unlink(partial)

    return rewrite
