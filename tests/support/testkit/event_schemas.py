"""The published schemas of machine output (docs/schemas/): every line of `-o stream-json` / `-o json` that a
test run produces is checked against them (tests/e2e/conftest.py does it for every run of the e2e harness)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

SCHEMAS = Path(__file__).resolve().parents[3] / "docs" / "schemas"


@cache
def _validator(name: str) -> Any:
    from jsonschema import Draft202012Validator

    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def schema_problems(value: Any, name: str) -> list[str]:
    """Why ``value`` does not fit schema file ``name`` (empty when it does)."""
    return [f"{'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message}"
            for error in _validator(name).iter_errors(value)]


def assert_stream_lines_valid(stdout: str) -> list[dict[str, Any]]:
    """Every line of a machine-format stdout is JSON fitting docs/schemas/stream-json.schema.json; returns them."""
    records = []
    for number, line in enumerate(stdout.splitlines(), start=1):
        if not line.strip():
            continue
        record = json.loads(line)
        problems = schema_problems(record, "stream-json.schema.json")
        assert not problems, f"stdout line {number} ({record.get('type')}) breaks the schema: {problems}\n{line}"
        records.append(record)
    return records


def assert_transcript_valid(path: Path) -> None:
    """Every line of a transcript.jsonl fits docs/schemas/transcript-line.schema.json."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        problems = schema_problems(json.loads(line), "transcript-line.schema.json")
        assert not problems, f"{path}:{number} breaks the schema: {problems}"
