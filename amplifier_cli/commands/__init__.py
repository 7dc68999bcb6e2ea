"""One command group per file; each exposes `register(root: typer.Typer)`. Keep top-level imports to typer."""
