"""`run -o json`: the result's `cost_usd` is a number from the price tables, or null (with `unpriced_models`)
when a model of the run has no price; never a partial sum."""

from __future__ import annotations

import json


def test_json_result_has_the_cost_of_the_run_as_a_number_priced_by_the_profile_table(e2e) -> None:
    path = e2e.profile("priced", provider="scripted", script=[
        {"text": "answer", "usage": {"input_tokens": 1_000_000, "output_tokens": 200_000}}])
    path.write_text(path.read_text() + "pricing:\n  scripted: {input: 2, output: 10}\n", encoding="utf-8")
    result = e2e.run("run", "-P", "priced", "-o", "json", "hi")
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["cost_usd"] == 4.0  # 1M in x $2 + 0.2M out x $10
    assert "unpriced_models" not in record


def test_json_result_cost_is_null_and_names_the_model_when_no_table_prices_it(e2e) -> None:
    e2e.profile("unpriced", provider="scripted", script=["answer"])
    result = e2e.run("run", "-P", "unpriced", "-o", "json", "hi")
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["cost_usd"] is None and record["unpriced_models"] == ["scripted"]
