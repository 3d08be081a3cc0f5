"""JSON that arrives as text: instrumentations write tool arguments, results and schemas either
as data or as its JSON text, and readers want the data either way."""

from __future__ import annotations

import json


def json_text_decoded(value):
    """A JSON object or array given as text, decoded; anything else as it came."""
    if isinstance(value, str):
        stripped = value.strip()
        if stripped[:1] in ("{", "[") and stripped[-1:] in ("}", "]"):
            try:
                return json.loads(stripped)
            except ValueError:
                return value
    return value
