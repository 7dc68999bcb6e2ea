"""The answering provider's SDK is imported in the background once the plan is known: only that one SDK
(credentials present, lowest priority), at most once per process."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

import pytest

from amplifier_cli.config.module_facts import facts_of
from amplifier_cli.sessions import sdk_imports
from amplifier_cli.sessions.sdk_imports import answering_sdk, start_sdk_import


def provider_facts(root: Path, module_id: str, sdk: str) -> None:
    """A provider module on sys.path (``root``) that names its SDK and key variable in its facts file."""
    module = root / ("amplifier_module_" + module_id.replace("-", "_"))
    module.mkdir()
    (module / "__init__.py").write_text("")
    (module / "amplifier-module.toml").write_text(f'[provider]\nsdk = "{sdk}"\nkey_env = "FAKE_KEY"\n')
    facts_of.cache_clear()


def plan(*providers: dict) -> dict:
    return {"providers": list(providers)}


ANTHROPIC = {"module": "provider-anthropic", "config": {"priority": 10}}
OPENAI = {"module": "provider-openai", "config": {"priority": 20}}


def test_the_lowest_priority_provider_with_credentials_decides():
    keys = {"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k"}
    assert answering_sdk(plan(ANTHROPIC, OPENAI), keys) == "anthropic"
    assert answering_sdk(plan(ANTHROPIC, OPENAI), {"OPENAI_API_KEY": "k"}) == "openai"
    assert answering_sdk(plan(ANTHROPIC, OPENAI), {"OPENAI_BASE_URL": "http://local"}) == "openai"
    assert answering_sdk(plan(ANTHROPIC, OPENAI), {}) is None
    with_key = {"module": "provider-openai", "config": {"priority": 20, "api_key": "${MY_KEY}"}}
    assert answering_sdk(plan(ANTHROPIC, with_key), {}) == "openai"


def test_a_non_sdk_provider_that_answers_first_means_nothing_to_import():
    scripted = {"module": "provider-scripted", "config": {"priority": 1}}
    assert answering_sdk(plan(ANTHROPIC, scripted), {"ANTHROPIC_API_KEY": "k"}) is None
    assert answering_sdk(plan("provider-anthropic"), {"ANTHROPIC_API_KEY": "k"}) == "anthropic"
    assert answering_sdk({}, {}) is None


def test_the_sdk_is_imported_in_a_background_thread_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    package = tmp_path / "fake_sdk_for_warmup"
    package.mkdir()
    (package / "__init__.py").write_text("import gc, threading\nIMPORTED_BY = threading.current_thread().name\n"
                                         "COLLECTING = gc.isenabled()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    provider_facts(tmp_path, "provider-fake", "fake_sdk_for_warmup")
    monkeypatch.setenv("FAKE_KEY", "k")
    monkeypatch.delitem(sys.modules, "fake_sdk_for_warmup", raising=False)
    monkeypatch.setattr(sdk_imports, "_started", set())
    thread = start_sdk_import(plan({"module": "provider-fake"}))
    assert thread is not None
    thread.join()
    gc.unfreeze()  # the import froze this test process's heap: hand it back to the collector
    assert sys.modules["fake_sdk_for_warmup"].IMPORTED_BY == thread.name
    assert sys.modules["fake_sdk_for_warmup"].COLLECTING is False  # paused while the SDK's classes are built
    assert gc.isenabled()  # and running again afterwards
    assert start_sdk_import(plan({"module": "provider-fake"})) is None  # loaded: nothing more to do
    monkeypatch.delitem(sys.modules, "fake_sdk_for_warmup")
    assert start_sdk_import(plan({"module": "provider-fake"})) is None  # started once per process


def test_one_sdk_finder_stays_first_on_the_meta_path_and_answers_only_while_an_sdk_is_imported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Never taken out of sys.meta_path (that could make another thread's import skip a finder), but silent
    once the import is over; two SDK imports share the one finder."""
    from amplifier_cli.sessions.sdk_finder import SDKFinder, SDKSourceLoader

    for sdk_name in ("fake_sdk_with_finder", "other_fake_sdk"):
        package = tmp_path / sdk_name
        package.mkdir()
        (package / "__init__.py").write_text("import sys\nFIRST_FINDER = sys.meta_path[0]\nfrom . import client\n")
        (package / "client.py").write_text("CLIENT = True\n")
        for name in (sdk_name, f"{sdk_name}.client"):
            monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    for module_id, sdk_name in (("provider-fake", "fake_sdk_with_finder"), ("provider-other", "other_fake_sdk")):
        provider_facts(tmp_path, module_id, sdk_name)
    monkeypatch.setenv("FAKE_KEY", "k")
    monkeypatch.setattr(sdk_imports, "_started", set())
    monkeypatch.setattr(sdk_imports, "_finder", None)
    # the test's own list (restored afterwards), without the finder an earlier test left, as it should, in place
    monkeypatch.setattr(sys, "meta_path", [finder for finder in sys.meta_path if not isinstance(finder, SDKFinder)])
    for module_id in ("provider-fake", "provider-other"):
        thread = start_sdk_import(plan({"module": module_id}))
        assert thread is not None
        thread.join()
        gc.unfreeze()
    first, other = sys.modules["fake_sdk_with_finder"], sys.modules["other_fake_sdk"]
    assert isinstance(first.FIRST_FINDER, SDKFinder) and first.FIRST_FINDER is other.FIRST_FINDER
    assert isinstance(first.client.__loader__, SDKSourceLoader)
    assert isinstance(other.client.__loader__, SDKSourceLoader)
    assert [finder for finder in sys.meta_path if isinstance(finder, SDKFinder)] == [first.FIRST_FINDER]
    assert sys.meta_path[0] is first.FIRST_FINDER
    assert first.FIRST_FINDER.packages == frozenset()
    assert first.FIRST_FINDER.find_spec("fake_sdk_with_finder.client", [str(tmp_path / "fake_sdk_with_finder")]) \
        is None
