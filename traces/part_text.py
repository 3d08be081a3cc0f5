"""A Google Gen AI SDK `Part` written as its text (pydantic's str(): `media_resolution=None ...
function_call=FunctionCall(\n  args={...},\n  name='lookup_order'\n) ...`), read as the function
call or response it holds. OpenLLMetry's Gemini instrumentation before 0.58 records each part
of the history that is not text so, in `gen_ai.prompt.N.content`. Nothing is evaluated: the
call is parsed, its literal fields read by ast.literal_eval."""

from __future__ import annotations

import ast
import re

from traces.repr_fields import repr_fields

# A part's str() opens with a field name; the fields read, each as the block key messages read.
_PART_OPENING = re.compile(r"[a-z_]+=")
_PART_FIELDS = {
    "function_call": "FunctionCall(",
    "function_response": "FunctionResponse(",
}
# `<FunctionResponseScheduling.SILENT: 'SILENT'>`: an enum member, read as its value.
_ENUM_REPR = re.compile(r"<[\w.]+: ('[^'\n]*'|-?\d+)>")
PART_TEXT_MAX_CHARS = 200_000


def part_text_read(text: str) -> dict | None:
    """`{"function_call": {name, args, id}}` or `{"function_response": {name, response, id}}`
    for a part's str() that holds one; None for any other text."""
    if "=Function" not in text or not _PART_OPENING.match(text):
        return None
    if len(text) > PART_TEXT_MAX_CHARS:
        return None
    for part in repr_fields(text, spaced=True):
        key, _, value = part.partition("=")
        if key in _PART_FIELDS and value.startswith(_PART_FIELDS[key]):
            fields = _call_fields(value.strip())
            if fields is not None and isinstance(fields.get("name"), str):
                return {key: fields}
    return None


def _call_fields(expression: str) -> dict | None:
    """`FunctionCall(args={...}, name='x')` as its literal keyword fields; None when it does not
    parse as a call."""
    try:
        node = ast.parse(_ENUM_REPR.sub(r"\1", expression), mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if not isinstance(node, ast.Call):
        return None
    fields = {}
    for keyword in node.keywords:
        try:
            fields[keyword.arg] = ast.literal_eval(keyword.value)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue  # a nested object: not what the call or its response says
    return fields
