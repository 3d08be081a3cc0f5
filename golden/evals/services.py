"""Writes for eval runs."""

from __future__ import annotations

from django.db import transaction

from evalsite.api import ApplicationError
from golden.models import DatasetVersion, EvalRun


def eval_run_create(
    *,
    name: str,
    agent_version: str,
    dataset_version: DatasetVersion | str,
    agent_name: str = "",
    trials_per_task: int = 1,
    is_noop: bool = False,
    user=None,
) -> EvalRun:
    """Record an eval run before the agent sends its traces tagged with the run's name."""
    name, agent_version = (name or "").strip(), (agent_version or "").strip()
    if not name:
        raise ApplicationError(
            "Give the run a name; the agent tags its traces with it.", field="name"
        )
    if not agent_version:
        raise ApplicationError("Say which agent version ran.", field="agent_version")
    if not 1 <= int(trials_per_task) <= 100:
        raise ApplicationError(
            "trials_per_task must be between 1 and 100.", field="trials_per_task"
        )
    if isinstance(dataset_version, str):
        found = DatasetVersion.objects.filter(name=dataset_version).first()
        if found is None:
            raise ApplicationError(
                f"No dataset version named {dataset_version!r}.", field="dataset_version"
            )
        dataset_version = found
    with transaction.atomic():
        if EvalRun.objects.filter(name=name).exists():
            raise ApplicationError(f"A run named {name!r} already exists.", field="name")
        return EvalRun.objects.create(
            name=name,
            agent_name=(agent_name or "").strip(),
            agent_version=agent_version,
            dataset_version=dataset_version,
            trials_per_task=int(trials_per_task),
            is_noop=is_noop,
            created_by=user if user is not None and user.is_authenticated else None,
        )


def eval_run_lookup(value, *, field: str) -> EvalRun:
    """A run by id or by name; the gate and the API accept either."""
    text = str(value or "").strip()
    run = None
    if text.isdigit():
        run = EvalRun.objects.filter(pk=int(text)).select_related("dataset_version").first()
    if run is None and text:
        run = (
            EvalRun.objects.filter(name=text)
            .select_related("dataset_version")
            .order_by("-pk")
            .first()
        )
    if run is None:
        raise ApplicationError(
            f"No eval run {text!r} (give an id or a name).", field=field, status_code=404
        )
    return run
