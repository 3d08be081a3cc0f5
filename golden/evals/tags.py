"""Find the traces an agent sent for an eval run and attach them as trials."""

from __future__ import annotations

from collections import defaultdict

from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.db.models.fields.json import KeyTextTransform, KeyTransform
from django.db.models.lookups import In
from evalsite_checks.worlds.schema import entry_variants

from golden.models import DatasetVersionEntry, EvalRun, EvalTrial
from golden.worlds.join import trials_join_by_traceparent
from traces.models import Span, Trace

RUN_TAG = "evalsite.eval_run"
EXAMPLE_TAG = "evalsite.example_key"
TRIAL_TAG = "evalsite.trial"
# The fault variant of the example's tool world the trace ran against; absent for the base.
VARIANT_TAG = "evalsite.variant"


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
        for tag in (RUN_TAG, EXAMPLE_TAG, TRIAL_TAG, VARIANT_TAG):
            if tag in source and tag not in tags:
                tags[tag] = source[tag]
    return tags


def traces_tagged(tag: str, values) -> Q:
    """Traces carrying `tag` with one of these values, compared as text: in their context,
    attributes or OTLP resource (`values` a list, or a queryset of one text column), or on a
    span (where trace_eval_tags reads tags, and any span besides; `span_values` a list, as span
    attributes are JSON text: traces.models.Span)."""
    if isinstance(values, list | tuple | set):
        values = [str(value) for value in values]
        if not values:
            return Q(pk__in=[])
    return Q(In(KeyTextTransform(tag, "context"), values)) | Q(
        In(KeyTextTransform(tag, KeyTransform("resource", "attributes")), values)
    )


def traces_with_span_tagged(tag: str, values: list) -> Q:
    """Traces with a span whose attributes carry `tag` with one of these values."""
    if not values:
        return Q(pk__in=[])
    spans = Span.objects.filter(trace=OuterRef("pk"), **{f"attributes__{tag}__in": list(values)})
    return Q(Exists(spans))


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


def _trial_index(tag) -> int | None:
    try:
        return int(tag) if tag is not None and str(tag).strip() != "" else None
    except (TypeError, ValueError):
        return None


def eval_trials_attach(run: EvalRun) -> dict:
    """Create or refresh one EvalTrial per tagged trace; returns counts of what happened.

    A trace without a trial number takes the example's next free one, in start order, and
    keeps it when the run is scored again. A trace whose example key is not in the run's
    dataset version is skipped and counted, so a typo in the exporter does not vanish.
    """
    entries = {
        e.example_key: e for e in DatasetVersionEntry.objects.filter(version=run.dataset_version)
    }
    attached = {t.trace_id: t for t in EvalTrial.objects.filter(eval_run=run, trace__isnull=False)}
    # Trial numbers taken per task (entry, variant), including trials started without a trace.
    used: dict[tuple[int, str], set[int]] = defaultdict(set)
    for entry_id, variant, index in EvalTrial.objects.filter(eval_run=run).values_list(
        "entry_id", "variant", "trial_index"
    ):
        used[(entry_id, variant)].add(index)
    counts = {"attached": 0, "unknown_example": 0, "untagged_example": 0, "unknown_variant": 0}
    with transaction.atomic():
        for trace in tagged_traces(run).order_by("started_at", "pk"):
            tags = trace_eval_tags(trace)
            key = tags.get(EXAMPLE_TAG)
            entry = entries.get(str(key)) if key is not None else None
            if entry is None:
                counts["untagged_example" if key is None else "unknown_example"] += 1
                continue
            variant = str(tags.get(VARIANT_TAG) or "")
            if variant not in entry_variants(entry.content):
                counts["unknown_variant"] += 1
                continue
            counts["attached"] += 1
            index = _trial_index(tags.get(TRIAL_TAG))
            earlier = attached.get(trace.pk)
            if (
                earlier is not None
                and (earlier.entry_id, earlier.variant) == (entry.pk, variant)
                and index is None
            ):
                continue
            task = (entry.pk, variant)
            if index is None:
                index = next(i for i in range(len(used[task]) + 1) if i not in used[task])
            used[task].add(index)
            EvalTrial.objects.update_or_create(
                eval_run=run,
                entry=entry,
                variant=variant,
                trial_index=index,
                defaults={"trace": trace},
            )
        counts["joined_by_traceparent"] = (
            trials_join_by_traceparent(run) if run.tool_worlds_started_at else 0
        )
    return counts


def eval_run_traces_state(run: EvalRun) -> dict:
    """How many traces the run expects (tasks x trials), how many arrived tagged with it,
    and how many of those are complete (settled: root ended, no span for the settle time).
    Scoring before every trace is complete would grade half-received runs."""
    if run.tool_worlds_started_at:
        # Trials were created up front, one per example, fault variant and trial number.
        expected = EvalTrial.objects.filter(eval_run=run).count()
    else:
        expected = (
            DatasetVersionEntry.objects.filter(version=run.dataset_version).count()
            * run.trials_per_task
        )
    received = tagged_traces(run).prefetch_related(None)
    return {
        "expected": expected,
        "received": received.count(),
        "complete": received.filter(completed_at__isnull=False).count(),
    }
