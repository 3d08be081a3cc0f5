"""Find the traces an agent sent for an eval run and attach them as trials."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q

from golden.models import DatasetVersionEntry, EvalRun, EvalTrial
from traces.models import Trace

RUN_TAG = "evalsite.eval_run"
EXAMPLE_TAG = "evalsite.example_key"
TRIAL_TAG = "evalsite.trial"


def trace_eval_tags(trace: Trace) -> dict:
    """The evalsite.* tags from the trace context, its attributes, resource, or root span."""
    sources = [trace.context or {}, trace.attributes or {}]
    resource = (trace.attributes or {}).get("resource")
    if isinstance(resource, dict):
        sources.append(resource)
    root = next((s for s in trace.spans.all() if s.span_id == trace.root_span_id), None)
    if root is not None:
        sources.append(root.attributes or {})
    tags: dict = {}
    for source in sources:
        for tag in (RUN_TAG, EXAMPLE_TAG, TRIAL_TAG):
            if tag in source and tag not in tags:
                tags[tag] = source[tag]
    return tags


def _run_values(run: EvalRun) -> list:
    return [run.name, str(run.pk), run.pk]


def tagged_traces(run: EvalRun):
    """Traces whose context, attributes or root span carry this run's name or id."""
    query = Q()
    for value in _run_values(run):
        query |= Q(**{f"context__{RUN_TAG}": value})
        query |= Q(**{f"attributes__{RUN_TAG}": value})
        query |= Q(**{f"attributes__resource__{RUN_TAG}": value})
        query |= Q(**{f"spans__attributes__{RUN_TAG}": value})
    return Trace.objects.filter(query).distinct().prefetch_related("spans")


def eval_trials_attach(run: EvalRun) -> dict:
    """Create or refresh one EvalTrial per tagged trace; returns counts of what happened.

    A trace whose example key is not in the run's dataset version is skipped and counted, so a
    typo in the agent's exporter shows up in the output instead of vanishing.
    """
    entries = {
        e.example_key: e for e in DatasetVersionEntry.objects.filter(version=run.dataset_version)
    }
    counts = {"attached": 0, "unknown_example": 0, "untagged_example": 0}
    with transaction.atomic():
        for trace in tagged_traces(run):
            tags = trace_eval_tags(trace)
            key = tags.get(EXAMPLE_TAG)
            if key is None:
                counts["untagged_example"] += 1
                continue
            entry = entries.get(str(key))
            if entry is None:
                counts["unknown_example"] += 1
                continue
            try:
                trial_index = int(tags.get(TRIAL_TAG) or 0)
            except (TypeError, ValueError):
                trial_index = 0
            EvalTrial.objects.update_or_create(
                eval_run=run, entry=entry, trial_index=trial_index, defaults={"trace": trace}
            )
            counts["attached"] += 1
    return counts
