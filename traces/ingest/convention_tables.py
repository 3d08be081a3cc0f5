"""The attribute names of OpenTelemetry GenAI, OpenInference, OpenLLMetry/Traceloop, Langfuse
and agent code, as tables from which traces.ingest.conventions maps spans.

Tables are ordered by precedence: the first attribute present wins.
"""

from traces.models import SpanKind

# (attribute, {value: kind}) tried in order; a value missing from the map falls through.
KIND_BY_ATTRIBUTE: list[tuple[str, dict[str, str]]] = [
    (
        "langfuse.observation.type",
        {
            "generation": SpanKind.LLM,
            "agent": SpanKind.AGENT,
            "tool": SpanKind.TOOL,
            "retriever": SpanKind.RETRIEVER,
            "embedding": SpanKind.RETRIEVER,
            "chain": SpanKind.CUSTOM,
            "span": SpanKind.CUSTOM,
            "evaluator": SpanKind.CUSTOM,
            "guardrail": SpanKind.CUSTOM,
            "event": SpanKind.CUSTOM,
        },
    ),
    (
        "openinference.span.kind",
        {
            "LLM": SpanKind.LLM,
            "AGENT": SpanKind.AGENT,
            "TOOL": SpanKind.TOOL,
            "RETRIEVER": SpanKind.RETRIEVER,
            "RERANKER": SpanKind.RETRIEVER,
            "EMBEDDING": SpanKind.RETRIEVER,
            "CHAIN": SpanKind.CUSTOM,
            "GUARDRAIL": SpanKind.CUSTOM,
            "EVALUATOR": SpanKind.CUSTOM,
            "PROMPT": SpanKind.CUSTOM,
        },
    ),
    (
        # MLflow Tracing's span types (its values decoded from JSON: traces.ingest.mlflow_spans)
        "mlflow.spanType",
        {
            "CHAT_MODEL": SpanKind.LLM,
            "LLM": SpanKind.LLM,
            "AGENT": SpanKind.AGENT,
            "TOOL": SpanKind.TOOL,
            "RETRIEVER": SpanKind.RETRIEVER,
            "RERANKER": SpanKind.RETRIEVER,
            "EMBEDDING": SpanKind.RETRIEVER,
            "CHAIN": SpanKind.CUSTOM,
            "WORKFLOW": SpanKind.CUSTOM,
            "TASK": SpanKind.CUSTOM,
            "PARSER": SpanKind.CUSTOM,
            "MEMORY": SpanKind.CUSTOM,
            "GUARDRAIL": SpanKind.CUSTOM,
            "EVALUATOR": SpanKind.CUSTOM,
            "UNKNOWN": SpanKind.CUSTOM,
        },
    ),
    (
        # An MCP request: a tool call, or a read of a resource or prompt (not a tool the agent
        # chose). Before the operation name: an MCP server span says `execute_tool` too.
        "mcp.method.name",
        {
            "tools/call": SpanKind.TOOL,
            "resources/read": SpanKind.RETRIEVER,
            "prompts/get": SpanKind.RETRIEVER,
        },
    ),
    (
        "gen_ai.operation.name",
        {
            "chat": SpanKind.LLM,
            "generate_content": SpanKind.LLM,
            "text_completion": SpanKind.LLM,
            "completion": SpanKind.LLM,
            "generate": SpanKind.LLM,
            "call_llm": SpanKind.LLM,
            "embeddings": SpanKind.RETRIEVER,
            "retrieval": SpanKind.RETRIEVER,
            "execute_tool": SpanKind.TOOL,
            "invoke_agent": SpanKind.AGENT,
            "agent_run": SpanKind.AGENT,
            "create_agent": SpanKind.AGENT,
            "invoke_workflow": SpanKind.AGENT,
            "plan": SpanKind.AGENT,
        },
    ),
    (
        "traceloop.span.kind",
        {
            "workflow": SpanKind.AGENT,
            "agent": SpanKind.AGENT,
            "tool": SpanKind.TOOL,
            "task": SpanKind.CUSTOM,
        },
    ),
    (
        # The Vercel AI SDK: a call of generateText/streamText runs the agent's steps, each a
        # provider call (`doGenerate`, `doStream`) and its tool calls.
        "ai.operationId",
        {
            "ai.generateText": SpanKind.AGENT,
            "ai.streamText": SpanKind.AGENT,
            "ai.generateObject": SpanKind.AGENT,
            "ai.streamObject": SpanKind.AGENT,
            "ai.generateText.doGenerate": SpanKind.LLM,
            "ai.streamText.doStream": SpanKind.LLM,
            "ai.generateObject.doGenerate": SpanKind.LLM,
            "ai.streamObject.doStream": SpanKind.LLM,
            "ai.toolCall": SpanKind.TOOL,
            "ai.embed": SpanKind.RETRIEVER,
            "ai.embedMany": SpanKind.RETRIEVER,
        },
    ),
]
# Haystack's tracer names a component span's kind nowhere but in its class
# (`haystack.component.type`): the class name's ending, tried in order, decides.
COMPONENT_TYPE = "haystack.component.type"
COMPONENT_TYPE_ENDINGS: tuple[tuple[str, str], ...] = (
    ("Generator", SpanKind.LLM),  # OpenAIChatGenerator, AnthropicChatGenerator, ...
    ("Agent", SpanKind.AGENT),
    ("Retriever", SpanKind.RETRIEVER),
    ("Embedder", SpanKind.RETRIEVER),
    ("Ranker", SpanKind.RETRIEVER),
)
# Any of these present means an agent's run (Haystack's `haystack.agent.run`).
AGENT_MARKERS = ("haystack.agent.max_steps",)
# Inputs a tracer writes as the Python repr of their objects when they are no JSON (Haystack's
# ChatMessages and Tools): read back by traces.messages.keyword_repr_read.
REPR_INPUT_ATTRIBUTES = frozenset(("haystack.component.input", "haystack.agent.step.llm.input"))
# Any of these set to true marks a failed tool call, whether or not its result was traced.
TOOL_ERROR_FLAGS = ("haystack.tool.error",)
# Any of these present means a tool span even without an operation name (e.g. Pydantic AI).
TOOL_MARKERS = (
    "gen_ai.tool.name",
    "gen_ai.tool.call.id",
    "tool.name",
    "gcp.vertex.agent.tool_call_args",
    "tool_arguments",
    "ai.toolCall.name",
    "haystack.tool.name",  # Haystack 3's `haystack.agent.step.tool`: one span a call
)
# A model call's messages; beside them, these tool call attributes name the call the model
# decided (OpenLIT writes its first decided call so on a chat span), not a call the span ran.
MODEL_MESSAGE_ATTRIBUTES = frozenset(("gen_ai.input.messages", "gen_ai.output.messages"))
DECIDED_CALL_ATTRIBUTES = frozenset(
    ("gen_ai.tool.name", "gen_ai.tool.call.id", "gen_ai.tool.args", "gen_ai.tool.call.arguments")
)
# Any of these present means a model call, also on spans with no gen_ai.* attribute at all.
LLM_MARKERS = (
    "gen_ai.request.model",
    "llm.model_name",
    "gen_ai.prompt.0.content",
    "llm.input_messages.0.message.role",
    "gcp.vertex.agent.llm_request",
    "gen_ai.input.messages",
    "haystack.agent.step.llm.input",  # Haystack 3's `haystack.agent.step.llm`, content traced
    "haystack.agent.step.llm.output",
)
# Span-tree JSON `type` values and their common synonyms.
KIND_SYNONYMS = {
    "agent": SpanKind.AGENT,
    "chain": SpanKind.CUSTOM,
    "workflow": SpanKind.AGENT,
    "llm": SpanKind.LLM,
    "generation": SpanKind.LLM,
    "chat": SpanKind.LLM,
    "model": SpanKind.LLM,
    "tool": SpanKind.TOOL,
    "function": SpanKind.TOOL,
    "retriever": SpanKind.RETRIEVER,
    "retrieval": SpanKind.RETRIEVER,
    "embedding": SpanKind.RETRIEVER,
    "custom": SpanKind.CUSTOM,
    "span": SpanKind.CUSTOM,
}

# Scalar span fields: first attribute present wins.
SPAN_FIELDS: dict[str, tuple[str, ...]] = {
    "tool_name": (
        "gen_ai.tool.name",
        "tool.name",
        "tool_call.function.name",
        "ai.toolCall.name",
        "haystack.tool.name",
    ),
    "tool_call_id": (
        "gen_ai.tool.call.id",
        "tool_call.id",
        "tool.id",
        "jsonrpc.request.id",
        "ai.toolCall.id",
    ),
    "model": (
        "langfuse.observation.model.name",
        "gen_ai.response.model",
        "gen_ai.request.model",
        "llm.response.model_name",
        "llm.model_name",
        "llm.request.model_name",
        "ai.model.id",
        "mlflow.llm.model",
    ),
    "provider": (
        "gen_ai.provider.name",
        "gen_ai.system",
        "llm.provider",
        "llm.system",
        "mlflow.llm.provider",
    ),
    "input_tokens": (
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.prompt_tokens",
        "llm.token_count.prompt",
    ),
    "output_tokens": (
        "gen_ai.usage.output_tokens",
        "gen_ai.usage.completion_tokens",
        "llm.token_count.completion",
    ),
    "cost_usd": (
        "gen_ai.usage.cost",
        "gen_ai.usage.total_cost",
        "llm.cost.total",
        "operation.cost",  # pydantic-ai
        "gen_ai.cost.total_cost",  # LiteLLM's, after its discounts and margins
    ),
    "error_type": ("error.type", "exception.type"),
    "agent_name": ("gen_ai.agent.name", "agent.name", "agent_name"),
}
# Values a trace takes from its spans; the root span's value is preferred.
TRACE_FIELDS: dict[str, tuple[str, ...]] = {
    # a crew's task list: OpenInference's `crew_tasks`, OpenLLMetry's `crewai.crew.tasks`
    "task": ("agent.task", "langfuse.trace.input", "crew_tasks", "crewai.crew.tasks"),
    "final_answer": ("agent.final_answer", "langfuse.trace.output"),
    "stop_reason": ("agent.stop_reason",),
    "task_type": ("agent.task_type", "evalsite.task_type"),
    "agent_name": ("gen_ai.agent.name", "agent.name", "service.name"),
    "agent_version": ("gen_ai.agent.version", "agent.version", "service.version"),
    "conversation_id": (
        "gen_ai.conversation.id",
        "session.id",
        "langfuse.session.id",
        "ai.telemetry.metadata.sessionId",
    ),
    "tags": ("tag.tags", "langfuse.trace.tags"),
}
# Structured values: first present wins; a JSON string is decoded.
# Framework dialects: pydantic-ai (`tool_arguments`, `tool_response`, `pydantic_ai.all_messages`,
# `final_result`), google-adk (`gcp.vertex.agent.*`), OpenInference (`input.value`, ...).
INPUT_ATTRIBUTES = (
    "langfuse.observation.input",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.input",
    "gen_ai.tool.args",  # agent-wrapper libraries: the arguments as a JSON string
    "ai.toolCall.args",  # the Vercel AI SDK's
    "tool_arguments",
    "gcp.vertex.agent.tool_call_args",
    "tool.arguments",  # OpenLLMetry's LlamaIndex: a tool-calling step's arguments
    "input.value",
    "haystack.component.input",  # Haystack's tracer, with content tracing on
    "haystack.agent.input",
    "haystack.agent.step.llm.input",  # Haystack 3's model call: the generator's arguments
    "haystack.agent.step.tool.input",  # and a tool call's arguments
    "tool.parameters",
    "traceloop.entity.input",
    "gen_ai.input.messages",
    "gcp.vertex.agent.llm_request",
    "pydantic_ai.all_messages",
    "all_messages_events",
    "gen_ai.prompt",
    "ai.prompt.messages",  # the Vercel AI SDK's: a provider call's messages
    "ai.prompt",  # and the whole call's `{system, prompt}` or `{system, messages}`
    "mastra.agent_run.input",  # Mastra's: what its agent was asked
    "mastra.model_step.input",  # and a turn of its model loop's messages (a preview)
    "request_data",  # Logfire's LLM instrumentations: the request body (its former attributes)
    "mlflow.spanInputs",  # MLflow's: a traced function's arguments, a model call's request
)
OUTPUT_ATTRIBUTES = (
    "langfuse.observation.output",
    "gen_ai.tool.call.result",
    "gen_ai.tool.output",
    "ai.toolCall.result",  # the Vercel AI SDK's
    "tool_response",
    "gcp.vertex.agent.tool_response",
    "output.value",
    "haystack.component.output",
    "haystack.agent.output",
    "haystack.agent.step.llm.output",  # `{"replies": [...]}`
    "haystack.agent.step.tool.output",  # the tool's result, or `{"error": ...}`
    "traceloop.entity.output",
    "gen_ai.output.messages",
    "gcp.vertex.agent.llm_response",
    "final_result",
    "gen_ai.completion",
    "gen_ai.output",  # agent-wrapper libraries: a tool's result, or a model call's answer
    "ai.response.text",  # the Vercel AI SDK's (its tool calls: conventions.ai_sdk_reply)
    "mastra.agent_run.output",  # Mastra's: its agent's answer `{text, files}`
    "mastra.model_step.output",  # and a turn's whole reply `{text, toolCalls}`
    "response_data",  # Logfire's: `{message, usage}` of a chat completion, whole or streamed
    "mlflow.spanOutputs",  # MLflow's: a traced function's return, a model call's response
)
# Flattened message lists: prefix -> what it fills.
FLATTENED_INPUT_PREFIXES = ("llm.input_messages", "gen_ai.prompt")
FLATTENED_OUTPUT_PREFIXES = ("llm.output_messages", "gen_ai.completion")
FLATTENED_STARTS = tuple(p + "." for p in FLATTENED_INPUT_PREFIXES + FLATTENED_OUTPUT_PREFIXES)
# Span events that carry content (pre-1.37 GenAI); event name -> (field, attribute or None).
CONTENT_EVENTS: dict[str, tuple[str, str | None]] = {
    "gen_ai.content.prompt": ("input", "gen_ai.prompt"),
    "gen_ai.content.completion": ("output", "gen_ai.completion"),
    "gen_ai.system.message": ("input", None),
    "gen_ai.user.message": ("input", None),
    "gen_ai.assistant.message": ("input", None),
    "gen_ai.tool.message": ("input", None),
    "gen_ai.choice": ("output", None),
}
# Old provider spellings normalised to gen_ai.provider.name values.
PROVIDER_ALIASES = {
    "vertex_ai": "gcp.vertex_ai",
    "gemini": "gcp.gemini",
    "az.ai.inference": "azure.ai.inference",
    "az.ai.openai": "azure.ai.openai",
    "xai": "x_ai",
}
# A framework's own cost figures: a total, else input and output parts that add up to it.
# OpenInference agent and chain spans repeat their model calls' token sums under these.
AGGREGATE_TOKENS = frozenset(("llm.token_count.prompt", "llm.token_count.completion"))

COST_PART_ATTRIBUTES = (
    ("gen_ai.usage.input_cost", "gen_ai.usage.output_cost"),
    ("llm.cost.prompt", "llm.cost.completion"),
    ("gen_ai.cost.input_cost", "gen_ai.cost.output_cost"),  # LiteLLM's
)

# Langfuse's usage and cost of a generation, each a JSON object by usage type. Usage is
# Langfuse's own (`input`, `output`, `total`, and parts such as `input_cached_tokens`, every
# key holding `input` an input part) or a provider's usage object as its OpenAI wrapper passes
# it (`prompt_tokens`, `completion_tokens`; `input_tokens`, `output_tokens`). Cost is USD by
# type, `total` else the sum of the parts.
LANGFUSE_USAGE = "langfuse.observation.usage_details"
LANGFUSE_COST = "langfuse.observation.cost_details"
# A provider's own keys in a usage object, (input, output), tried in order.
USAGE_OBJECT_KEYS = (("prompt_tokens", "completion_tokens"), ("input_tokens", "output_tokens"))
# Anthropic's input parts beside `input_tokens`, which counts neither.
USAGE_CACHE_INPUT_KEYS = ("cache_read_input_tokens", "cache_creation_input_tokens")
# Langfuse's observation type: its generation's input lists the tools offered (`tools`, or the
# legacy `functions`) beside the messages, and `@observe` records a function's arguments as
# `{"args": [...], "kwargs": {...}}`.
LANGFUSE_TYPE = "langfuse.observation.type"
# An observation at level ERROR failed, its status message saying why (the Python SDK sets the
# span's status too; a sender that writes the attributes alone may not).
LANGFUSE_LEVEL, LANGFUSE_STATUS_MESSAGE = (
    "langfuse.observation.level",
    "langfuse.observation.status_message",
)
OFFERED_TOOL_KEYS = ("tools", "functions")
