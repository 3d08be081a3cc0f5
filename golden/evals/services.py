"""Writes for eval runs."""

from __future__ import annotations

from django.db import transaction

from core.errors import ApplicationError
from golden.evals.tags import eval_trials_attach
from golden.models import DatasetVersion, EvalRun, EvalTrial
from judges.models import JudgeConfig, JudgeRun, Rubric, RubricVersionStatus
from judges.services import judge_run_start
from traces.models import Trace


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
    if text.isdecimal():
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


def eval_run_outcomes_judge(
    run: EvalRun, *, config_name: str = "default", user=None
) -> list[JudgeRun]:
    """Judge the run's traces with each outcome rubric its examples name; one judge run each.

    Judging is asynchronous: scoring the run after the verdicts land uses them as outcome scores.
    """
    eval_trials_attach(run)
    config = JudgeConfig.objects.filter(name=config_name).first()
    if config is None:
        raise ApplicationError(f"No judge config named {config_name!r}.", field="config")
    by_rubric: dict[str, list[int]] = {}
    trials = EvalTrial.objects.filter(eval_run=run, trace__isnull=False).select_related("entry")
    for trial in trials:
        name = trial.entry.content.get("outcome_rubric")
        if name:
            by_rubric.setdefault(name, []).append(trial.trace_id)
    if not by_rubric:
        raise ApplicationError(
            "No trial of this run has an example with an outcome rubric.", field="run"
        )
    runs = []
    with transaction.atomic():
        for name, trace_ids in sorted(by_rubric.items()):
            rubric = Rubric.objects.filter(name=name).first()
            version = (
                rubric.versions.filter(status=RubricVersionStatus.APPROVED)
                .order_by("-number")
                .first()
                if rubric
                else None
            )
            if version is None:
                raise ApplicationError(f"No approved version of rubric {name!r}.", field="rubric")
            runs.append(
                judge_run_start(
                    rubric_version=version,
                    config=config,
                    traces=Trace.objects.filter(pk__in=trace_ids),
                    user=user if user is not None and user.is_authenticated else None,
                )
            )
    return runs
