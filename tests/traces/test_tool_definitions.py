"""tools_offered: the tool definitions of every form read into name, description, parameters."""

import json

import pytest

from traces.tool_definitions import tools_offered

SCHEMA = {
    "type": "object",
    "properties": {
        "limit": {"type": "integer"},
        "customer_id": {"type": "string", "description": "The customer's id"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["customer_id"],
}


@pytest.mark.parametrize(
    "definition",
    [
        {"type": "function", "function": {"name": "get_orders", "parameters": SCHEMA}},  # OpenAI
        {"type": "function", "name": "get_orders", "parameters": SCHEMA},  # GenAI, responses
        {"name": "get_orders", "input_schema": SCHEMA},  # Anthropic
        {"name": "get_orders", "inputSchema": SCHEMA},  # MCP
        {"tool": {"json_schema": json.dumps({"name": "get_orders", "parameters": SCHEMA})}},
        json.dumps({"name": "get_orders", "input_schema": SCHEMA}),  # JSON text
    ],
)
def test_each_form_gives_the_name_and_parameters_required_first(definition):
    (tool,) = tools_offered([definition])

    assert tool.name == "get_orders"
    assert [(p.name, p.type, p.required) for p in tool.parameters] == [
        ("customer_id", "string", True),
        ("limit", "integer", False),
        ("tags", "array of string", False),
    ]
    assert tool.parameters[0].description == "The customer's id"


def test_bare_names_and_unreadable_entries():
    tools = tools_offered(["lookup", {"no": "name"}, 7])

    assert [(t.name, t.parameters) for t in tools] == [("lookup", [])]
    assert tools_offered(None) == [] and tools_offered("not json") == []
