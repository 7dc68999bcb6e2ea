"""`/compact [what to keep]`: compact the conversation now and show the receipt (sessions/manual_compaction.py)."""

from __future__ import annotations

from typing import Any

from .output import say


async def compact_command(repl: Any, argument: str) -> bool:
    from amplifier_support.compaction_receipt import receipt_line

    from ...sessions.manual_compaction import CompactionRefused, compact_now

    live = await repl.session()
    if live is None:
        return True
    say("(asking the model for a summary of the conversation…)", "dim")
    try:
        receipt = await compact_now(live.coordinator, live.provider_name, argument.strip())
    except CompactionRefused as error:
        say(f"Not compacted: {error}", "warning")
        return True
    data = receipt.event_data()
    say(receipt_line({**data, "summary": ""}), "ok")
    say("The summary kept:", "title")
    say(receipt.summary)
    return True
