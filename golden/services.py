"""Writes for the golden dataset."""

from golden.models import GoldenExample


def golden_example_promote(*, item, annotation, user) -> GoldenExample:
    """Make a golden example from a resolved review item; promoting twice returns the first."""
    existing = GoldenExample.objects.filter(source_review_item=item).first()
    if existing:
        return existing
    trace = item.trace
    return GoldenExample.objects.create(
        task=trace.task,
        task_type=trace.task_type,
        context=trace.context,
        expected_outcome=trace.final_answer if annotation.score > 0 else "",
        failure_tags=list(annotation.failure_tags),
        source_trace=trace,
        source_review_item=item,
        created_by=user,
    )
