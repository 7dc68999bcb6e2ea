"""`amplifier worktree list|remove NAME`: the git worktrees that sessions (`--worktree`) and sub-agents
(`isolation: worktree`) left with their work, kept under the data dir (sessions/worktrees.py)."""

from __future__ import annotations

import typer


def register(root: typer.Typer) -> None:
    group = typer.Typer(help="Worktrees that sessions and sub-agents worked in: list, remove.", no_args_is_help=True)
    group.command("list")(list_worktrees)
    group.command("remove")(remove_worktree)
    root.add_typer(group, name="worktree")


def list_worktrees(json_output: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """This repository's worktrees: branch, commits beyond HEAD, files not committed, where."""
    from ..config.paths import AmplifierPaths
    from ..sessions.worktrees import list_worktrees as listed
    from ..sessions.worktrees import worktree_summary

    paths = AmplifierPaths.discover()
    rows = [worktree_summary(worktree) for worktree in listed(paths.data_dir, paths.cwd)]
    if json_output:
        from ..ui.tables import print_json

        print_json(rows)
        return
    from ..ui.tables import print_table

    print_table("Worktrees", ["Name", "Branch", "Commits", "Uncommitted", "Path"],
                [(row["name"], row["branch"] or "-", row["commits"], row["uncommitted"], row["path"]) for row in rows],
                empty="No worktrees for this repository.")


def remove_worktree(
    name: str = typer.Argument(..., help="The worktree's name (see `amplifier worktree list`)."),
    force: bool = typer.Option(False, "--force", help="Also throw away changes not committed."),
) -> None:
    """Remove a worktree's checkout; its branch stays when it holds commits (merge or delete it with git)."""
    from ..config.paths import AmplifierPaths
    from ..sessions.worktrees import remove_worktree as remove

    paths = AmplifierPaths.discover()
    worktree, branch_gone = remove(paths.data_dir, paths.cwd, name, force=force)
    kept = "" if branch_gone else f"; branch {worktree.branch} stays with its commits (git branch -D to drop it)"
    typer.echo(f"Removed worktree '{worktree.name}' ({worktree.path}){kept}.")
