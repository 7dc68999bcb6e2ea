"""amplifier.toml read as 2.0.2 reads it, with its guards: names that leave the module directory are refused and a
digest that does not match stops the load; every error names the module, the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest
from polyglot.layout import artifact_module, digest, grpc_module

from amplifier_core.module_manifest import ManifestError, read_manifest


def write(directory: Path, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "amplifier.toml").write_text(text, encoding="utf-8")
    return directory


def test_a_python_package_without_manifest_is_python(tmp_path: Path) -> None:
    package = tmp_path / "tool-x" / "amplifier_module_tool_x"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    assert read_manifest("tool-x", tmp_path / "tool-x").transport == "python"


def test_grpc_manifest_gives_type_and_endpoint(tmp_path: Path) -> None:
    manifest = read_manifest("tool-g", grpc_module(tmp_path / "g", "127.0.0.1:5000"))
    assert (manifest.transport, manifest.module_type, manifest.endpoint) == ("grpc", "tool", "127.0.0.1:5000")


def test_native_is_an_alias_of_rust_and_finds_the_release_build(tmp_path: Path) -> None:
    directory = write(tmp_path / "n", '[module]\ntransport = "native"\ntype = "tool"\ncrate = "side"\n')
    (directory / "target" / "release").mkdir(parents=True)
    (directory / "target" / "release" / "side").write_bytes(b"#!/bin/sh\n")
    manifest = read_manifest("tool-n", directory)
    assert manifest.transport == "rust"
    assert manifest.artifact == directory / "target" / "release" / "side"


def test_a_lone_component_is_a_wasm_module(tmp_path: Path) -> None:
    directory = tmp_path / "w"
    directory.mkdir()
    (directory / "thing.wasm").write_bytes(b"\0asm")
    manifest = read_manifest("tool-w", directory)
    assert (manifest.transport, manifest.artifact, manifest.module_type) == ("wasm", directory / "thing.wasm", None)


@pytest.mark.parametrize("name", ["../outside.wasm", "/etc/passwd", "sub/inner.wasm", ".."])
def test_an_artifact_name_that_is_not_a_plain_file_name_is_refused(tmp_path: Path, name: str) -> None:
    directory = write(tmp_path / "m", f'[module]\ntransport = "wasm"\ntype = "tool"\nartifact = "{name}"\n')
    with pytest.raises(ManifestError) as raised:
        read_manifest("tool-esc", directory)
    text = str(raised.value)
    assert "tool-esc" in text and str(directory / "amplifier.toml") in text and "module.artifact" in text
    assert "not a plain file name" in text


def test_a_symlink_out_of_the_module_directory_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.bin"
    outside.write_bytes(b"x")
    directory = write(tmp_path / "m", '[module]\ntransport = "rust"\ntype = "tool"\ncrate = "side"\n')
    (directory / "side").symlink_to(outside)
    with pytest.raises(ManifestError, match=r"module\.crate.*leads outside the module directory"):
        read_manifest("tool-link", directory)


def test_a_crate_name_with_a_path_is_refused(tmp_path: Path) -> None:
    directory = write(tmp_path / "m", '[module]\ntransport = "rust"\ntype = "tool"\ncrate = "../../bin/sh"\n')
    with pytest.raises(ManifestError, match=r"module\.crate.*not a plain file name"):
        read_manifest("tool-crate", directory)


def test_a_digest_that_does_not_match_stops_the_load(tmp_path: Path) -> None:
    directory = artifact_module(tmp_path / "m", "wasm", "tool", "tool.wasm", b"tampered",
                                sha256=digest(b"original"))
    with pytest.raises(ManifestError) as raised:
        read_manifest("tool-sum", directory)
    assert "module.sha256" in str(raised.value) and "does not match its digest" in str(raised.value)


def test_a_matching_digest_loads(tmp_path: Path) -> None:
    directory = artifact_module(tmp_path / "m", "wasm", "tool", "tool.wasm", b"same", sha256=digest(b"same"))
    assert read_manifest("tool-sum", directory).sha256 == digest(b"same")


@pytest.mark.parametrize(("text", "key"), [
    ('[module]\ntransport = "grpc"\ntype = "tool"\n', "grpc.endpoint"),
    ('[module]\ntransport = "grpc"\n[grpc]\nendpoint = "x:1"\n', "module.type"),
    ('[module]\ntransport = "carrier-pigeon"\ntype = "tool"\n', "module.transport"),
    ('[module]\ntransport = "wasm"\ntype = "tool"\nsha256 = "abc"\n', "module.sha256"),
    ('[module]\ntransport = "rust"\ntype = "tool"\n', "module.crate"),
    ('[grpc]\nendpoint = "x:1"\n', "module"),
])
def test_incomplete_manifests_name_the_key(tmp_path: Path, text: str, key: str) -> None:
    directory = write(tmp_path / "m", text)
    with pytest.raises(ManifestError) as raised:
        read_manifest("tool-bad", directory)
    assert raised.value.key == key and f"key '{key}'" in str(raised.value)


def test_invalid_toml_is_reported_with_the_file(tmp_path: Path) -> None:
    directory = write(tmp_path / "m", "[module\n")
    with pytest.raises(ManifestError, match="is not valid TOML"):
        read_manifest("tool-toml", directory)


@pytest.mark.parametrize("text", ["[tool.other]\nsetting = 1\n", "not = [valid toml"])
def test_a_python_package_with_some_other_amplifier_toml_still_loads_as_python(tmp_path: Path, text: str) -> None:
    directory = write(tmp_path / "tool-py", text)
    (directory / "amplifier_module_tool_py").mkdir()
    (directory / "amplifier_module_tool_py" / "__init__.py").write_text("")
    assert read_manifest("tool-py", directory).transport == "python"
