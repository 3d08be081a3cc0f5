import json

from django import template
from evalsite_checks.parameter_specs import parameter_spec

register = template.Library()


@register.filter
def as_json(value, indent=None) -> str:
    """JSON text of a value for display; returned unmarked, so the template still escapes it."""
    return json.dumps(value, ensure_ascii=False, indent=int(indent) if indent else None)


@register.simple_tag
def reference_value(value) -> dict:
    """How a reference input reads on the page: a spec's accepted values and whether it may be
    left out, or the literal itself."""
    spec = parameter_spec(value)
    if spec is None:
        return {"spec": False, "any_of": [], "optional": False}
    return {"spec": True, "any_of": list(spec.alternatives), "optional": spec.optional}


@register.simple_tag
def recordings_of(world: dict, tool: str) -> int:
    """How many recorded calls of `tool` a tool world holds."""
    return sum(1 for r in (world or {}).get("recordings", []) if r.get("tool") == tool)
