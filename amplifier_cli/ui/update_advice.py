"""What `amplifier update` says: how this copy was installed, and the command that updates it."""

from __future__ import annotations


def install_kind() -> dict[str, str]:
    """How this copy was installed, from its distribution's `direct_url.json`: editable checkout, a local
    directory or VCS URL, or an index package."""
    import json
    from importlib import metadata

    from .. import __version__

    try:
        distribution = metadata.distribution("amplifier")
        direct = distribution.read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        direct = None
    info: dict[str, str] = {"version": __version__, "kind": "package", "location": ""}
    if direct:
        data = json.loads(direct)
        url = data.get("url", "")
        if (data.get("dir_info") or {}).get("editable"):
            info.update(kind="editable", location=url.removeprefix("file://"))
        elif "vcs_info" in data:
            info.update(kind="git", location=url)
        elif url.startswith("file://"):
            info.update(kind="directory", location=url.removeprefix("file://"))
    return info


def update_advice(info: dict[str, str]) -> str:
    import sys

    python = sys.executable
    if info["kind"] == "editable":
        return (f"This is an editable install of the checkout at {info['location']}: update it with\n"
                f"  git -C {info['location']} pull && {python} -m pip install -e '{info['location']}[dev]'")
    if info["kind"] == "git":
        url = info["location"].removeprefix("git+")
        return f"Installed from {url}: update with\n  {python} -m pip install --upgrade 'git+{url}'"
    if info["kind"] == "directory":
        return (f"Installed from the directory {info['location']}: update that checkout, then\n"
                f"  {python} -m pip install --upgrade '{info['location']}'")
    return f"Installed as a package: update with\n  {python} -m pip install --upgrade amplifier"
