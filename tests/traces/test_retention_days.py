"""Retention on PostgreSQL: a day past every project's retention is dropped as a partition, what
anything relies on moved out first; other days go row by row."""

import threading
import time
from datetime import timedelta

import psycopg
import pytest
from django.db import IntegrityError, connection
from django.utils import timezone

from golden.models import GoldenExample
from metrics.models import RedFlag
from tests.factories import GoldenExampleFactory, ProjectFactory, SpanFactory, TraceFactory
from tests.traces.partitions import POSTGRESQL_ONLY
from tests.traces.retention_keepers import being_judged, eval_trial, golden_source, under_review
from tests.traces.test_ingest_otlp import recorded_spans, send
from traces import retention_days, span_partitions, tasks
from traces.models import Feedback, Project, Session, Span, Trace, utc_today
from traces.partition_sql import partition_name
from traces.retention_days import spans_day_expire, spans_days_expirable
from traces.span_partitions import span_partitions_ensure

pytestmark = [pytest.mark.django_db, POSTGRESQL_ONLY]
OLD = utc_today() - timedelta(days=40)


def _trace(project, day=OLD, spans: int = 2, **fields) -> Trace:
    """A trace received on `day`, its spans in that day's partition."""
    trace = TraceFactory(project=project, **fields)
    received = timezone.now() - (utc_today() - day)
    Trace.objects.filter(pk=trace.pk).update(created_at=received, spans_day=day)
    trace.refresh_from_db()
    for index in range(spans):
        SpanFactory(trace=trace, span_id=f"s{index}", position=index)
    return trace


def _partition_exists(day) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [partition_name(day)])
        return cursor.fetchone()[0]


@pytest.fixture
def project():
    return ProjectFactory(retention_days=30)


def test_an_expired_day_is_dropped_with_its_traces_and_what_they_own(project):
    # given an old day's trace with a red flag and feedback, and a recent trace
    old, recent = _trace(project), _trace(project, day=utc_today() - timedelta(days=2))
    RedFlag.objects.create(trace=old, span=old.spans.first(), kind=RedFlag.Kind.LOOP)
    Feedback.objects.create(trace=old, kind="thumbs", value=0, key="k1")
    assert spans_days_expirable() == [OLD]
    # when
    removed = spans_day_expire(OLD)
    # then
    assert removed == 1 and not _partition_exists(OLD)
    assert list(Trace.objects.values_list("pk", flat=True)) == [recent.pk]
    assert not RedFlag.objects.exists() and not Feedback.objects.exists()
    assert Span.objects.filter(trace=recent).count() == 2


def _recent_conversation(trace):
    session = Session.objects.create(project=trace.project, external_id="conv")
    recent = _trace(trace.project, day=utc_today(), spans=1)
    Trace.objects.filter(pk__in=[trace.pk, recent.pk]).update(session=session)


@pytest.mark.parametrize(
    "keep", [golden_source, under_review, eval_trial, being_judged, _recent_conversation]
)
def test_a_kept_trace_has_its_spans_moved_out_before_the_day_is_dropped(project, keep):
    # given an old day with a trace something relies on and one nothing does
    kept, gone = _trace(project, spans=3), _trace(project)
    keep(kept)
    spans_before = sorted(kept.spans.values_list("span_id", "output"))
    RedFlag.objects.create(trace=kept, span=kept.spans.first(), kind=RedFlag.Kind.LOOP)
    # when
    assert spans_day_expire(OLD) == 1
    # then the day's partition is gone and the kept trace whole, now under today
    assert not _partition_exists(OLD) and not Trace.objects.filter(pk=gone.pk).exists()
    kept.refresh_from_db()
    assert kept.spans_day == utc_today()
    assert sorted(kept.spans.values_list("span_id", "output")) == spans_before
    assert set(kept.spans.values_list("trace_day", flat=True)) == {utc_today()}
    assert RedFlag.objects.get().span.trace_id == kept.pk


def test_a_day_shared_with_a_project_keeping_longer_is_not_dropped_but_emptied_by_rows(project):
    # given an old day holding a trace of a 30-day project and one of a project keeping all
    keeper = ProjectFactory(slug="keeper", retention_days=None)
    expiring, keeping = _trace(project), _trace(keeper)
    # when the task runs
    assert spans_days_expirable() == []
    assert tasks.trace_retention_task() == 1
    # then the partition stays with the other project's spans; the expired trace went by rows
    assert _partition_exists(OLD)
    assert not Trace.objects.filter(pk=expiring.pk).exists()
    assert not Span.objects.filter(trace_id=expiring.pk).exists()
    assert keeping.spans.count() == 2


def test_a_day_not_wholly_past_the_retention_time_stays(project):
    day = utc_today() - timedelta(days=30)
    _trace(project, day=day)
    assert day not in spans_days_expirable()
    assert tasks.trace_retention_task() == 0 and _partition_exists(day)


def test_the_task_drops_one_day_and_goes_on_with_the_next(project, monkeypatch):
    # given two expired days
    for age in (50, 60):
        _trace(project, day=utc_today() - timedelta(days=age))
    again = []
    monkeypatch.setattr(tasks.trace_retention_task, "delay", lambda: again.append(True))
    # when the task runs, each run drops the oldest day and enqueues the next run
    assert tasks.trace_retention_task() == 1 and again == [True]
    assert not _partition_exists(utc_today() - timedelta(days=60))
    assert _partition_exists(utc_today() - timedelta(days=50))
    assert tasks.trace_retention_task() == 1 and again == [True, True]
    # then, no day left, the row batch finds nothing and the task stops
    assert tasks.trace_retention_task() == 0 and again == [True, True]
    assert not Trace.objects.exists()


def test_a_kept_trace_resent_after_the_drop_gets_no_second_copy():
    # given an ingested trace, received on an old day and kept by a golden example
    spans = recorded_spans()
    send(spans)
    trace = Trace.objects.get()
    Project.objects.filter(pk=trace.project_id).update(retention_days=30)
    span_partitions_ensure([OLD])
    received = timezone.now() - timedelta(days=40)
    Trace.objects.filter(pk=trace.pk).update(created_at=received, spans_day=OLD)
    Span.objects.filter(trace=trace).update(trace_day=OLD)
    GoldenExampleFactory(source_trace=trace)
    assert spans_day_expire(OLD) == 0 and not _partition_exists(OLD)
    # when its spans are sent again
    send(spans)
    # then they are the rows already stored, under the day they moved to
    assert Trace.objects.get().pk == trace.pk
    assert (
        Span.objects.filter(trace=trace, trace_day=utc_today()).count()
        == 11
        == Span.objects.count()
    )


@pytest.mark.django_db(transaction=True)
def test_a_day_the_readers_keep_busy_stays_whole_and_waits_for_the_next_run(monkeypatch, settings):
    # given an expired day (committed), and another connection reading the spans table
    old = _trace(ProjectFactory(retention_days=30))
    monkeypatch.setattr(span_partitions, "DROP_LOCK_TIMEOUT_MS", 100)
    again = []
    monkeypatch.setattr(tasks.trace_retention_task, "delay", lambda: again.append(True))
    database = settings.DATABASES["default"]
    with psycopg.connect(
        dbname=connection.settings_dict["NAME"],
        host=database["HOST"],
        port=database["PORT"],
        user=database["USER"],
    ) as reader:
        reader.execute("SELECT count(*) FROM traces_span")
        # when the task runs
        removed = tasks.trace_retention_task()
    # then nothing went, and it did not go on by rows nor enqueue itself
    assert removed == 0 and again == []
    assert _partition_exists(OLD) and old.spans.count() == 2
    assert Trace.objects.filter(pk=old.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_a_golden_example_made_while_the_day_expires_fails_rather_than_keep_a_trace_without_spans(
    monkeypatch,
):
    # given an expired day (committed), and someone making a golden example of one of its
    # traces from another connection just before the partition is dropped
    old = _trace(ProjectFactory(retention_days=30))
    outcome = []

    def golden_example_make():
        try:
            GoldenExampleFactory(source_trace_id=old.pk)
            outcome.append("made")
        except IntegrityError:
            outcome.append("refused")
        finally:
            connection.close()

    maker = threading.Thread(target=golden_example_make)
    drop = retention_days.span_partition_drop

    def drop_while_someone_takes_hold(day):
        maker.start()
        time.sleep(0.3)  # long enough for the maker to be waiting on the trace's row
        drop(day)

    monkeypatch.setattr(retention_days, "span_partition_drop", drop_while_someone_takes_hold)
    # when the day expires
    assert spans_day_expire(OLD) == 1
    maker.join(timeout=10)
    # then the example waited for the day and was refused: no trace was left without its spans
    assert outcome == ["refused"]
    assert not Trace.objects.filter(pk=old.pk).exists()
    assert not GoldenExample.objects.exists()
