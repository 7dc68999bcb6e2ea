"""The kernel's models to and from the module proto's messages (amplifier_core/_grpc_gen/amplifier_module.proto).

Context managers hand messages around as transcript dicts, which carry keys the proto has no field for (an
assistant message's ``tool_calls``); those ride in ``metadata_json`` under ``EXTRA_KEY`` so a message makes the
round trip through a module in another language unchanged."""

from __future__ import annotations

import base64
import json
from decimal import Decimal
from typing import Any

from ..message_models import ChatRequest, ChatResponse, ToolCall, Usage
from ..models import ConfigField, ContextInjection, HookResult, ModelInfo, Pricing, ProviderInfo, ToolResult

EXTRA_KEY = "amplifier:message_extra"
_MESSAGE_FIELDS = ("role", "content", "name", "tool_call_id", "metadata")
ROLES = {"system": 1, "user": 2, "assistant": 3, "tool": 4, "function": 5, "developer": 6}
ROLE_NAMES = {number: name for name, number in ROLES.items()}
VISIBILITIES = {"all": 1, "llm_only": 2, "user_only": 3}
VISIBILITY_NAMES = {number: name for name, number in VISIBILITIES.items()}
HOOK_ACTIONS = {1: "continue", 2: "modify", 3: "deny", 4: "inject_context", 5: "ask_user"}
INJECTION_ROLES = {1: "system", 2: "user", 3: "assistant"}
MESSAGE_LEVELS = {1: "info", 2: "warning", 3: "error"}
FIELD_TYPES = {1: "text", 2: "text", 3: "boolean", 4: "secret"}


def _json(value: Any) -> str:
    return "" if value is None else json.dumps(value, default=str)


def _loads(text: str, default: Any = None) -> Any:
    if not text:
        return default
    try:
        return json.loads(text)
    except ValueError:
        return text


# -- content blocks ------------------------------------------------------------------------------------------
def block_to_proto(pb: Any, block: dict[str, Any]) -> Any:
    kind = block.get("type")
    out = pb.ContentBlock()
    if kind == "text":
        out.text_block.text = str(block.get("text", ""))
    elif kind == "thinking":
        out.thinking_block.thinking = str(block.get("thinking", ""))
        out.thinking_block.signature = str(block.get("signature") or "")
        if block.get("content") is not None:
            out.thinking_block.content = _json(block["content"])
    elif kind == "redacted_thinking":
        out.redacted_thinking_block.data = str(block.get("data", ""))
    elif kind == "tool_call":
        out.tool_call_block.id = str(block.get("id", ""))
        out.tool_call_block.name = str(block.get("name", ""))
        out.tool_call_block.input_json = _json(block.get("input") or {})
    elif kind == "tool_result":
        out.tool_result_block.tool_call_id = str(block.get("tool_call_id", ""))
        out.tool_result_block.output_json = _json(block.get("output"))
    elif kind == "image":
        source = block.get("source") or {}
        if source.get("type") == "base64":
            out.image_block.media_type = str(source.get("media_type", ""))
            out.image_block.data = base64.b64decode(source.get("data") or b"")
        else:
            out.image_block.source_json = _json(source)
    elif kind == "reasoning":
        out.reasoning_block.content.extend(str(item) for item in block.get("content") or [])
        out.reasoning_block.summary.extend(str(item) for item in block.get("summary") or [])
    else:
        out.text_block.text = _json(block)
    if block.get("visibility") in VISIBILITIES:
        out.visibility = VISIBILITIES[block["visibility"]]
    return out


def block_from_proto(block: Any) -> dict[str, Any]:
    kind = block.WhichOneof("block")
    out: dict[str, Any]
    if kind == "thinking_block":
        out = {"type": "thinking", "thinking": block.thinking_block.thinking,
               "signature": block.thinking_block.signature or None}
        if block.thinking_block.content:
            out["content"] = _loads(block.thinking_block.content)
    elif kind == "redacted_thinking_block":
        out = {"type": "redacted_thinking", "data": block.redacted_thinking_block.data}
    elif kind == "tool_call_block":
        out = {"type": "tool_call", "id": block.tool_call_block.id, "name": block.tool_call_block.name,
               "input": _loads(block.tool_call_block.input_json, {})}
    elif kind == "tool_result_block":
        out = {"type": "tool_result", "tool_call_id": block.tool_result_block.tool_call_id,
               "output": _loads(block.tool_result_block.output_json)}
    elif kind == "image_block":
        image = block.image_block
        source = _loads(image.source_json, {}) if image.source_json else {
            "type": "base64", "media_type": image.media_type, "data": base64.b64encode(image.data).decode("ascii")}
        out = {"type": "image", "source": source}
    elif kind == "reasoning_block":
        out = {"type": "reasoning", "content": list(block.reasoning_block.content),
               "summary": list(block.reasoning_block.summary)}
    else:
        out = {"type": "text", "text": block.text_block.text}
    if block.visibility in VISIBILITY_NAMES:
        out["visibility"] = VISIBILITY_NAMES[block.visibility]
    return out


# -- messages ------------------------------------------------------------------------------------------------
def message_to_proto(pb: Any, message: Any) -> Any:
    data = message.model_dump(exclude_none=True) if hasattr(message, "model_dump") else dict(message)
    out = pb.Message(role=ROLES.get(str(data.get("role")), 2), name=data.get("name") or "",
                     tool_call_id=data.get("tool_call_id") or "")
    content = data.get("content")
    if isinstance(content, list):
        out.block_content.blocks.extend(block_to_proto(pb, block) for block in content if isinstance(block, dict))
    else:
        out.text_content = "" if content is None else str(content)
    metadata = dict(data.get("metadata") or {})
    extra = {key: value for key, value in data.items() if key not in _MESSAGE_FIELDS}
    if extra:
        metadata[EXTRA_KEY] = extra
    if metadata:
        out.metadata_json = _json(metadata)
    return out


def message_from_proto(message: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"role": ROLE_NAMES.get(message.role, "user")}
    if message.WhichOneof("content") == "block_content":
        out["content"] = [block_from_proto(block) for block in message.block_content.blocks]
    else:
        out["content"] = message.text_content
    if message.name:
        out["name"] = message.name
    if message.tool_call_id:
        out["tool_call_id"] = message.tool_call_id
    metadata = _loads(message.metadata_json, {})
    if isinstance(metadata, dict):
        extra = metadata.pop(EXTRA_KEY, None)
        if isinstance(extra, dict):
            out.update(extra)
        if metadata:
            out["metadata"] = metadata
    return out


# -- providers -----------------------------------------------------------------------------------------------
def chat_request_to_proto(pb: Any, request: ChatRequest) -> Any:
    out = pb.ChatRequest(messages=[message_to_proto(pb, message) for message in request.messages])
    for tool in request.tools or []:
        out.tools.append(pb.ToolSpecProto(name=tool.name, description=tool.description or "",
                                          parameters_json=_json(tool.parameters)))
    response_format = request.response_format
    if response_format is not None:
        kind = getattr(response_format, "type", None)
        if kind == "json":
            out.response_format.json = True
        elif kind == "json_schema":
            out.response_format.json_schema.schema_json = _json(getattr(response_format, "json_schema", {}))
            out.response_format.json_schema.strict = bool(getattr(response_format, "strict", False))
        else:
            out.response_format.text = True
    for name in ("temperature", "top_p", "max_output_tokens", "conversation_id", "model", "reasoning_effort",
                 "timeout"):
        value = getattr(request, name)
        if value is not None:
            setattr(out, name, value)
    out.stream = bool(request.stream)
    if request.metadata:
        out.metadata_json = _json(request.metadata)
    if request.tool_choice is not None:
        out.tool_choice = request.tool_choice if isinstance(request.tool_choice, str) else _json(request.tool_choice)
    out.stop.extend(request.stop or [])
    return out


def usage_from_proto(usage: Any) -> Usage:
    cost = usage.cost_usd if usage.HasField("cost_usd") else None
    return Usage(
        input_tokens=usage.prompt_tokens, output_tokens=usage.completion_tokens,
        total_tokens=usage.total_tokens or usage.prompt_tokens + usage.completion_tokens,
        reasoning_tokens=usage.reasoning_tokens if usage.HasField("reasoning_tokens") else None,
        cache_read_tokens=usage.cache_read_tokens if usage.HasField("cache_read_tokens") else None,
        cache_write_tokens=usage.cache_creation_tokens if usage.HasField("cache_creation_tokens") else None,
        cost_usd=Decimal(cost) if cost else None,
    )


def tool_calls_from_proto(calls: Any) -> list[ToolCall]:
    parsed = []
    for call in calls:
        arguments = _loads(call.arguments_json, {})
        parsed.append(ToolCall(id=call.id, name=call.name,
                               arguments=arguments if isinstance(arguments, dict) else {"value": arguments}))
    return parsed


def chat_response_from_proto(response: Any) -> ChatResponse:
    blocks = [block_from_proto(block) for block in response.content_blocks]
    if not blocks and response.content:
        blocks = [{"type": "text", "text": response.content}]
    calls = tool_calls_from_proto(response.tool_calls)
    present = {block.get("id") for block in blocks if block.get("type") == "tool_call"}
    blocks.extend({"type": "tool_call", "id": call.id, "name": call.name, "input": call.arguments}
                  for call in calls if call.id not in present)
    if not calls:
        calls = [ToolCall(id=block["id"], name=block["name"], arguments=block.get("input") or {})
                 for block in blocks if block.get("type") == "tool_call"]
    metadata = _loads(response.metadata_json, None)
    return ChatResponse.model_validate({
        "content": blocks,
        "tool_calls": [call.model_dump() for call in calls] or None,
        "usage": usage_from_proto(response.usage).model_dump() if response.HasField("usage") else None,
        "degradation": ({"requested": response.degradation.requested, "actual": response.degradation.actual,
                         "reason": response.degradation.reason} if response.HasField("degradation") else None),
        "finish_reason": response.finish_reason or None,
        "metadata": metadata if isinstance(metadata, dict) else None,
    })


def provider_info_from_proto(info: Any, fallback_id: str) -> ProviderInfo:
    fields = []
    for field in info.config_fields:
        field_type = "choice" if field.choices else FIELD_TYPES.get(field.field_type, "text")
        fields.append(ConfigField(
            id=field.id, display_name=field.display_name or field.id, field_type=field_type,
            prompt=field.prompt or field.display_name or field.id, env_var=field.env_var or None,
            choices=list(field.choices) or None, required=field.required, default=field.default_value or None,
            show_when={entry.key: entry.value for entry in field.show_when} or None,
            requires_model=field.requires_model))
    defaults = _loads(info.defaults_json, {})
    return ProviderInfo(id=info.id or fallback_id, display_name=info.display_name or info.id or fallback_id,
                        credential_env_vars=list(info.credential_env_vars), capabilities=list(info.capabilities),
                        defaults=defaults if isinstance(defaults, dict) else {}, config_fields=fields)


def model_info_from_proto(model: Any) -> ModelInfo:
    defaults = _loads(model.defaults_json, {})
    pricing = _loads(model.pricing_json, None)
    return ModelInfo(id=model.id, display_name=model.display_name or model.id,
                     context_window=model.context_window, max_output_tokens=model.max_output_tokens,
                     capabilities=list(model.capabilities), defaults=defaults if isinstance(defaults, dict) else {},
                     pricing=Pricing.model_validate(pricing) if isinstance(pricing, dict) else None)


# -- tools and hooks -----------------------------------------------------------------------------------------
def tool_result_from_proto(response: Any) -> ToolResult:
    blocks = [block_from_proto(block) for block in response.content_blocks]
    content = [block for block in blocks if block["type"] in ("text", "image")] or None
    if not response.success:
        return ToolResult(success=False, error={"message": response.error or "the tool failed"}, content=content)
    output: Any = response.output.decode("utf-8", errors="replace") if response.output else None
    if output is not None and (response.content_type in ("", "application/json")):
        output = _loads(output)
    return ToolResult(success=True, output=output, content=content)


def hook_result_from_proto(result: Any, event: str) -> HookResult:
    data = _loads(result.data_json, None)
    injections = [ContextInjection(content=item.content, role=INJECTION_ROLES.get(item.role, "system"),
                                   ephemeral=item.ephemeral, append_to_last_tool_result=item.append_to_last_tool_result,
                                   hook_name=item.hook_name or "unknown", event=item.event or event)
                  for item in result.context_injections]
    return HookResult(
        action=HOOK_ACTIONS.get(result.action, "continue"),
        data=data if isinstance(data, dict) else None,
        reason=result.reason or None,
        context_injection=result.context_injection or None,
        context_injection_role=INJECTION_ROLES.get(result.context_injection_role, "system"),
        ephemeral=result.ephemeral,
        approval_prompt=result.approval_prompt or None,
        approval_options=list(result.approval_options) or None,
        approval_timeout=result.approval_timeout if result.HasField("approval_timeout") else 300.0,
        approval_default="allow" if result.approval_default == 1 else "deny",
        suppress_output=result.suppress_output,
        user_message=result.user_message or None,
        user_message_level=MESSAGE_LEVELS.get(result.user_message_level, "info"),
        user_message_source=result.user_message_source or None,
        append_to_last_tool_result=result.append_to_last_tool_result,
        context_injections=injections,
    )
