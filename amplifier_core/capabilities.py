"""Well-known model capability names and cost tiers (lowercase snake_case; "thinking" means reasoning)."""

from __future__ import annotations

TOOLS = "tools"
STREAMING = "streaming"
THINKING = "thinking"
VISION = "vision"
JSON_MODE = "json_mode"
FAST = "fast"
CODE_EXECUTION = "code_execution"
WEB_SEARCH = "web_search"
DEEP_RESEARCH = "deep_research"
LOCAL = "local"
AUDIO = "audio"
IMAGE_GENERATION = "image_generation"
COMPUTER_USE = "computer_use"
EMBEDDINGS = "embeddings"
LONG_CONTEXT = "long_context"
BATCH = "batch"

ALL_WELL_KNOWN_CAPABILITIES: list[str] = [
    TOOLS, STREAMING, THINKING, VISION, JSON_MODE, FAST, CODE_EXECUTION, WEB_SEARCH, DEEP_RESEARCH, LOCAL,
    AUDIO, IMAGE_GENERATION, COMPUTER_USE, EMBEDDINGS, LONG_CONTEXT, BATCH,
]

COST_TIER_FREE = "free"
COST_TIER_LOW = "low"
COST_TIER_MEDIUM = "medium"
COST_TIER_HIGH = "high"
COST_TIER_EXTREME = "extreme"
ALL_COST_TIERS: list[str] = [COST_TIER_FREE, COST_TIER_LOW, COST_TIER_MEDIUM, COST_TIER_HIGH, COST_TIER_EXTREME]

__all__ = [name for name in list(globals()) if name.isupper()]
