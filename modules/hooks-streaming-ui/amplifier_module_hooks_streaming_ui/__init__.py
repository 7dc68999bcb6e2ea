"""hooks-streaming-ui: shows a session as it happens — assistant text token by token, thinking, tool calls
and results, todo lists and token usage — with Rich, in colour on a terminal and plain text elsewhere.

Where it writes comes from the app: capability ``ui.output`` = {stream, show_answer_text, indent, label,
color, working_stream}. Without it, stdout and everything shown. It registers capability
``ui.renders_answer`` so the app knows not to print the answer a second time, and ``ui.working_indicator``
(the :class:`WorkingIndicator`) so the app can pause the indicator around its own questions and messages.
"""

from __future__ import annotations

import sys
from typing import Any, Literal

from amplifier_core.module_config import ModuleConfig, parse_module_config
from amplifier_support.capability_names import SUBAGENTS_RUNNING, UI_OUTPUT, UI_RENDERS_ANSWER, UI_WORKING_INDICATOR

from .renderer import StreamingRenderer, UISettings, make_handlers
from .working import WorkingIndicator

__amplifier_module_type__ = "hook"

PRIORITY = 500  # after redaction (-1000) and approval gates, before logging of the final data


class UIConfig(ModuleConfig):
    show_thinking: Literal["stream", "collapsed", "hidden"] = "stream"
    show_tool_lines: int = 5
    show_token_usage: bool = True
    render_markdown: bool = True
    color: bool | None = None
    stream: Literal["auto", "stdout", "stderr"] = "auto"
    show_working: bool = True
    # upstream nests its options under `ui:` (show_thinking_stream, show_tool_lines, show_token_usage)
    ui: dict[str, Any] | None = None


def _settings(config: UIConfig, output: dict[str, Any] | None) -> UISettings:
    legacy = config.ui or {}
    show_thinking = config.show_thinking
    if legacy.get("show_thinking_stream") is False:
        show_thinking = "collapsed"
    output = output or {}
    stream = output.get("stream")
    if stream is None or config.stream != "auto":
        stream = sys.stderr if config.stream == "stderr" else sys.stdout
    return UISettings(
        stream=stream,
        show_answer_text=bool(output.get("show_answer_text", True)),
        show_thinking=show_thinking,
        show_tool_lines=int(legacy.get("show_tool_lines", config.show_tool_lines)),
        show_token_usage=bool(legacy.get("show_token_usage", config.show_token_usage)),
        render_markdown=config.render_markdown,
        indent=int(output.get("indent", 0)),
        label=output.get("label"),
        color=output.get("color") if output.get("color") is not None else config.color,
        working_stream=_working_stream(config, output, stream),
        parent_indicator=output.get(UI_WORKING_INDICATOR) if output.get("indent") else None,
    )


def _working_stream(config: UIConfig, output: dict[str, Any], stream: Any) -> Any:
    """The app names where the indicator may go (``working_stream``; absent = nowhere). Without the
    ``ui.output`` capability at all, the UI's own stream. It is drawn only if that is a terminal."""
    if not config.show_working:
        return None
    if not output:
        return stream
    return output.get("working_stream")


async def mount(coordinator: Any, config: dict[str, Any] | None = None):
    settings = _settings(parse_module_config(UIConfig, config, "hooks-streaming-ui"),
                         coordinator.get_capability(UI_OUTPUT))
    renderer = StreamingRenderer(settings)
    unregister = [
        coordinator.hooks.register(event, handler, priority=PRIORITY, name=f"streaming-ui:{event}")
        for event, handler in make_handlers(renderer).items()
    ]
    if settings.show_answer_text:
        coordinator.register_capability(UI_RENDERS_ANSWER, True)
    if renderer.indicator.enabled:
        coordinator.register_capability(UI_WORKING_INDICATOR, renderer.indicator)
        if isinstance(renderer.indicator, WorkingIndicator):  # the app's running sub-agents, listed under it
            renderer.indicator.children = lambda: (coordinator.get_capability(SUBAGENTS_RUNNING) or list)()
        output = coordinator.get_capability(UI_OUTPUT)
        if isinstance(output, dict):  # sub-agents' UIs are opened with a copy of this: they erase it too
            output[UI_WORKING_INDICATOR] = renderer.indicator

    def cleanup() -> None:
        renderer.indicator.detach()
        for remove in unregister:
            remove()

    return cleanup


__all__ = ["StreamingRenderer", "UIConfig", "WorkingIndicator", "mount"]
