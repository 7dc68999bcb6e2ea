from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ModuleType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MODULE_TYPE_UNSPECIFIED: _ClassVar[ModuleType]
    MODULE_TYPE_PROVIDER: _ClassVar[ModuleType]
    MODULE_TYPE_TOOL: _ClassVar[ModuleType]
    MODULE_TYPE_HOOK: _ClassVar[ModuleType]
    MODULE_TYPE_MEMORY: _ClassVar[ModuleType]
    MODULE_TYPE_GUARDRAIL: _ClassVar[ModuleType]
    MODULE_TYPE_APPROVAL: _ClassVar[ModuleType]

class HealthStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HEALTH_STATUS_UNSPECIFIED: _ClassVar[HealthStatus]
    HEALTH_STATUS_SERVING: _ClassVar[HealthStatus]
    HEALTH_STATUS_NOT_SERVING: _ClassVar[HealthStatus]
    HEALTH_STATUS_UNKNOWN: _ClassVar[HealthStatus]

class ConfigFieldType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CONFIG_FIELD_TYPE_UNSPECIFIED: _ClassVar[ConfigFieldType]
    CONFIG_FIELD_TYPE_STRING: _ClassVar[ConfigFieldType]
    CONFIG_FIELD_TYPE_NUMBER: _ClassVar[ConfigFieldType]
    CONFIG_FIELD_TYPE_BOOLEAN: _ClassVar[ConfigFieldType]
    CONFIG_FIELD_TYPE_SECRET: _ClassVar[ConfigFieldType]

class ProviderErrorType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PROVIDER_ERROR_TYPE_UNSPECIFIED: _ClassVar[ProviderErrorType]
    PROVIDER_ERROR_TYPE_AUTH: _ClassVar[ProviderErrorType]
    PROVIDER_ERROR_TYPE_RATE_LIMIT: _ClassVar[ProviderErrorType]
    PROVIDER_ERROR_TYPE_CONTEXT_LENGTH: _ClassVar[ProviderErrorType]
    PROVIDER_ERROR_TYPE_INVALID_REQUEST: _ClassVar[ProviderErrorType]
    PROVIDER_ERROR_TYPE_CONTENT_FILTER: _ClassVar[ProviderErrorType]
    PROVIDER_ERROR_TYPE_UNAVAILABLE: _ClassVar[ProviderErrorType]
    PROVIDER_ERROR_TYPE_TIMEOUT: _ClassVar[ProviderErrorType]
    PROVIDER_ERROR_TYPE_OTHER: _ClassVar[ProviderErrorType]

class ToolErrorType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOOL_ERROR_TYPE_UNSPECIFIED: _ClassVar[ToolErrorType]
    TOOL_ERROR_TYPE_EXECUTION: _ClassVar[ToolErrorType]
    TOOL_ERROR_TYPE_VALIDATION: _ClassVar[ToolErrorType]
    TOOL_ERROR_TYPE_TIMEOUT: _ClassVar[ToolErrorType]

class HookErrorType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HOOK_ERROR_TYPE_UNSPECIFIED: _ClassVar[HookErrorType]
    HOOK_ERROR_TYPE_EXECUTION: _ClassVar[HookErrorType]
    HOOK_ERROR_TYPE_VALIDATION: _ClassVar[HookErrorType]
    HOOK_ERROR_TYPE_TIMEOUT: _ClassVar[HookErrorType]

class Role(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ROLE_UNSPECIFIED: _ClassVar[Role]
    ROLE_SYSTEM: _ClassVar[Role]
    ROLE_USER: _ClassVar[Role]
    ROLE_ASSISTANT: _ClassVar[Role]
    ROLE_TOOL: _ClassVar[Role]
    ROLE_FUNCTION: _ClassVar[Role]
    ROLE_DEVELOPER: _ClassVar[Role]

class Visibility(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VISIBILITY_UNSPECIFIED: _ClassVar[Visibility]
    VISIBILITY_ALL: _ClassVar[Visibility]
    VISIBILITY_LLM_ONLY: _ClassVar[Visibility]
    VISIBILITY_USER_ONLY: _ClassVar[Visibility]

class HookAction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HOOK_ACTION_UNSPECIFIED: _ClassVar[HookAction]
    HOOK_ACTION_CONTINUE: _ClassVar[HookAction]
    HOOK_ACTION_MODIFY: _ClassVar[HookAction]
    HOOK_ACTION_DENY: _ClassVar[HookAction]
    HOOK_ACTION_INJECT_CONTEXT: _ClassVar[HookAction]
    HOOK_ACTION_ASK_USER: _ClassVar[HookAction]

class ContextInjectionRole(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CONTEXT_INJECTION_ROLE_UNSPECIFIED: _ClassVar[ContextInjectionRole]
    CONTEXT_INJECTION_ROLE_SYSTEM: _ClassVar[ContextInjectionRole]
    CONTEXT_INJECTION_ROLE_USER: _ClassVar[ContextInjectionRole]
    CONTEXT_INJECTION_ROLE_ASSISTANT: _ClassVar[ContextInjectionRole]

class ApprovalDefault(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    APPROVAL_DEFAULT_UNSPECIFIED: _ClassVar[ApprovalDefault]
    APPROVAL_DEFAULT_APPROVE: _ClassVar[ApprovalDefault]
    APPROVAL_DEFAULT_DENY: _ClassVar[ApprovalDefault]

class UserMessageLevel(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    USER_MESSAGE_LEVEL_UNSPECIFIED: _ClassVar[UserMessageLevel]
    USER_MESSAGE_LEVEL_INFO: _ClassVar[UserMessageLevel]
    USER_MESSAGE_LEVEL_WARNING: _ClassVar[UserMessageLevel]
    USER_MESSAGE_LEVEL_ERROR: _ClassVar[UserMessageLevel]
MODULE_TYPE_UNSPECIFIED: ModuleType
MODULE_TYPE_PROVIDER: ModuleType
MODULE_TYPE_TOOL: ModuleType
MODULE_TYPE_HOOK: ModuleType
MODULE_TYPE_MEMORY: ModuleType
MODULE_TYPE_GUARDRAIL: ModuleType
MODULE_TYPE_APPROVAL: ModuleType
HEALTH_STATUS_UNSPECIFIED: HealthStatus
HEALTH_STATUS_SERVING: HealthStatus
HEALTH_STATUS_NOT_SERVING: HealthStatus
HEALTH_STATUS_UNKNOWN: HealthStatus
CONFIG_FIELD_TYPE_UNSPECIFIED: ConfigFieldType
CONFIG_FIELD_TYPE_STRING: ConfigFieldType
CONFIG_FIELD_TYPE_NUMBER: ConfigFieldType
CONFIG_FIELD_TYPE_BOOLEAN: ConfigFieldType
CONFIG_FIELD_TYPE_SECRET: ConfigFieldType
PROVIDER_ERROR_TYPE_UNSPECIFIED: ProviderErrorType
PROVIDER_ERROR_TYPE_AUTH: ProviderErrorType
PROVIDER_ERROR_TYPE_RATE_LIMIT: ProviderErrorType
PROVIDER_ERROR_TYPE_CONTEXT_LENGTH: ProviderErrorType
PROVIDER_ERROR_TYPE_INVALID_REQUEST: ProviderErrorType
PROVIDER_ERROR_TYPE_CONTENT_FILTER: ProviderErrorType
PROVIDER_ERROR_TYPE_UNAVAILABLE: ProviderErrorType
PROVIDER_ERROR_TYPE_TIMEOUT: ProviderErrorType
PROVIDER_ERROR_TYPE_OTHER: ProviderErrorType
TOOL_ERROR_TYPE_UNSPECIFIED: ToolErrorType
TOOL_ERROR_TYPE_EXECUTION: ToolErrorType
TOOL_ERROR_TYPE_VALIDATION: ToolErrorType
TOOL_ERROR_TYPE_TIMEOUT: ToolErrorType
HOOK_ERROR_TYPE_UNSPECIFIED: HookErrorType
HOOK_ERROR_TYPE_EXECUTION: HookErrorType
HOOK_ERROR_TYPE_VALIDATION: HookErrorType
HOOK_ERROR_TYPE_TIMEOUT: HookErrorType
ROLE_UNSPECIFIED: Role
ROLE_SYSTEM: Role
ROLE_USER: Role
ROLE_ASSISTANT: Role
ROLE_TOOL: Role
ROLE_FUNCTION: Role
ROLE_DEVELOPER: Role
VISIBILITY_UNSPECIFIED: Visibility
VISIBILITY_ALL: Visibility
VISIBILITY_LLM_ONLY: Visibility
VISIBILITY_USER_ONLY: Visibility
HOOK_ACTION_UNSPECIFIED: HookAction
HOOK_ACTION_CONTINUE: HookAction
HOOK_ACTION_MODIFY: HookAction
HOOK_ACTION_DENY: HookAction
HOOK_ACTION_INJECT_CONTEXT: HookAction
HOOK_ACTION_ASK_USER: HookAction
CONTEXT_INJECTION_ROLE_UNSPECIFIED: ContextInjectionRole
CONTEXT_INJECTION_ROLE_SYSTEM: ContextInjectionRole
CONTEXT_INJECTION_ROLE_USER: ContextInjectionRole
CONTEXT_INJECTION_ROLE_ASSISTANT: ContextInjectionRole
APPROVAL_DEFAULT_UNSPECIFIED: ApprovalDefault
APPROVAL_DEFAULT_APPROVE: ApprovalDefault
APPROVAL_DEFAULT_DENY: ApprovalDefault
USER_MESSAGE_LEVEL_UNSPECIFIED: UserMessageLevel
USER_MESSAGE_LEVEL_INFO: UserMessageLevel
USER_MESSAGE_LEVEL_WARNING: UserMessageLevel
USER_MESSAGE_LEVEL_ERROR: UserMessageLevel

class Empty(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ToolSpec(_message.Message):
    __slots__ = ("name", "description", "parameters_json")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_JSON_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    parameters_json: str
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., parameters_json: _Optional[str] = ...) -> None: ...

class ToolExecuteRequest(_message.Message):
    __slots__ = ("input", "content_type")
    INPUT_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    input: bytes
    content_type: str
    def __init__(self, input: _Optional[bytes] = ..., content_type: _Optional[str] = ...) -> None: ...

class ToolExecuteResponse(_message.Message):
    __slots__ = ("success", "output", "content_type", "error", "content_blocks")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    CONTENT_BLOCKS_FIELD_NUMBER: _ClassVar[int]
    success: bool
    output: bytes
    content_type: str
    error: str
    content_blocks: _containers.RepeatedCompositeFieldContainer[ContentBlock]
    def __init__(self, success: _Optional[bool] = ..., output: _Optional[bytes] = ..., content_type: _Optional[str] = ..., error: _Optional[str] = ..., content_blocks: _Optional[_Iterable[_Union[ContentBlock, _Mapping]]] = ...) -> None: ...

class ModuleInfo(_message.Message):
    __slots__ = ("id", "name", "version", "module_type", "mount_point", "description", "config_schema_json", "capabilities", "author")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    MODULE_TYPE_FIELD_NUMBER: _ClassVar[int]
    MOUNT_POINT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CONFIG_SCHEMA_JSON_FIELD_NUMBER: _ClassVar[int]
    CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    version: str
    module_type: ModuleType
    mount_point: str
    description: str
    config_schema_json: str
    capabilities: _containers.RepeatedScalarFieldContainer[str]
    author: str
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., version: _Optional[str] = ..., module_type: _Optional[_Union[ModuleType, str]] = ..., mount_point: _Optional[str] = ..., description: _Optional[str] = ..., config_schema_json: _Optional[str] = ..., capabilities: _Optional[_Iterable[str]] = ..., author: _Optional[str] = ...) -> None: ...

class MountRequest(_message.Message):
    __slots__ = ("config", "module_id")
    class ConfigEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    MODULE_ID_FIELD_NUMBER: _ClassVar[int]
    config: _containers.RepeatedCompositeFieldContainer[MountRequest.ConfigEntry]
    module_id: str
    def __init__(self, config: _Optional[_Iterable[_Union[MountRequest.ConfigEntry, _Mapping]]] = ..., module_id: _Optional[str] = ...) -> None: ...

class MountResponse(_message.Message):
    __slots__ = ("success", "error", "status")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    success: bool
    error: str
    status: HealthStatus
    def __init__(self, success: _Optional[bool] = ..., error: _Optional[str] = ..., status: _Optional[_Union[HealthStatus, str]] = ...) -> None: ...

class HealthCheckResponse(_message.Message):
    __slots__ = ("status", "message")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    status: HealthStatus
    message: str
    def __init__(self, status: _Optional[_Union[HealthStatus, str]] = ..., message: _Optional[str] = ...) -> None: ...

class ConfigField(_message.Message):
    __slots__ = ("id", "display_name", "field_type", "prompt", "env_var", "choices", "required", "default_value", "show_when", "requires_model")
    class ShowWhenEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    FIELD_TYPE_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    ENV_VAR_FIELD_NUMBER: _ClassVar[int]
    CHOICES_FIELD_NUMBER: _ClassVar[int]
    REQUIRED_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_VALUE_FIELD_NUMBER: _ClassVar[int]
    SHOW_WHEN_FIELD_NUMBER: _ClassVar[int]
    REQUIRES_MODEL_FIELD_NUMBER: _ClassVar[int]
    id: str
    display_name: str
    field_type: ConfigFieldType
    prompt: str
    env_var: str
    choices: _containers.RepeatedScalarFieldContainer[str]
    required: bool
    default_value: str
    show_when: _containers.RepeatedCompositeFieldContainer[ConfigField.ShowWhenEntry]
    requires_model: bool
    def __init__(self, id: _Optional[str] = ..., display_name: _Optional[str] = ..., field_type: _Optional[_Union[ConfigFieldType, str]] = ..., prompt: _Optional[str] = ..., env_var: _Optional[str] = ..., choices: _Optional[_Iterable[str]] = ..., required: _Optional[bool] = ..., default_value: _Optional[str] = ..., show_when: _Optional[_Iterable[_Union[ConfigField.ShowWhenEntry, _Mapping]]] = ..., requires_model: _Optional[bool] = ...) -> None: ...

class ProviderError(_message.Message):
    __slots__ = ("error_type", "message", "provider_name", "model", "status_code", "retryable", "retry_after")
    ERROR_TYPE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_NAME_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    STATUS_CODE_FIELD_NUMBER: _ClassVar[int]
    RETRYABLE_FIELD_NUMBER: _ClassVar[int]
    RETRY_AFTER_FIELD_NUMBER: _ClassVar[int]
    error_type: ProviderErrorType
    message: str
    provider_name: str
    model: str
    status_code: int
    retryable: bool
    retry_after: float
    def __init__(self, error_type: _Optional[_Union[ProviderErrorType, str]] = ..., message: _Optional[str] = ..., provider_name: _Optional[str] = ..., model: _Optional[str] = ..., status_code: _Optional[int] = ..., retryable: _Optional[bool] = ..., retry_after: _Optional[float] = ...) -> None: ...

class ToolError(_message.Message):
    __slots__ = ("error_type", "message", "tool_name", "stdout", "stderr", "exit_code")
    ERROR_TYPE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    STDOUT_FIELD_NUMBER: _ClassVar[int]
    STDERR_FIELD_NUMBER: _ClassVar[int]
    EXIT_CODE_FIELD_NUMBER: _ClassVar[int]
    error_type: ToolErrorType
    message: str
    tool_name: str
    stdout: str
    stderr: str
    exit_code: int
    def __init__(self, error_type: _Optional[_Union[ToolErrorType, str]] = ..., message: _Optional[str] = ..., tool_name: _Optional[str] = ..., stdout: _Optional[str] = ..., stderr: _Optional[str] = ..., exit_code: _Optional[int] = ...) -> None: ...

class HookError(_message.Message):
    __slots__ = ("error_type", "message", "hook_name")
    ERROR_TYPE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    HOOK_NAME_FIELD_NUMBER: _ClassVar[int]
    error_type: HookErrorType
    message: str
    hook_name: str
    def __init__(self, error_type: _Optional[_Union[HookErrorType, str]] = ..., message: _Optional[str] = ..., hook_name: _Optional[str] = ...) -> None: ...

class AmplifierError(_message.Message):
    __slots__ = ("provider_error", "tool_error", "hook_error", "generic_error", "validation_error")
    PROVIDER_ERROR_FIELD_NUMBER: _ClassVar[int]
    TOOL_ERROR_FIELD_NUMBER: _ClassVar[int]
    HOOK_ERROR_FIELD_NUMBER: _ClassVar[int]
    GENERIC_ERROR_FIELD_NUMBER: _ClassVar[int]
    VALIDATION_ERROR_FIELD_NUMBER: _ClassVar[int]
    provider_error: ProviderError
    tool_error: ToolError
    hook_error: HookError
    generic_error: str
    validation_error: str
    def __init__(self, provider_error: _Optional[_Union[ProviderError, _Mapping]] = ..., tool_error: _Optional[_Union[ToolError, _Mapping]] = ..., hook_error: _Optional[_Union[HookError, _Mapping]] = ..., generic_error: _Optional[str] = ..., validation_error: _Optional[str] = ...) -> None: ...

class TextBlock(_message.Message):
    __slots__ = ("text",)
    TEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    def __init__(self, text: _Optional[str] = ...) -> None: ...

class ThinkingBlock(_message.Message):
    __slots__ = ("thinking", "signature", "content")
    THINKING_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    thinking: str
    signature: str
    content: str
    def __init__(self, thinking: _Optional[str] = ..., signature: _Optional[str] = ..., content: _Optional[str] = ...) -> None: ...

class RedactedThinkingBlock(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: str
    def __init__(self, data: _Optional[str] = ...) -> None: ...

class ToolCallBlock(_message.Message):
    __slots__ = ("id", "name", "input_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    INPUT_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    input_json: str
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., input_json: _Optional[str] = ...) -> None: ...

class ToolResultBlock(_message.Message):
    __slots__ = ("tool_call_id", "output_json")
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_JSON_FIELD_NUMBER: _ClassVar[int]
    tool_call_id: str
    output_json: str
    def __init__(self, tool_call_id: _Optional[str] = ..., output_json: _Optional[str] = ...) -> None: ...

class ImageBlock(_message.Message):
    __slots__ = ("media_type", "data", "source_json")
    MEDIA_TYPE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    SOURCE_JSON_FIELD_NUMBER: _ClassVar[int]
    media_type: str
    data: bytes
    source_json: str
    def __init__(self, media_type: _Optional[str] = ..., data: _Optional[bytes] = ..., source_json: _Optional[str] = ...) -> None: ...

class ReasoningBlock(_message.Message):
    __slots__ = ("content", "summary")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    content: _containers.RepeatedScalarFieldContainer[str]
    summary: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, content: _Optional[_Iterable[str]] = ..., summary: _Optional[_Iterable[str]] = ...) -> None: ...

class ContentBlock(_message.Message):
    __slots__ = ("text_block", "thinking_block", "redacted_thinking_block", "tool_call_block", "tool_result_block", "image_block", "reasoning_block", "visibility")
    TEXT_BLOCK_FIELD_NUMBER: _ClassVar[int]
    THINKING_BLOCK_FIELD_NUMBER: _ClassVar[int]
    REDACTED_THINKING_BLOCK_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_BLOCK_FIELD_NUMBER: _ClassVar[int]
    TOOL_RESULT_BLOCK_FIELD_NUMBER: _ClassVar[int]
    IMAGE_BLOCK_FIELD_NUMBER: _ClassVar[int]
    REASONING_BLOCK_FIELD_NUMBER: _ClassVar[int]
    VISIBILITY_FIELD_NUMBER: _ClassVar[int]
    text_block: TextBlock
    thinking_block: ThinkingBlock
    redacted_thinking_block: RedactedThinkingBlock
    tool_call_block: ToolCallBlock
    tool_result_block: ToolResultBlock
    image_block: ImageBlock
    reasoning_block: ReasoningBlock
    visibility: Visibility
    def __init__(self, text_block: _Optional[_Union[TextBlock, _Mapping]] = ..., thinking_block: _Optional[_Union[ThinkingBlock, _Mapping]] = ..., redacted_thinking_block: _Optional[_Union[RedactedThinkingBlock, _Mapping]] = ..., tool_call_block: _Optional[_Union[ToolCallBlock, _Mapping]] = ..., tool_result_block: _Optional[_Union[ToolResultBlock, _Mapping]] = ..., image_block: _Optional[_Union[ImageBlock, _Mapping]] = ..., reasoning_block: _Optional[_Union[ReasoningBlock, _Mapping]] = ..., visibility: _Optional[_Union[Visibility, str]] = ...) -> None: ...

class ContentBlockList(_message.Message):
    __slots__ = ("blocks",)
    BLOCKS_FIELD_NUMBER: _ClassVar[int]
    blocks: _containers.RepeatedCompositeFieldContainer[ContentBlock]
    def __init__(self, blocks: _Optional[_Iterable[_Union[ContentBlock, _Mapping]]] = ...) -> None: ...

class Message(_message.Message):
    __slots__ = ("role", "text_content", "block_content", "name", "tool_call_id", "metadata_json")
    ROLE_FIELD_NUMBER: _ClassVar[int]
    TEXT_CONTENT_FIELD_NUMBER: _ClassVar[int]
    BLOCK_CONTENT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_JSON_FIELD_NUMBER: _ClassVar[int]
    role: Role
    text_content: str
    block_content: ContentBlockList
    name: str
    tool_call_id: str
    metadata_json: str
    def __init__(self, role: _Optional[_Union[Role, str]] = ..., text_content: _Optional[str] = ..., block_content: _Optional[_Union[ContentBlockList, _Mapping]] = ..., name: _Optional[str] = ..., tool_call_id: _Optional[str] = ..., metadata_json: _Optional[str] = ...) -> None: ...

class ToolCallMessage(_message.Message):
    __slots__ = ("id", "name", "arguments_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    arguments_json: str
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., arguments_json: _Optional[str] = ...) -> None: ...

class ToolSpecProto(_message.Message):
    __slots__ = ("name", "description", "parameters_json")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_JSON_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    parameters_json: str
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., parameters_json: _Optional[str] = ...) -> None: ...

class JsonSchemaFormat(_message.Message):
    __slots__ = ("schema_json", "strict")
    SCHEMA_JSON_FIELD_NUMBER: _ClassVar[int]
    STRICT_FIELD_NUMBER: _ClassVar[int]
    schema_json: str
    strict: bool
    def __init__(self, schema_json: _Optional[str] = ..., strict: _Optional[bool] = ...) -> None: ...

class ResponseFormat(_message.Message):
    __slots__ = ("text", "json", "json_schema")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    JSON_FIELD_NUMBER: _ClassVar[int]
    JSON_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    text: bool
    json: bool
    json_schema: JsonSchemaFormat
    def __init__(self, text: _Optional[bool] = ..., json: _Optional[bool] = ..., json_schema: _Optional[_Union[JsonSchemaFormat, _Mapping]] = ...) -> None: ...

class Usage(_message.Message):
    __slots__ = ("prompt_tokens", "completion_tokens", "total_tokens", "reasoning_tokens", "cache_read_tokens", "cache_creation_tokens", "cost_usd")
    PROMPT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    COMPLETION_TOKENS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_TOKENS_FIELD_NUMBER: _ClassVar[int]
    REASONING_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CACHE_READ_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CACHE_CREATION_TOKENS_FIELD_NUMBER: _ClassVar[int]
    COST_USD_FIELD_NUMBER: _ClassVar[int]
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    reasoning_tokens: int
    cache_read_tokens: int
    cache_creation_tokens: int
    cost_usd: str
    def __init__(self, prompt_tokens: _Optional[int] = ..., completion_tokens: _Optional[int] = ..., total_tokens: _Optional[int] = ..., reasoning_tokens: _Optional[int] = ..., cache_read_tokens: _Optional[int] = ..., cache_creation_tokens: _Optional[int] = ..., cost_usd: _Optional[str] = ...) -> None: ...

class Degradation(_message.Message):
    __slots__ = ("requested", "actual", "reason")
    REQUESTED_FIELD_NUMBER: _ClassVar[int]
    ACTUAL_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    requested: str
    actual: str
    reason: str
    def __init__(self, requested: _Optional[str] = ..., actual: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ChatRequest(_message.Message):
    __slots__ = ("messages", "tools", "response_format", "temperature", "top_p", "max_output_tokens", "conversation_id", "stream", "metadata_json", "model", "tool_choice", "stop", "reasoning_effort", "timeout")
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FORMAT_FIELD_NUMBER: _ClassVar[int]
    TEMPERATURE_FIELD_NUMBER: _ClassVar[int]
    TOP_P_FIELD_NUMBER: _ClassVar[int]
    MAX_OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    STREAM_FIELD_NUMBER: _ClassVar[int]
    METADATA_JSON_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    TOOL_CHOICE_FIELD_NUMBER: _ClassVar[int]
    STOP_FIELD_NUMBER: _ClassVar[int]
    REASONING_EFFORT_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[Message]
    tools: _containers.RepeatedCompositeFieldContainer[ToolSpecProto]
    response_format: ResponseFormat
    temperature: float
    top_p: float
    max_output_tokens: int
    conversation_id: str
    stream: bool
    metadata_json: str
    model: str
    tool_choice: str
    stop: _containers.RepeatedScalarFieldContainer[str]
    reasoning_effort: str
    timeout: float
    def __init__(self, messages: _Optional[_Iterable[_Union[Message, _Mapping]]] = ..., tools: _Optional[_Iterable[_Union[ToolSpecProto, _Mapping]]] = ..., response_format: _Optional[_Union[ResponseFormat, _Mapping]] = ..., temperature: _Optional[float] = ..., top_p: _Optional[float] = ..., max_output_tokens: _Optional[int] = ..., conversation_id: _Optional[str] = ..., stream: _Optional[bool] = ..., metadata_json: _Optional[str] = ..., model: _Optional[str] = ..., tool_choice: _Optional[str] = ..., stop: _Optional[_Iterable[str]] = ..., reasoning_effort: _Optional[str] = ..., timeout: _Optional[float] = ...) -> None: ...

class ChatResponse(_message.Message):
    __slots__ = ("content", "tool_calls", "usage", "degradation", "finish_reason", "metadata_json", "content_blocks")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALLS_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    DEGRADATION_FIELD_NUMBER: _ClassVar[int]
    FINISH_REASON_FIELD_NUMBER: _ClassVar[int]
    METADATA_JSON_FIELD_NUMBER: _ClassVar[int]
    CONTENT_BLOCKS_FIELD_NUMBER: _ClassVar[int]
    content: str
    tool_calls: _containers.RepeatedCompositeFieldContainer[ToolCallMessage]
    usage: Usage
    degradation: Degradation
    finish_reason: str
    metadata_json: str
    content_blocks: _containers.RepeatedCompositeFieldContainer[ContentBlock]
    def __init__(self, content: _Optional[str] = ..., tool_calls: _Optional[_Iterable[_Union[ToolCallMessage, _Mapping]]] = ..., usage: _Optional[_Union[Usage, _Mapping]] = ..., degradation: _Optional[_Union[Degradation, _Mapping]] = ..., finish_reason: _Optional[str] = ..., metadata_json: _Optional[str] = ..., content_blocks: _Optional[_Iterable[_Union[ContentBlock, _Mapping]]] = ...) -> None: ...

class ModelInfo(_message.Message):
    __slots__ = ("id", "display_name", "context_window", "max_output_tokens", "capabilities", "defaults_json", "pricing_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_WINDOW_FIELD_NUMBER: _ClassVar[int]
    MAX_OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    DEFAULTS_JSON_FIELD_NUMBER: _ClassVar[int]
    PRICING_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    display_name: str
    context_window: int
    max_output_tokens: int
    capabilities: _containers.RepeatedScalarFieldContainer[str]
    defaults_json: str
    pricing_json: str
    def __init__(self, id: _Optional[str] = ..., display_name: _Optional[str] = ..., context_window: _Optional[int] = ..., max_output_tokens: _Optional[int] = ..., capabilities: _Optional[_Iterable[str]] = ..., defaults_json: _Optional[str] = ..., pricing_json: _Optional[str] = ...) -> None: ...

class ProviderInfo(_message.Message):
    __slots__ = ("id", "display_name", "credential_env_vars", "capabilities", "defaults_json", "config_fields")
    ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    CREDENTIAL_ENV_VARS_FIELD_NUMBER: _ClassVar[int]
    CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    DEFAULTS_JSON_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELDS_FIELD_NUMBER: _ClassVar[int]
    id: str
    display_name: str
    credential_env_vars: _containers.RepeatedScalarFieldContainer[str]
    capabilities: _containers.RepeatedScalarFieldContainer[str]
    defaults_json: str
    config_fields: _containers.RepeatedCompositeFieldContainer[ConfigField]
    def __init__(self, id: _Optional[str] = ..., display_name: _Optional[str] = ..., credential_env_vars: _Optional[_Iterable[str]] = ..., capabilities: _Optional[_Iterable[str]] = ..., defaults_json: _Optional[str] = ..., config_fields: _Optional[_Iterable[_Union[ConfigField, _Mapping]]] = ...) -> None: ...

class ListModelsResponse(_message.Message):
    __slots__ = ("models",)
    MODELS_FIELD_NUMBER: _ClassVar[int]
    models: _containers.RepeatedCompositeFieldContainer[ModelInfo]
    def __init__(self, models: _Optional[_Iterable[_Union[ModelInfo, _Mapping]]] = ...) -> None: ...

class ParseToolCallsResponse(_message.Message):
    __slots__ = ("tool_calls",)
    TOOL_CALLS_FIELD_NUMBER: _ClassVar[int]
    tool_calls: _containers.RepeatedCompositeFieldContainer[ToolCallMessage]
    def __init__(self, tool_calls: _Optional[_Iterable[_Union[ToolCallMessage, _Mapping]]] = ...) -> None: ...

class ToolResult(_message.Message):
    __slots__ = ("success", "output_json", "error_json", "content_blocks")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_JSON_FIELD_NUMBER: _ClassVar[int]
    ERROR_JSON_FIELD_NUMBER: _ClassVar[int]
    CONTENT_BLOCKS_FIELD_NUMBER: _ClassVar[int]
    success: bool
    output_json: str
    error_json: str
    content_blocks: _containers.RepeatedCompositeFieldContainer[ContentBlock]
    def __init__(self, success: _Optional[bool] = ..., output_json: _Optional[str] = ..., error_json: _Optional[str] = ..., content_blocks: _Optional[_Iterable[_Union[ContentBlock, _Mapping]]] = ...) -> None: ...

class ContextInjection(_message.Message):
    __slots__ = ("content", "role", "ephemeral", "append_to_last_tool_result", "hook_name", "event")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    EPHEMERAL_FIELD_NUMBER: _ClassVar[int]
    APPEND_TO_LAST_TOOL_RESULT_FIELD_NUMBER: _ClassVar[int]
    HOOK_NAME_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    content: str
    role: ContextInjectionRole
    ephemeral: bool
    append_to_last_tool_result: bool
    hook_name: str
    event: str
    def __init__(self, content: _Optional[str] = ..., role: _Optional[_Union[ContextInjectionRole, str]] = ..., ephemeral: _Optional[bool] = ..., append_to_last_tool_result: _Optional[bool] = ..., hook_name: _Optional[str] = ..., event: _Optional[str] = ...) -> None: ...

class HookResult(_message.Message):
    __slots__ = ("action", "data_json", "reason", "context_injection", "context_injection_role", "ephemeral", "approval_prompt", "approval_options", "approval_timeout", "approval_default", "suppress_output", "user_message", "user_message_level", "user_message_source", "append_to_last_tool_result", "context_injections")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_INJECTION_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_INJECTION_ROLE_FIELD_NUMBER: _ClassVar[int]
    EPHEMERAL_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_PROMPT_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_DEFAULT_FIELD_NUMBER: _ClassVar[int]
    SUPPRESS_OUTPUT_FIELD_NUMBER: _ClassVar[int]
    USER_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    USER_MESSAGE_LEVEL_FIELD_NUMBER: _ClassVar[int]
    USER_MESSAGE_SOURCE_FIELD_NUMBER: _ClassVar[int]
    APPEND_TO_LAST_TOOL_RESULT_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_INJECTIONS_FIELD_NUMBER: _ClassVar[int]
    action: HookAction
    data_json: str
    reason: str
    context_injection: str
    context_injection_role: ContextInjectionRole
    ephemeral: bool
    approval_prompt: str
    approval_options: _containers.RepeatedScalarFieldContainer[str]
    approval_timeout: float
    approval_default: ApprovalDefault
    suppress_output: bool
    user_message: str
    user_message_level: UserMessageLevel
    user_message_source: str
    append_to_last_tool_result: bool
    context_injections: _containers.RepeatedCompositeFieldContainer[ContextInjection]
    def __init__(self, action: _Optional[_Union[HookAction, str]] = ..., data_json: _Optional[str] = ..., reason: _Optional[str] = ..., context_injection: _Optional[str] = ..., context_injection_role: _Optional[_Union[ContextInjectionRole, str]] = ..., ephemeral: _Optional[bool] = ..., approval_prompt: _Optional[str] = ..., approval_options: _Optional[_Iterable[str]] = ..., approval_timeout: _Optional[float] = ..., approval_default: _Optional[_Union[ApprovalDefault, str]] = ..., suppress_output: _Optional[bool] = ..., user_message: _Optional[str] = ..., user_message_level: _Optional[_Union[UserMessageLevel, str]] = ..., user_message_source: _Optional[str] = ..., append_to_last_tool_result: _Optional[bool] = ..., context_injections: _Optional[_Iterable[_Union[ContextInjection, _Mapping]]] = ...) -> None: ...

class HookHandleRequest(_message.Message):
    __slots__ = ("event", "data_json")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    event: str
    data_json: str
    def __init__(self, event: _Optional[str] = ..., data_json: _Optional[str] = ...) -> None: ...

class GetSubscriptionsRequest(_message.Message):
    __slots__ = ("config_json",)
    CONFIG_JSON_FIELD_NUMBER: _ClassVar[int]
    config_json: str
    def __init__(self, config_json: _Optional[str] = ...) -> None: ...

class EventSubscription(_message.Message):
    __slots__ = ("event", "priority", "name")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    event: str
    priority: int
    name: str
    def __init__(self, event: _Optional[str] = ..., priority: _Optional[int] = ..., name: _Optional[str] = ...) -> None: ...

class GetSubscriptionsResponse(_message.Message):
    __slots__ = ("subscriptions",)
    SUBSCRIPTIONS_FIELD_NUMBER: _ClassVar[int]
    subscriptions: _containers.RepeatedCompositeFieldContainer[EventSubscription]
    def __init__(self, subscriptions: _Optional[_Iterable[_Union[EventSubscription, _Mapping]]] = ...) -> None: ...

class ApprovalRequest(_message.Message):
    __slots__ = ("tool_name", "action", "details_json", "risk_level", "timeout")
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    DETAILS_JSON_FIELD_NUMBER: _ClassVar[int]
    RISK_LEVEL_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    tool_name: str
    action: str
    details_json: str
    risk_level: str
    timeout: float
    def __init__(self, tool_name: _Optional[str] = ..., action: _Optional[str] = ..., details_json: _Optional[str] = ..., risk_level: _Optional[str] = ..., timeout: _Optional[float] = ...) -> None: ...

class ApprovalResponse(_message.Message):
    __slots__ = ("approved", "reason", "remember")
    APPROVED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REMEMBER_FIELD_NUMBER: _ClassVar[int]
    approved: bool
    reason: str
    remember: bool
    def __init__(self, approved: _Optional[bool] = ..., reason: _Optional[str] = ..., remember: _Optional[bool] = ...) -> None: ...

class OrchestratorExecuteRequest(_message.Message):
    __slots__ = ("prompt", "session_id")
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    prompt: str
    session_id: str
    def __init__(self, prompt: _Optional[str] = ..., session_id: _Optional[str] = ...) -> None: ...

class OrchestratorExecuteResponse(_message.Message):
    __slots__ = ("response", "error")
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    response: str
    error: str
    def __init__(self, response: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class AddMessageRequest(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: Message
    def __init__(self, message: _Optional[_Union[Message, _Mapping]] = ...) -> None: ...

class GetMessagesResponse(_message.Message):
    __slots__ = ("messages",)
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[Message]
    def __init__(self, messages: _Optional[_Iterable[_Union[Message, _Mapping]]] = ...) -> None: ...

class GetMessagesForRequestParams(_message.Message):
    __slots__ = ("token_budget", "provider_name")
    TOKEN_BUDGET_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_NAME_FIELD_NUMBER: _ClassVar[int]
    token_budget: int
    provider_name: str
    def __init__(self, token_budget: _Optional[int] = ..., provider_name: _Optional[str] = ...) -> None: ...

class SetMessagesRequest(_message.Message):
    __slots__ = ("messages",)
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[Message]
    def __init__(self, messages: _Optional[_Iterable[_Union[Message, _Mapping]]] = ...) -> None: ...

class CompleteWithProviderRequest(_message.Message):
    __slots__ = ("provider_name", "request")
    PROVIDER_NAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    provider_name: str
    request: ChatRequest
    def __init__(self, provider_name: _Optional[str] = ..., request: _Optional[_Union[ChatRequest, _Mapping]] = ...) -> None: ...

class ExecuteToolRequest(_message.Message):
    __slots__ = ("tool_name", "input_json")
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    INPUT_JSON_FIELD_NUMBER: _ClassVar[int]
    tool_name: str
    input_json: str
    def __init__(self, tool_name: _Optional[str] = ..., input_json: _Optional[str] = ...) -> None: ...

class EmitHookRequest(_message.Message):
    __slots__ = ("event", "data_json")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    event: str
    data_json: str
    def __init__(self, event: _Optional[str] = ..., data_json: _Optional[str] = ...) -> None: ...

class EmitHookAndCollectRequest(_message.Message):
    __slots__ = ("event", "data_json", "timeout_seconds")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    event: str
    data_json: str
    timeout_seconds: float
    def __init__(self, event: _Optional[str] = ..., data_json: _Optional[str] = ..., timeout_seconds: _Optional[float] = ...) -> None: ...

class EmitHookAndCollectResponse(_message.Message):
    __slots__ = ("responses_json",)
    RESPONSES_JSON_FIELD_NUMBER: _ClassVar[int]
    responses_json: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, responses_json: _Optional[_Iterable[str]] = ...) -> None: ...

class GetMessagesRequest(_message.Message):
    __slots__ = ("session_id",)
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    def __init__(self, session_id: _Optional[str] = ...) -> None: ...

class KernelAddMessageRequest(_message.Message):
    __slots__ = ("session_id", "message")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    message: Message
    def __init__(self, session_id: _Optional[str] = ..., message: _Optional[_Union[Message, _Mapping]] = ...) -> None: ...

class GetMountedModuleRequest(_message.Message):
    __slots__ = ("module_name", "module_type")
    MODULE_NAME_FIELD_NUMBER: _ClassVar[int]
    MODULE_TYPE_FIELD_NUMBER: _ClassVar[int]
    module_name: str
    module_type: ModuleType
    def __init__(self, module_name: _Optional[str] = ..., module_type: _Optional[_Union[ModuleType, str]] = ...) -> None: ...

class GetMountedModuleResponse(_message.Message):
    __slots__ = ("found", "info")
    FOUND_FIELD_NUMBER: _ClassVar[int]
    INFO_FIELD_NUMBER: _ClassVar[int]
    found: bool
    info: ModuleInfo
    def __init__(self, found: _Optional[bool] = ..., info: _Optional[_Union[ModuleInfo, _Mapping]] = ...) -> None: ...

class RegisterCapabilityRequest(_message.Message):
    __slots__ = ("name", "value_json")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_JSON_FIELD_NUMBER: _ClassVar[int]
    name: str
    value_json: str
    def __init__(self, name: _Optional[str] = ..., value_json: _Optional[str] = ...) -> None: ...

class GetCapabilityRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class GetCapabilityResponse(_message.Message):
    __slots__ = ("found", "value_json")
    FOUND_FIELD_NUMBER: _ClassVar[int]
    VALUE_JSON_FIELD_NUMBER: _ClassVar[int]
    found: bool
    value_json: str
    def __init__(self, found: _Optional[bool] = ..., value_json: _Optional[str] = ...) -> None: ...
