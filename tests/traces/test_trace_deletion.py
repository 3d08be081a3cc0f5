"""Deleting traces a person chose: what they own goes with them, what keeps a trace keeps it,
chosen ids are all or nothing, a filter reports what it left, and the audit log keeps who
deleted which trace but not its content."""

import pytest

from core.errors import ApplicationError
from golden.models import GoldenExample
from judges.models import JudgeRunStatus, Judgment, Verdict
from metrics.models import RedFlag
from reviews.models import AuditEvent
from tests.factories import (
    GoldenExampleFactory,
    JudgeRunFactory,
    ReviewItemFactory,
    SpanFactory,
    verdict_disputed,
)
from traces.deletion import traces_delete_requested, traces_deletion_preview
from traces.models import Feedback, Span, Trace

pytestmark = pytest.mark.django_db

KEPT_BY_EXAMPLE = "golden examples"
KEPT_BY_REVIEW = "review items (people's labels)"


def judged_trace(task="Refund order A1990 to the card on file."):
    """A trace with a span, a finished run's disputed verdict, a red flag and a thumbs down."""
    span = SpanFactory(name="refund_order", trace__task=task)
    trace = span.trace
    verdict_disputed(trace, JudgeRunFactory(status=JudgeRunStatus.DONE), [1.0, 0.0])
    RedFlag.objects.create(trace=trace, span=span, kind="loop", detail="3 identical calls")
    Feedback.objects.create(trace=trace, kind="thumbs", value=0.0, key="k")
    return trace


def _deleting(ids, user, all_or_nothing=True):
    return traces_delete_requested(
        traces=Trace.objects.filter(pk__in=ids), user=user, all_or_nothing=all_or_nothing
    )


def test_a_trace_goes_with_what_it_owns_and_its_audit_event_names_it(curator):
    trace = judged_trace()
    other = judged_trace(task="Keep me")

    report = _deleting([trace.pk], curator)

    assert report.deleted == 1 and report.kept_ids == ()
    assert not Trace.objects.filter(pk=trace.pk).exists()
    for model in (Span, Verdict, Judgment, RedFlag, Feedback):
        assert not model.objects.filter(trace_id=trace.pk).exists(), model.__name__
        assert model.objects.filter(trace_id=other.pk).exists(), model.__name__
    event = AuditEvent.objects.get(action="trace_delete")
    assert (event.object_type, event.object_id, event.actor) == (
        "traces.trace",
        str(trace.pk),
        curator,
    )
    assert event.before["external_id"] == trace.external_id
    assert event.before["span_count"] == trace.span_count
    # An erasure must not copy what it erases into the log.
    assert "Refund order" not in str(event.before)


def test_chosen_ids_with_a_kept_trace_delete_nothing_and_say_why(curator):
    free, kept = judged_trace(), judged_trace(task="Promoted")
    GoldenExampleFactory(source_trace=kept)

    with pytest.raises(ApplicationError) as refused:
        _deleting([free.pk, kept.pk], curator)

    assert refused.value.status_code == 409
    assert refused.value.code == "kept"
    assert (
        f"Nothing was deleted; kept: trace {kept.pk} (by {KEPT_BY_EXAMPLE})."
        in refused.value.message
    )
    assert Trace.objects.filter(pk__in=[free.pk, kept.pk]).count() == 2
    assert not AuditEvent.objects.filter(action="trace_delete").exists()


def test_a_filter_deletes_the_unkept_and_reports_the_kept_by_reason(curator):
    free = judged_trace()
    by_example, by_review = judged_trace(task="Promoted"), judged_trace(task="Reviewed")
    GoldenExampleFactory(source_trace=by_example)
    ReviewItemFactory(trace=by_review)
    ids = [free.pk, by_example.pk, by_review.pk]

    preview = traces_deletion_preview(Trace.objects.filter(pk__in=ids))
    report = _deleting(ids, curator, all_or_nothing=False)

    assert (preview.count, preview.deletable) == (3, 1)
    assert preview.kept_by == {KEPT_BY_EXAMPLE: 1, KEPT_BY_REVIEW: 1}
    assert report.deleted == 1
    assert report.kept_ids == tuple(sorted([by_example.pk, by_review.pk]))
    assert report.kept_by == preview.kept_by
    assert set(Trace.objects.values_list("pk", flat=True)) == {by_example.pk, by_review.pk}


def test_a_trace_being_judged_is_kept_until_its_run_ends(curator):
    trace = SpanFactory().trace
    run = JudgeRunFactory(status=JudgeRunStatus.RUNNING)
    verdict_disputed(trace, run, [1.0, 0.0])

    with pytest.raises(ApplicationError) as refused:
        _deleting([trace.pk], curator)
    assert "a judge run at work" in refused.value.message

    run.status = JudgeRunStatus.DONE
    run.save(update_fields=["status"])
    assert _deleting([trace.pk], curator).deleted == 1


def test_deleting_the_example_first_frees_its_trace(curator):
    trace = judged_trace()
    GoldenExampleFactory(source_trace=trace)
    with pytest.raises(ApplicationError):
        _deleting([trace.pk], curator)

    GoldenExample.objects.filter(source_trace=trace).delete()

    assert _deleting([trace.pk], curator).deleted == 1


def test_only_a_curator_deletes_traces(annotator):
    trace = judged_trace()
    with pytest.raises(ApplicationError) as refused:
        _deleting([trace.pk], annotator)
    assert refused.value.status_code == 403
    assert Trace.objects.filter(pk=trace.pk).exists()


def test_too_many_at_once_is_refused(curator, monkeypatch):
    from traces import deletion

    monkeypatch.setattr(deletion, "MAX_TRACES_DELETED_AT_ONCE", 2)
    ids = [judged_trace(task=f"Task {n}").pk for n in range(3)]
    with pytest.raises(ApplicationError) as refused:
        _deleting(ids, curator)
    assert "More than 2 traces match" in refused.value.message
    assert Trace.objects.count() == 3
    assert traces_deletion_preview(Trace.objects.all()).too_many
