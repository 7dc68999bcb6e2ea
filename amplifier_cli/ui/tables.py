"""Listing output: a Rich table for people, or JSON on stdout with `--json` (rich imported only for tables).
Piped, a table keeps whole values (amplifier_support.consoles)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any


def print_json(data: Any) -> None:
    import typer

    typer.echo(json.dumps(data, indent=2, default=str))


def print_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]], *, empty: str = "") -> None:
    from rich.table import Table

    from amplifier_support.consoles import table_console

    console = table_console()
    if not rows and empty:
        console.print(empty)
        return
    table = Table(title=title, title_justify="left")
    for column in columns:
        table.add_column(column)
    for row in rows:
        table.add_row(*("" if cell is None else str(cell) for cell in row))
    console.print(table)
