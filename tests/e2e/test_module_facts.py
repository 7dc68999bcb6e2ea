"""A third-party provider describes itself (amplifier-module.toml); the app names no bundled module in a table,
so an installed module it has never heard of gets its key variable and its SDK warm-up."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

FIXTURE = Path(__file__).parents[1] / "fixtures" / "amplifier-module-provider-local-server"

WARM_UP = """
import json, sys
from amplifier_cli.sessions.sdk_imports import start_sdk_import
from amplifier_cli.sessions.secrets import plan_secrets
plan = {"providers": [{"module": "provider-local-server"}]}
start_sdk_import(plan).join()
print(json.dumps({"sdk_loaded": "local_server_sdk" in sys.modules, "secrets": sorted(plan_secrets(plan))}))
"""


def install(site: Path) -> None:
    """Lay the fixture out in `site` as an installer does: the package, and a dist-info naming its entry point."""
    package = "amplifier_module_provider_local_server"
    shutil.copytree(FIXTURE / package, site / package)
    info = site / "amplifier_module_provider_local_server-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: amplifier-module-provider-local-server\n"
                                   "Version: 0.1.0\n")
    (info / "entry_points.txt").write_text(f'[amplifier.modules]\nprovider-local-server = {package}:mount\n')
    (site / "local_server_sdk").mkdir()
    (site / "local_server_sdk" / "__init__.py").write_text("")


def test_an_unknown_installed_provider_gets_its_key_variable_and_sdk_warm_up(e2e, tmp_path: Path) -> None:
    site = tmp_path / "site"
    install(site)
    env = {"PYTHONPATH": str(site), "LOCAL_SERVER_KEY": "local-secret-value"}

    listed = e2e.run("provider", "list", "--json", env=env)
    warmed = subprocess.run([sys.executable, "-c", WARM_UP], capture_output=True, text=True, check=False,
                            cwd=e2e.project, env={**e2e.env, **env}, timeout=60)

    assert listed.returncode == 0, listed.stderr
    rows = {row["id"]: row for row in json.loads(listed.stdout)}
    assert rows["local-server"]["key"] == "LOCAL_SERVER_KEY (environment)"
    assert rows["local-server"]["description"] == "A model server on this machine"
    assert warmed.returncode == 0, warmed.stderr
    assert json.loads(warmed.stdout) == {"sdk_loaded": True, "secrets": ["LOCAL_SERVER_KEY"]}
