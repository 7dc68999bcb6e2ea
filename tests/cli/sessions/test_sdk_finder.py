"""The SDK finder gives the same modules as a standard import, only with less overhead per module, and leaves
anything unusual (extension modules, namespace portions, hash-based or stale pycs, odd settings) to the
standard machinery."""

from __future__ import annotations

import compileall
import contextlib
import importlib
import importlib.resources
import inspect
import json
import os
import py_compile
import subprocess
import sys
import uuid
import zipfile
from collections.abc import Iterator
from importlib.machinery import EXTENSION_SUFFIXES, SourceFileLoader
from importlib.util import cache_from_source
from pathlib import Path
from types import ModuleType

import pytest

from amplifier_cli.sessions.sdk_finder import SDKFinder, SDKSourceLoader


class ScratchPackage:
    """A top-level package with a unique name in a directory on sys.path."""

    def __init__(self, root: Path, name: str) -> None:
        self.root = root
        self.name = name

    def write(self, relative: str, text: str) -> Path:
        path = self.root / self.name / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def compile(self) -> None:
        """Timestamp pycs for every source (explicitly: SOURCE_DATE_EPOCH would make compileall hash them)."""
        assert compileall.compile_dir(self.root / self.name, quiet=1,
                                      invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP)

    def forget(self) -> None:
        for module_name in [name for name in sys.modules if name == self.name or name.startswith(self.name + ".")]:
            del sys.modules[module_name]
        importlib.invalidate_caches()

    def module(self, relative: str) -> ModuleType:
        return importlib.import_module(f"{self.name}.{relative}" if relative else self.name)

    @property
    def directory(self) -> str:
        return str(self.root / self.name)


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ScratchPackage]:
    package = ScratchPackage(tmp_path, f"sdkfinder_{uuid.uuid4().hex[:10]}")
    package.write("__init__.py", "VALUE = 'top'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield package
    package.forget()


@contextlib.contextmanager
def finder_installed(*packages: str) -> Iterator[SDKFinder]:
    finder = SDKFinder(packages)
    sys.meta_path.insert(0, finder)
    try:
        yield finder
    finally:
        sys.meta_path.remove(finder)


def describe(module: ModuleType) -> dict[str, object]:
    spec = module.__spec__
    return {
        "__name__": module.__name__, "__file__": module.__file__, "__cached__": module.__cached__,
        "__package__": module.__package__, "__path__": list(getattr(module, "__path__", [])) or None,
        "origin": spec.origin, "cached": spec.cached, "has_location": spec.has_location, "parent": spec.parent,
        "submodule_search_locations": spec.submodule_search_locations,
        "loader is a SourceFileLoader": isinstance(module.__loader__, SourceFileLoader),
        "loader path": module.__loader__.path, "spec loader is module loader": spec.loader is module.__loader__,
    }


def write_sample(package: ScratchPackage) -> list[str]:
    package.write("mod.py", "def answer():\n    return 42\n")
    package.write("sub/__init__.py", "from . import leaf\n")
    package.write("sub/leaf.py", "LEAF = 'leaf'\n")
    package.write("sub/hello.txt", "hello from the package\n")
    package.write("sub/deeper/__init__.py", "")
    package.write("sub/deeper/bottom.py", "from ..leaf import LEAF\nBOTTOM = LEAF + '!'\n")
    return ["", "mod", "sub", "sub.leaf", "sub.deeper", "sub.deeper.bottom"]


def test_submodules_found_by_the_finder_look_like_a_standard_import(scratch: ScratchPackage):
    names = write_sample(scratch)
    scratch.compile()
    with finder_installed(scratch.name):
        through_finder = {name: describe(scratch.module(name)) for name in names}
        loaders = {name: type(scratch.module(name).__loader__) for name in names}
    assert scratch.module("sub.deeper.bottom").BOTTOM == "leaf!"
    scratch.forget()
    standard = {name: describe(scratch.module(name)) for name in names}
    assert through_finder == standard
    assert loaders.pop("") is SourceFileLoader  # the top-level package is the standard finder's
    assert set(loaders.values()) == {SDKSourceLoader}
    assert through_finder["sub"]["__path__"] == [f"{scratch.directory}/sub"]
    assert through_finder["mod"]["cached"] == cache_from_source(f"{scratch.directory}/mod.py")


def test_source_and_resources_of_the_finders_modules_are_readable(scratch: ScratchPackage):
    write_sample(scratch)
    scratch.compile()
    with finder_installed(scratch.name):
        mod, sub = scratch.module("mod"), scratch.module("sub")
    assert isinstance(mod.__loader__, SDKSourceLoader)
    assert inspect.getsource(mod.answer) == "def answer():\n    return 42\n"
    assert importlib.resources.files(sub).joinpath("hello.txt").read_text() == "hello from the package\n"
    assert importlib.resources.files(f"{scratch.name}.sub").joinpath("leaf.py").is_file()


def test_a_valid_pyc_is_loaded_without_the_standard_get_code(scratch: ScratchPackage,
                                                             monkeypatch: pytest.MonkeyPatch):
    write_sample(scratch)
    scratch.compile()
    scratch.module("")

    def refuse(self: SourceFileLoader, fullname: str) -> None:
        raise AssertionError(f"standard get_code called for {fullname}")

    monkeypatch.setattr(SourceFileLoader, "get_code", refuse)
    with finder_installed(scratch.name):
        assert scratch.module("mod").answer() == 42
        assert scratch.module("sub.deeper.bottom").BOTTOM == "leaf!"


def test_code_from_a_moved_tree_names_the_sources_current_path(scratch: ScratchPackage, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch):
    write_sample(scratch)
    scratch.compile()  # the pycs name the sources where they were compiled
    moved = tmp_path / "moved"
    moved.mkdir()
    (scratch.root / scratch.name).rename(moved / scratch.name)  # keeps the mtimes: the pycs stay valid
    scratch.root = moved
    monkeypatch.syspath_prepend(str(moved))
    scratch.module("")
    with finder_installed(scratch.name):
        mod = scratch.module("mod")
    assert isinstance(mod.__loader__, SDKSourceLoader)
    assert mod.answer.__code__.co_filename == f"{moved}/{scratch.name}/mod.py" == mod.__file__


def test_a_source_edited_after_its_pyc_was_written_runs_the_new_code(scratch: ScratchPackage,
                                                                    monkeypatch: pytest.MonkeyPatch):
    source = scratch.write("mod.py", "VALUE = 'old'\n")
    scratch.compile()
    source.write_text("VALUE = 'new, and longer'\n")
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    with finder_installed(scratch.name):
        module = scratch.module("mod")
    assert module.VALUE == "new, and longer"
    # the standard fallback rewrote the pyc, which the loader's own check now accepts
    monkeypatch.setattr(SourceFileLoader, "get_code", lambda self, fullname: pytest.fail("pyc not rewritten"))
    assert module.__loader__.get_code(module.__name__) is not None


def test_hash_based_pycs_are_left_to_the_standard_loader(scratch: ScratchPackage):
    checked = scratch.write("checked.py", "VALUE = 'as compiled'\n")
    edited = scratch.write("edited.py", "VALUE = 'as compiled'\n")
    for source in (checked, edited):
        py_compile.compile(str(source), invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH, doraise=True)
    edited.write_text("VALUE = 'hand-edited'\n")  # same size, maybe the same second: only the hash tells
    with finder_installed(scratch.name):
        assert scratch.module("checked").VALUE == "as compiled"
        assert scratch.module("edited").VALUE == "hand-edited"
        assert isinstance(scratch.module("edited").__loader__, SDKSourceLoader)


def test_a_missing_pyc_is_compiled_from_source(scratch: ScratchPackage, monkeypatch: pytest.MonkeyPatch):
    written = scratch.write("written.py", "VALUE = 1\n")
    unwritten = scratch.write("unwritten.py", "VALUE = 2\n")
    with finder_installed(scratch.name):
        monkeypatch.setattr(sys, "dont_write_bytecode", False)
        assert scratch.module("written").VALUE == 1
        monkeypatch.setattr(sys, "dont_write_bytecode", True)
        assert scratch.module("unwritten").VALUE == 2
    assert Path(cache_from_source(str(written))).is_file()
    assert not Path(cache_from_source(str(unwritten))).exists()


def test_a_directory_without_init_still_imports_as_a_namespace_package(scratch: ScratchPackage):
    scratch.write("portion/thing.py", "THING = 'in a namespace'\n")
    scratch.compile()
    with finder_installed(scratch.name) as finder:
        assert finder.find_spec(f"{scratch.name}.portion", [scratch.directory]) is None
        portion = scratch.module("portion")
        assert scratch.module("portion.thing").THING == "in a namespace"
    assert portion.__spec__.origin is None
    assert list(portion.__path__) == [f"{scratch.directory}/portion"]


def test_a_name_with_an_extension_module_candidate_is_left_to_the_standard_finder(scratch: ScratchPackage):
    scratch.write("fast.py", "VALUE = 'source'\n")
    scratch.write("fast" + EXTENSION_SUFFIXES[-1], "not really a shared object")
    scratch.write("compiled/__init__.py", "")
    scratch.write("compiled/__init__" + EXTENSION_SUFFIXES[0], "not really a shared object")
    scratch.write("plain.py", "")
    finder = SDKFinder({scratch.name})
    assert finder.find_spec(f"{scratch.name}.fast", [scratch.directory]) is None
    assert finder.find_spec(f"{scratch.name}.compiled", [scratch.directory]) is None
    assert finder.find_spec(f"{scratch.name}.plain", [scratch.directory]) is not None


def test_the_finder_answers_only_for_submodules_of_its_packages(scratch: ScratchPackage):
    scratch.write("mod.py", "")
    finder = SDKFinder({scratch.name})
    assert finder.find_spec(scratch.name) is None  # the top-level package: no path given
    assert SDKFinder({"other"}).find_spec(f"{scratch.name}.mod", [scratch.directory]) is None
    assert finder.find_spec(f"{scratch.name}.missing", [scratch.directory]) is None
    spec = finder.find_spec(f"{scratch.name}.mod", [scratch.directory])
    assert spec is not None and spec.origin == f"{scratch.directory}/mod.py"


def test_unusual_settings_and_path_entries_leave_the_import_to_the_standard_finder(
        scratch: ScratchPackage, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    scratch.write("mod.py", "")
    fullname = f"{scratch.name}.mod"
    archive = tmp_path / "archive.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr(f"{scratch.name}/mod.py", "")
    finder = SDKFinder({scratch.name})
    assert finder.find_spec(fullname, [f"{archive}/{scratch.name}"]) is None  # inside a zip
    assert finder.find_spec(fullname, [str(archive)]) is None  # a file
    assert finder.find_spec(fullname, [str(tmp_path / "gone")]) is None  # missing
    assert finder.find_spec(fullname, [os.path.relpath(scratch.directory)]) is None  # relative
    assert finder.find_spec(fullname, [scratch.directory]) is not None
    monkeypatch.setitem(sys.path_importer_cache, scratch.directory, None)
    assert finder.find_spec(fullname, [scratch.directory]) is None  # the standard finder skips that entry
    monkeypatch.delitem(sys.path_importer_cache, scratch.directory)
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "pycache"))
    assert finder.find_spec(fullname, [scratch.directory]) is None
    monkeypatch.setattr(sys, "pycache_prefix", None)

    def directory_hook(entry: str) -> None:
        raise ImportError(entry)

    monkeypatch.setattr(sys, "path_hooks", [directory_hook, *sys.path_hooks])
    assert SDKFinder({scratch.name}).find_spec(fullname, [scratch.directory]) is None


def test_a_path_of_several_directories_is_searched_in_order(scratch: ScratchPackage, tmp_path: Path):
    first, second = tmp_path / "first", tmp_path / "second"
    for directory, names in ((first, ["both.py", "portion/x.py"]), (second, ["both.py", "only_second.py",
                                                                            "portion.py"])):
        for name in names:
            (directory / name).parent.mkdir(parents=True, exist_ok=True)
            (directory / name).write_text("")
    finder = SDKFinder({scratch.name})
    path = [str(first), str(second)]
    assert finder.find_spec(f"{scratch.name}.both", path).origin == f"{first}/both.py"
    assert finder.find_spec(f"{scratch.name}.only_second", path).origin == f"{second}/only_second.py"
    assert finder.find_spec(f"{scratch.name}.portion", path) is None  # a namespace portion first



def test_listings_are_kept_until_caches_are_invalidated(scratch: ScratchPackage):
    finder = SDKFinder({scratch.name})
    assert finder.find_spec(f"{scratch.name}.late", [scratch.directory]) is None
    scratch.write("late.py", "")
    assert finder.find_spec(f"{scratch.name}.late", [scratch.directory]) is None  # the listing is cached
    sys.meta_path.insert(0, finder)
    try:
        importlib.invalidate_caches()  # calls the meta-path finders' invalidate_caches()
    finally:
        sys.meta_path.remove(finder)
    assert finder.find_spec(f"{scratch.name}.late", [scratch.directory]) is not None

ANTHROPIC_SCRIPT = """
import json, sys
from amplifier_cli.sessions.sdk_finder import SDKFinder, SDKSourceLoader  # in both runs: the same modules
if sys.argv[1] == "finder":
    finder = SDKFinder({"anthropic"})
    sys.meta_path.insert(0, finder)
    import anthropic
    sys.meta_path.remove(finder)
else:
    import anthropic
message = anthropic.types.Message.model_validate({
    "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
    "content": [{"type": "text", "text": "hello"}], "stop_reason": "end_turn", "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 2},
})
sdk = {name: module for name, module in sys.modules.items() if name.partition(".")[0] == "anthropic"}
print(json.dumps({
    "files": {name: getattr(module, "__file__", None) for name, module in sdk.items()},
    "by_finder": sum(isinstance(module.__loader__, SDKSourceLoader) for module in sdk.values()),
    "text": message.content[0].text,
}))
"""


def test_import_anthropic_through_the_finder_gives_the_same_modules_as_a_plain_import():
    if importlib.util.find_spec("anthropic") is None:
        pytest.skip("the anthropic SDK is not installed")

    done = subprocess.run([sys.executable, "-c", ANTHROPIC_SCRIPT, "finder"], capture_output=True, text=True,
                          timeout=120, check=True)
    through_finder = json.loads(done.stdout)
    # a plain import (this process's) finds every one of those modules in the same file
    plain = {name: getattr(importlib.import_module(name), "__file__", None) for name in through_finder["files"]}
    assert through_finder["files"] == plain
    assert len(plain) > 100
    assert through_finder["by_finder"] > 0.9 * len(plain)
    assert through_finder["text"] == "hello"
