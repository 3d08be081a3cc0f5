"""Answer a call to a trial's tool world, injecting the trial's fault, and record it.

Both transports (plain HTTP in golden/worlds/api.py, MCP in golden/worlds/mcp_server.py) call
`tool_world_call`; it decides the answer and writes the ToolWorldCall in one transaction that
holds the trial's row lock, so concurrent calls of one trial number 1, 2, 3 ... without gaps
and "the Nth call" means the same thing however fast the agent calls. A timeout's wait happens
after the lock is released.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from django.db import transaction
from evalsite_checks.worlds.answering import (
    INVALID_ARGUMENTS_STATUS,
    Answer,
    base_answer,
    fault_firing,
    faulted,
    refusal,
)
from evalsite_checks.worlds.schema import world_variant

from golden.masking import entry_masker
from golden.models import EvalTrial, ToolWorldCall


@dataclass(frozen=True)
class WorldAnswer(Answer):
    """The world's answer (evalsite_checks.worlds.answering) and the call as recorded."""

    call: ToolWorldCall | None = None


def world_arguments_masked(trial: EvalTrial, arguments: dict) -> dict:
    """The arguments as the example's masking writes values (golden.masking): the same
    address sent in the clear matches the pseudonym its recording holds."""
    return entry_masker(trial.entry).value(arguments)


def tool_world_call(
    trial: EvalTrial, tool: str, arguments: Any, *, transport: str, trace_id: str = ""
) -> WorldAnswer:
    """Answer one call from the trial's world (its variant's faults applied) and record it.

    Unknown tools (404) and arguments the tool's schema refuses (400, naming the field) are
    answered and recorded too: what the agent asked is never dropped.
    """
    world = trial.entry.content.get("tool_world") or {}
    answer = refusal(world, tool, arguments)
    served = answer is None
    if served:
        # Recordings and faults were masked when the example was written: the arguments are
        # masked alike before they are matched (and before they are stored).
        arguments = world_arguments_masked(trial, arguments)
        answer = base_answer(world, tool, arguments)
    with transaction.atomic():
        locked = EvalTrial.objects.select_for_update().only("pk").get(pk=trial.pk)
        calls = ToolWorldCall.objects.filter(trial=locked)
        sequence = calls.count() + 1
        if served:
            nth = calls.filter(tool=tool).exclude(status=INVALID_ARGUMENTS_STATUS).count() + 1
            variant = world_variant(world, trial.variant)
            fired = fault_firing(world, variant, tool, nth, arguments)
            if fired is not None:
                answer = faulted(fired, answer)
        call = ToolWorldCall.objects.create(
            trial_id=trial.pk,
            sequence=sequence,
            tool=tool[:200],
            arguments=arguments,
            status=answer.status,
            returned=answer.raw if answer.raw is not None else answer.body,
            recording=answer.recording,
            fault={"variant": trial.variant, **answer.fault} if answer.fault else None,
            transport=transport,
            trace_id=trace_id[:32],
        )
    return WorldAnswer(**{f.name: getattr(answer, f.name) for f in fields(Answer)}, call=call)
