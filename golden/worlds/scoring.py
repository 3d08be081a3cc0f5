"""What a trial met in its tool world: its served calls in order, and the summary the trial's
metrics carry (the fault-aware red flags are evalsite_checks.worlds.flags)."""

from __future__ import annotations

from collections.abc import Iterable

from golden.models import ToolWorldCall

# Calls the world refused before looking for a recording.
NOT_SERVED = ("unknown_tool", "invalid_arguments")


def trial_calls(trial) -> list[ToolWorldCall]:
    """The trial's served calls in order, each with its turn among calls of its tool."""
    calls = list(ToolWorldCall.objects.filter(trial=trial).order_by("sequence"))
    turns: dict[str, int] = {}
    for call in calls:
        turns[call.tool] = turns.get(call.tool, 0) + 1
        call.tool_turn = turns[call.tool]
    return calls


def world_summary(calls: Iterable[ToolWorldCall], variant: dict | None) -> dict:
    """What the trial met: calls served, faults that fired, and the variant's faults that
    never fired (the agent never reached them, so the variant tested nothing)."""
    calls = list(calls)
    fired = [
        {"sequence": c.sequence, "tool": c.tool, "kind": c.fault["kind"]} for c in calls if c.fault
    ]
    planned = (variant or {}).get("faults", [])
    fired_keys = {(f["tool"], f["kind"]) for f in fired}
    codes = [_error_code(c) for c in calls]
    return {
        "calls": len(calls),
        "unknown_tool_calls": codes.count("unknown_tool"),
        "invalid_argument_calls": codes.count("invalid_arguments"),
        "unrecorded_calls": sum(
            1
            for c, code in zip(calls, codes, strict=True)
            if c.recording is None and not c.fault and code not in NOT_SERVED
        ),
        "faults_fired": fired,
        "fault_kinds": sorted({f["kind"] for f in fired}),
        "faults_not_fired": [
            {"tool": f["tool"], "kind": f["kind"]}
            for f in planned
            if (f["tool"], f["kind"]) not in fired_keys
        ],
    }


def _error_code(call: ToolWorldCall) -> str:
    returned = call.returned
    error = returned.get("error") if isinstance(returned, dict) else None
    return str(error.get("code", "")) if isinstance(error, dict) else ""
