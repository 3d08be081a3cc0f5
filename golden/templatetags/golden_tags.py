import json

from django import template

register = template.Library()


@register.filter
def as_json(value, indent=None) -> str:
    """JSON text of a value for display; returned unmarked, so the template still escapes it."""
    return json.dumps(value, ensure_ascii=False, indent=int(indent) if indent else None)
