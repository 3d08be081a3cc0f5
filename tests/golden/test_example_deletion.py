"""Deleting golden examples: versions keep their copies, held-out traces are released once,
each example's content stays in the audit log, and a refused deletion deletes nothing."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.errors import ApplicationError
from golden import deletion
from golden.deletion import examples_deletion_preview, golden_examples_delete
from golden.models import DatasetVersionEntry, GoldenExample
from golden.selectors import promotable_review_items
from golden.services import dataset_version_create, golden_example_promote_item
from reviews.models import AuditEvent
from tests.factories import GoldenExampleFactory, TraceFactory
from tests.golden.builders import resolved_item
from traces.models import Trace

pytestmark = pytest.mark.django_db


def _held(trace) -> bool:
    return Trace.objects.get(pk=trace.pk).held_out


def test_a_version_keeps_its_copy_and_the_audit_log_keeps_the_content(curator):
    kept = GoldenExampleFactory(task="Refund order B2")
    gone = GoldenExampleFactory(task="Cancel order A1", failure_tags=["wrong_order"])
    version = dataset_version_create(name="v1", user=curator)

    report = golden_examples_delete(examples=GoldenExample.objects.filter(pk=gone.pk), user=curator)

    assert report.deleted == 1
    assert list(GoldenExample.objects.all()) == [kept]
    entry = DatasetVersionEntry.objects.get(version=version, example_key=gone.key)
    assert entry.example_id is None
    assert entry.content["task"] == "Cancel order A1"
    assert version.entries.count() == 2
    event = AuditEvent.objects.get(action="golden_example_delete")
    assert event.object_id == str(gone.pk)
    assert event.actor == curator
    assert event.before["task"] == "Cancel order A1"
    assert event.before["failure_tags"] == ["wrong_order"]
    assert event.before["key"] == gone.key


def test_held_out_traces_are_released_in_one_sync_for_any_number_of_examples(curator):
    def delete_held_out(count: int) -> tuple[int, int, list[Trace]]:
        traces = [TraceFactory() for _ in range(count)]
        for trace in traces:
            GoldenExampleFactory(source_trace=trace, held_out=True, task=f"Task {trace.pk}")
        assert all(_held(trace) for trace in traces)
        with CaptureQueriesContext(connection) as queries:
            report = golden_examples_delete(
                examples=GoldenExample.objects.filter(source_trace__in=traces), user=curator
            )
        return report.released_traces, len(queries), traces

    delete_held_out(1)  # the first deletion reads what the process caches afterwards
    released_one, queries_one, traces_one = delete_held_out(1)
    released_many, queries_many, traces_many = delete_held_out(30)

    assert released_one == 1
    assert released_many == 30
    assert not any(_held(trace) for trace in traces_one + traces_many)
    # Deleting 30 costs what deleting one does: no query an example (one chunk each).
    assert queries_many == queries_one


def test_a_trace_another_held_out_example_backs_stays_held_out(curator):
    trace = TraceFactory()
    GoldenExampleFactory(source_trace=trace, held_out=True, task="First")
    second = GoldenExampleFactory(source_trace=trace, held_out=True, task="Second")

    report = golden_examples_delete(
        examples=GoldenExample.objects.filter(pk=second.pk), user=curator
    )

    assert report.released_traces == 0
    assert _held(trace) is True


def test_only_a_curator_deletes(annotator):
    example = GoldenExampleFactory()
    with pytest.raises(ApplicationError) as refused:
        golden_examples_delete(examples=GoldenExample.objects.all(), user=annotator)
    assert refused.value.status_code == 403
    assert GoldenExample.objects.filter(pk=example.pk).exists()


def test_too_many_at_once_deletes_nothing(curator, monkeypatch):
    monkeypatch.setattr(deletion, "MAX_EXAMPLES_DELETED_AT_ONCE", 2)
    for number in range(3):
        GoldenExampleFactory(task=f"Task {number}")
    with pytest.raises(ApplicationError) as refused:
        golden_examples_delete(examples=GoldenExample.objects.all(), user=curator)
    assert refused.value.field == "examples"
    assert "3 examples match" in refused.value.message
    assert GoldenExample.objects.count() == 3
    assert not AuditEvent.objects.filter(action="golden_example_delete").exists()


def test_an_empty_selection_is_refused(curator):
    with pytest.raises(ApplicationError) as refused:
        golden_examples_delete(examples=GoldenExample.objects.none(), user=curator)
    assert refused.value.field == "examples"


def test_a_promoted_review_item_returns_to_the_promote_list(curator):
    item = resolved_item()
    example = golden_example_promote_item(item=item, user=curator)
    assert item not in list(promotable_review_items())

    golden_examples_delete(examples=GoldenExample.objects.filter(pk=example.pk), user=curator)

    assert item in list(promotable_review_items())


def test_the_preview_counts_what_a_deletion_touches(curator):
    GoldenExampleFactory(task="In a version")
    dataset_version_create(name="v1", user=curator)
    GoldenExampleFactory(task="A draft", draft=True)
    GoldenExampleFactory(task="Held out", held_out=True)
    example = golden_example_promote_item(item=resolved_item(), user=curator)

    preview = examples_deletion_preview(GoldenExample.objects.all())

    assert (preview.count, preview.drafts, preview.held_out) == (4, 1, 1)
    assert preview.in_versions == 1
    assert preview.from_review_items == 1
    assert not preview.too_many
    assert examples_deletion_preview(GoldenExample.objects.filter(pk=example.pk)).count == 1
