"""Writes for the golden dataset: examples, promotion, the held-out draw and versions."""

import random
from collections import defaultdict

from django.db import IntegrityError, transaction
from django.utils import timezone

from core.errors import ApplicationError
from golden.content import content_hash, example_content, version_hash
from golden.duplicates import NearDuplicate, example_near_duplicates
from golden.example_schema import CONTENT_FIELDS, ExampleInvalid, example_data_clean
from golden.held_out_traces import example_traces, traces_held_out_sync
from golden.masking import example_data_masked
from golden.models import (
    DatasetVersion,
    DatasetVersionEntry,
    ExampleOrigin,
    GoldenExample,
)
from golden.reference_trajectory import PLACEHOLDER_LIKE
from golden.signals import dataset_version_created
from golden.trajectory_draft import reference_trajectory_draft
from golden.worlds.capture import tool_world_from_trace
from judges.models import Rubric
from metrics.policy_cache import trace_failure_rule_remembered
from metrics.steps import tool_steps_from_spans, trace_spans
from reviews.audit import audit_event_record
from reviews.models import ReviewStatus

DEFAULT_HELD_OUT_SHARE = 0.2
MAX_HELD_OUT_SHARE = 0.5


class NearDuplicateFound(Exception):
    """Saving would add an example nearly identical to existing ones of the same task type."""

    def __init__(self, matches: list[NearDuplicate]):
        listed = ", ".join(f"#{m.example.pk} ({m.ratio:.0%})" for m in matches)
        super().__init__(f"Near-duplicate of {listed}; confirm to save anyway.")
        self.matches = matches


def _rubric_for(name: str | None) -> Rubric | None:
    if not name:
        return None
    rubric = Rubric.objects.filter(name=name).first()
    if rubric is None:
        raise ExampleInvalid({"outcome_rubric": f"no rubric is named {name!r}"})
    return rubric


def example_content_apply(example: GoldenExample, cleaned: dict) -> None:
    """Content onto the example, masked (golden.masking): no detected value is kept."""
    cleaned, _ = example_data_masked(cleaned, _source_project_id(example))
    for name in CONTENT_FIELDS:
        if name in ("key", "outcome_rubric"):
            continue
        setattr(example, name, cleaned[name])
    example.outcome_rubric = _rubric_for(cleaned["outcome_rubric"])


def example_add(example: GoldenExample, cleaned: dict, *, action: str, after=None) -> GoldenExample:
    """Save a new example with its content, audited under `action` as its creator's; the audit
    keeps `after`, by default the content."""
    example_content_apply(example, cleaned)
    example.save()
    audit_event_record(
        actor=example.created_by,
        action=action,
        object_type="golden_example",
        object_id=example.pk,
        after=example_content(example) if after is None else after,
    )
    return example


def _source_project_id(example: GoldenExample) -> int | None:
    return example.source_trace.project_id if example.source_trace_id else None


def _check_duplicates(cleaned: dict, exclude_pk: int | None, allow_duplicate: bool) -> None:
    if allow_duplicate:
        return
    matches = example_near_duplicates(
        task=cleaned["task"], task_type=cleaned["task_type"], exclude_pk=exclude_pk
    )
    if matches:
        raise NearDuplicateFound(matches)


@transaction.atomic
def golden_example_create(
    *, data: dict, user, origin: str = ExampleOrigin.HANDWRITTEN, allow_duplicate: bool = False
) -> GoldenExample:
    """Create an example (hand-written or adversarial) from validated data.

    Raises ExampleInvalid on bad data and NearDuplicateFound unless allow_duplicate.
    """
    cleaned = example_data_clean(data)
    _check_duplicates(cleaned, None, allow_duplicate)
    example = GoldenExample(origin=origin, created_by=user)
    return example_add(example, cleaned, action="golden_example_create")


@transaction.atomic
def golden_example_update(
    *, example: GoldenExample, data: dict, user, allow_duplicate: bool = False
) -> GoldenExample:
    """Replace an example's content; the key, origin and source stay."""
    example = GoldenExample.objects.select_for_update().get(pk=example.pk)
    before = example_content(example)
    cleaned = example_data_clean({**_editable(before), **data})
    # Only a changed task can newly duplicate another; other edits are not nagged.
    task_changed = (cleaned["task"], cleaned["task_type"]) != (before["task"], before["task_type"])
    _check_duplicates(cleaned, example.pk, allow_duplicate or not task_changed)
    example_content_apply(example, cleaned)
    example.save()
    after = example_content(example)
    if after != before:
        audit_event_record(
            actor=user,
            action="golden_example_update",
            object_type="golden_example",
            object_id=example.pk,
            before=before,
            after=after,
        )
    return example


def _editable(content: dict) -> dict:
    return {name: value for name, value in content.items() if name != "key"}


def resolved_score_passes(version, score: float) -> bool:
    """Whether a person's resolved score passes: by the rubric's rule (RubricVersion.score_passes),
    else, on an item without a rubric (a trace a person flagged), any score above 0."""
    return version.score_passes(score) if version is not None else score > 0


def _red_flags_of(flags) -> list[dict]:
    texts = []
    for flag in flags:
        label = flag.get_kind_display()
        texts.append({"text": f"{label}: {flag.detail}" if flag.detail else label, "rule": None})
    return texts


def _literals_dropped(value):
    """Inputs with every literal left blank; inferred placeholders stay (they name a source)."""
    if isinstance(value, dict):
        return {key: _literals_dropped(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [_literals_dropped(inner) for inner in value]
    return value if isinstance(value, str) and PLACEHOLDER_LIKE.match(value) else None


def trace_example_draft(
    trace, *, passed: bool, explanation: str = "", rubric_name=None, failure_tags=()
) -> tuple[dict, list[dict]]:
    """The example a trace proposes, unsaved, and the steps where a red flag fired.

    A flagged step's literal input values are what the agent got wrong (a hallucinated id, a
    call made too early): they are left blank for the curator, never copied as expected.
    """
    steps = tool_steps_from_spans(trace_spans(trace), trace_failure_rule_remembered(trace))
    flags = list(trace.red_flags.select_related("span").order_by("pk"))
    trajectory = reference_trajectory_draft(trace, steps)
    flagged_steps = []
    for step, call in zip(trajectory, steps, strict=True):
        fired = [flag for flag in flags if flag.span_id == call.span_pk]
        if not fired:
            continue
        step["inputs"] = _literals_dropped(step["inputs"])
        flagged_steps.append(
            {"step": step["step"], "tool": step["tool"], "flags": _red_flags_of(fired)}
        )
    data = {
        "task": trace.task,
        "task_type": trace.task_type,
        "context": trace.context or {},
        "reference_trajectory": trajectory,
        "expected_outcome": trace.final_answer if passed else "",
        "expected_behavior": explanation,
        "outcome_rubric": rubric_name,
        "failure_tags": sorted(set(failure_tags or [])),
        "red_flags": _red_flags_of(flags),
        "tool_world": tool_world_from_trace(trace, steps),
    }
    return data, flagged_steps


def golden_example_promote_draft(*, item, annotation) -> tuple[dict, list[dict]]:
    """The example a promotion proposes, unsaved, and the steps where a red flag fired."""
    version = item.rubric_version
    return trace_example_draft(
        item.trace,
        passed=resolved_score_passes(version, annotation.score),
        explanation=annotation.explanation,
        rubric_name=version.rubric.name if version else None,
        failure_tags=annotation.failure_tags,
    )


def golden_example_promote(*, item, annotation, user, data: dict | None = None) -> GoldenExample:
    """Save a promotion as a golden example; promoting twice returns the first.

    `data` is what the curator saved from the draft form; without it the draft is saved as
    proposed (the API's one-call promotion). Raises ExampleInvalid on bad data.
    """
    existing = GoldenExample.objects.filter(source_review_item=item).first()
    if existing:
        return existing
    if data is None:
        data, _ = golden_example_promote_draft(item=item, annotation=annotation)
    cleaned = example_data_clean(data)
    with transaction.atomic():
        example = GoldenExample(
            origin=ExampleOrigin.PROMOTED,
            source_trace=item.trace,
            source_review_item=item,
            created_by=user,
        )
        example_add(example, cleaned, action="golden_example_promote", after={"item": item.pk})
    return example


def promotion_annotation(item):
    """The deciding annotation of a resolved item, which a promotion is drafted from."""
    if item.status != ReviewStatus.RESOLVED:
        raise ApplicationError("Only resolved review items can be promoted.", field="item")
    annotation = (
        item.annotations.filter(undone_at__isnull=True)
        .order_by("-is_adjudication", "-created_at", "-pk")
        .first()
    )
    if annotation is None:
        raise ApplicationError("This item has no annotation to promote.", field="item")
    return annotation


def golden_example_promote_item(*, item, user, data: dict | None = None) -> GoldenExample:
    """Promote a resolved item, using its deciding annotation."""
    annotation = promotion_annotation(item)
    return golden_example_promote(item=item, annotation=annotation, user=user, data=data)


@transaction.atomic
def held_out_draw(
    *, share: float, user, seed: int | None = None, task_type: str | None = None
) -> dict[str, int]:
    """Mark a random share of each task type held out (and the rest open).

    With task_type, only that type is redrawn. Drafts are not in the dataset yet, so the draw
    neither counts nor marks them. Returns the number held out per task type.
    """
    if not 0 <= share <= MAX_HELD_OUT_SHARE:
        raise ApplicationError(
            f"The held-out share must be between 0 and {MAX_HELD_OUT_SHARE:.0%}.", field="share"
        )
    rng = random.Random(seed)  # noqa: S311 - a sample, not a secret
    by_type: dict[str, list[int]] = defaultdict(list)
    examples = GoldenExample.objects.select_for_update().filter(draft=False).order_by("pk")
    if task_type is not None:
        examples = examples.filter(task_type=task_type)
    for pk, example_type in examples.values_list("pk", "task_type"):
        by_type[example_type].append(pk)
    chosen: list[int] = []
    counts = {}
    for example_type, pks in sorted(by_type.items()):
        picked = rng.sample(pks, round(share * len(pks)))
        chosen.extend(picked)
        counts[example_type] = len(picked)
    now = timezone.now()
    examples.filter(pk__in=chosen).update(held_out=True, updated_at=now)
    examples.exclude(pk__in=chosen).update(held_out=False, updated_at=now)
    # After the draw: the traces held now (released or kept) and the ones the drawn hold.
    traces_held_out_sync(
        example_traces(examples.only("key", "task", "source_trace_id", "held_out"))
    )
    audit_event_record(
        actor=user,
        action="held_out_draw",
        object_type="golden_dataset",
        object_id=task_type if task_type is not None else "*",
        after={"share": share, "counts": counts},
    )
    return counts


def dataset_version_create(
    *, name: str, note: str = "", user=None, examples=None
) -> DatasetVersion:
    """Snapshot the examples (all of them unless given) as an immutable, hashed version."""
    name = (name or "").strip()
    if not name:
        raise ApplicationError("Give the version a name.", field="name")
    if examples is None:
        examples = GoldenExample.objects.filter(draft=False)
    try:
        with transaction.atomic():
            if DatasetVersion.objects.filter(name=name).exists():
                raise ApplicationError(f"A version named {name!r} already exists.", field="name")
            entries = []
            for example in examples.select_related("outcome_rubric").order_by("key"):
                content = example_content(example)
                entries.append(
                    DatasetVersionEntry(
                        example=example,
                        example_key=example.key,
                        held_out=example.held_out,
                        content=content,
                        content_hash=content_hash(content),
                    )
                )
            version = DatasetVersion.objects.create(
                name=name,
                note=note,
                content_hash=version_hash({e.example_key: e.content_hash for e in entries}),
                example_count=len(entries),
                held_out_count=sum(1 for e in entries if e.held_out),
                created_by=user if user is not None and user.is_authenticated else None,
            )
            for entry in entries:
                entry.version = version
            DatasetVersionEntry.objects.bulk_create(entries, batch_size=500)
            dataset_version_created.send(sender=DatasetVersion, version=version)
            audit_event_record(
                actor=user,
                action="dataset_version_create",
                object_type="dataset_version",
                object_id=version.pk,
                after={"name": name, "content_hash": version.content_hash},
            )
    except IntegrityError as exc:
        # Two curators chose the same name at once; the first one keeps it.
        raise ApplicationError(f"A version named {name!r} already exists.", field="name") from exc
    return version
