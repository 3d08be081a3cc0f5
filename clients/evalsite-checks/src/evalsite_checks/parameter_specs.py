"""Reference parameter specs: what a reference input accepts besides one literal value.

`{"optional": true}` may be left out (any value when given); `{"any_of": [a, b]}` accepts
either value, each a literal or a placeholder; both together accept absence or one of these.
An object with any other key is a literal (a nested parameter).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SPEC_KEYS = frozenset({"any_of", "optional"})


@dataclass(frozen=True)
class ParameterSpec:
    """What a reference parameter accepts: one of `alternatives` (any value when empty), and
    whether it may be left out."""

    alternatives: tuple
    optional: bool


def parameter_spec(expected: Any) -> ParameterSpec | None:
    """The spec a reference value states, or None for a literal or a placeholder.

    An object whose keys are only `any_of` and `optional` is a spec; any other object is a
    literal value (a nested parameter)."""
    if not (isinstance(expected, dict) and expected and set(expected) <= SPEC_KEYS):
        return None
    any_of = expected.get("any_of")
    return ParameterSpec(
        tuple(any_of) if isinstance(any_of, list) else (), expected.get("optional") is True
    )


def parameter_spec_errors(expected: Any) -> list[str]:
    """What is wrong with a spec, as short messages; empty for a valid spec or a literal."""
    if parameter_spec(expected) is None:
        return []
    errors = []
    if "any_of" in expected and not (isinstance(expected["any_of"], list) and expected["any_of"]):
        errors.append("'any_of' must be a non-empty list of accepted values")
    if "optional" in expected and not isinstance(expected["optional"], bool):
        errors.append("'optional' must be true or false")
    if "any_of" not in expected and expected.get("optional") is not True:
        errors.append("a spec without 'any_of' must say 'optional': true")
    return errors
