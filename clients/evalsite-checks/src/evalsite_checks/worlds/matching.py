"""Which recording answers a call: the trajectory matchers' parameter rules decide.

A recorded argument matches the call's when `parameter_score` (evalsite_checks/parameters.py)
scores it 1.0 without a judge: ISO date vs unix time, numbers as strings, case and whitespace
(unless the tool is marked case sensitive), and specs (`{"optional": true}`, `{"any_of": [...]}`).
Free text the rules cannot decide does not match: a world answers deterministically.
"""

from __future__ import annotations

from typing import Any

from evalsite_checks.parameters import case_sensitive_params, parameter_score


def arguments_match(
    recorded: dict, actual: dict, *, case_sensitive: set[str] = frozenset()
) -> bool:
    """Whether a call's arguments are the recorded ones under the parameter rules.

    An argument the call adds that the recording does not have (other than null) is a
    different call; one it leaves out matches only a recorded `{"optional": true}`.
    """
    if not isinstance(recorded, dict) or not isinstance(actual, dict):
        return False
    for name, value in actual.items():
        if name not in recorded and value is not None:
            return False
    for name, expected in recorded.items():
        score = parameter_score(
            name,
            expected,
            actual.get(name),
            present=name in actual,
            case_sensitive=name in case_sensitive,
        )
        if score.score != 1.0:
            return False
    return True


def world_case_sensitive(world: dict, tool: str, arguments: Any) -> set[str]:
    """The tool's case-sensitive parameters, read from the world's tool list like a context's."""
    names = list(arguments) if isinstance(arguments, dict) else []
    return case_sensitive_params({"available_tools": world.get("tools", [])}, tool, names)


def recording_find(world: dict, tool: str, arguments: dict) -> int | None:
    """The index of the first recording of `tool` these arguments match; None when none does."""
    sensitive = world_case_sensitive(world, tool, arguments)
    for index, recording in enumerate(world.get("recordings", [])):
        if recording["tool"] == tool and arguments_match(
            recording.get("arguments", {}), arguments, case_sensitive=sensitive
        ):
            return index
    return None
