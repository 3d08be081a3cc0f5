"""Start an eval run's tool worlds (one trial per example, variant and trial number) and
finish them.

Starting creates every trial of the run before the agent runs, each with its own token, and
hands each out with its task, its endpoints and the tags its trace must carry; finishing
clears the tokens so the worlds stop answering.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from evalsite_checks.worlds.schema import entry_variants, task_key

from core.errors import ApplicationError
from golden.evals.tags import EXAMPLE_TAG, RUN_TAG, TRIAL_TAG, VARIANT_TAG
from golden.models import EvalRun, EvalTrial
from golden.selectors import dataset_entries_visible
from golden.worlds.access import tool_token_new


def _handout(run: EvalRun, trial: EvalTrial, token: str | None, base_url: str) -> dict:
    content = trial.entry.content
    world = content.get("tool_world") or {}
    root = f"{base_url.rstrip('/')}/api/tool-worlds/{trial.pk}"
    variant = next((v for v in world.get("variants", []) if v["name"] == trial.variant), None)
    return {
        "trial_id": trial.pk,
        "example_key": trial.entry.example_key,
        "variant": trial.variant,
        "task_key": task_key(trial.entry.example_key, trial.variant),
        "trial": trial.trial_index,
        "task": content.get("task", ""),
        "context": content.get("context") or {},
        "fault_kinds": sorted({f["kind"] for f in variant["faults"]}) if variant else [],
        "tool_world": (
            {
                "token": token,
                "tools_url": f"{root}/tools",
                "call_url": f"{root}/tools/{{name}}",
                "mcp_url": f"{root}/mcp",
            }
            if token
            else None
        ),
        "tags": {
            RUN_TAG: run.name,
            EXAMPLE_TAG: trial.entry.example_key,
            TRIAL_TAG: trial.trial_index,
            **({VARIANT_TAG: trial.variant} if trial.variant else {}),
        },
    }


def eval_run_tool_worlds_start(run: EvalRun, *, user, base_url: str) -> list[dict]:
    """Create the run's trials with their tokens and return one handout per trial.

    An example without a tool world still gets its trials (the agent runs it with its own
    tools) but no endpoint. Tokens are shown only here: starting twice is refused.
    """
    entries = list(dataset_entries_visible(user, run.dataset_version).order_by("example_key", "pk"))
    if not entries:
        raise ApplicationError(
            "The run's dataset version has no example you may run.", field="dataset_version"
        )
    handouts = []
    with transaction.atomic():
        locked = EvalRun.objects.select_for_update().get(pk=run.pk)
        if locked.tool_worlds_started_at is not None:
            raise ApplicationError(
                f"The tool worlds of run {run.name!r} were already started; start a new run.",
                field="run",
                code="conflict",
                status_code=409,
            )
        if locked.trials.exists():
            raise ApplicationError(
                f"Run {run.name!r} already has trials from traces; start worlds on a new run.",
                field="run",
                code="conflict",
                status_code=409,
            )
        locked.tool_worlds_started_at = timezone.now()
        locked.save(update_fields=["tool_worlds_started_at"])
        run.tool_worlds_started_at = locked.tool_worlds_started_at
        for entry in entries:
            has_world = bool(entry.content.get("tool_world"))
            for variant in entry_variants(entry.content):
                for index in range(run.trials_per_task):
                    token, digest = tool_token_new() if has_world else (None, "")
                    trial = EvalTrial.objects.create(
                        eval_run=locked,
                        entry=entry,
                        variant=variant,
                        trial_index=index,
                        tool_token_hash=digest,
                    )
                    handouts.append(_handout(locked, trial, token, base_url))
    return handouts


def eval_run_tool_worlds_finish(run: EvalRun) -> int:
    """Close the run's worlds (tokens cleared); returns how many trials were open."""
    return (
        EvalTrial.objects.filter(eval_run=run)
        .exclude(tool_token_hash="")
        .update(tool_token_hash="")
    )
