"""The audit log is append-only everywhere, and curators read it on one page."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from reviews.audit import audit_actions, audit_event_record
from reviews.models import AuditEvent, AuditLogAppendOnly
from tests.factories import ReviewItemFactory, UserFactory


@pytest.fixture
def events(db):
    rita, sam = UserFactory(username="rita"), UserFactory(username="sam")
    first, second = ReviewItemFactory(), ReviewItemFactory()
    return {
        "rita_resolves": audit_event_record(
            actor=rita, action="review_item.resolve", obj=first, after={"score": 1.0}
        ),
        "sam_skips": audit_event_record(actor=sam, action="review_item.skip", obj=second),
        "sam_resolves": audit_event_record(
            actor=sam, action="review_item.resolve", obj=second, before={"status": "open"}
        ),
        "first": first,
        "rita": rita,
    }


def test_an_event_cannot_be_edited_or_deleted_through_the_orm(events):
    event = events["rita_resolves"]
    event.action = "review_item.skip"
    with pytest.raises(AuditLogAppendOnly):
        event.save()
    with pytest.raises(AuditLogAppendOnly):
        event.delete()
    with pytest.raises(AuditLogAppendOnly):
        AuditEvent.objects.filter(pk=event.pk).update(action="edited")
    with pytest.raises(AuditLogAppendOnly):
        AuditEvent.objects.all().delete()
    assert AuditEvent.objects.get(pk=event.pk).action == "review_item.resolve"
    assert AuditEvent.objects.count() == 3


def test_removing_a_person_keeps_their_events_without_a_name(events):
    events["rita"].delete()
    event = AuditEvent.objects.get(pk=events["rita_resolves"].pk)
    assert event.actor is None and event.action == "review_item.resolve"


def _rows(client, **params) -> set[int]:
    body = client.get(reverse("reviews:audit_list"), params).content.decode()
    return {
        pk for pk in AuditEvent.objects.values_list("pk", flat=True) if f'id="event-{pk}"' in body
    }


def test_curators_read_the_log_filtered_by_person_item_and_action(client, curator, events):
    client.force_login(curator)
    every = {events[k].pk for k in ("rita_resolves", "sam_skips", "sam_resolves")}
    assert _rows(client) == every
    assert _rows(client, person="sam") == {events["sam_skips"].pk, events["sam_resolves"].pk}
    assert _rows(client, item=events["first"].pk) == {events["rita_resolves"].pk}
    assert _rows(client, action="review_item.resolve", person="sam") == {events["sam_resolves"].pk}
    body = client.get(reverse("reviews:audit_list")).content.decode()
    assert reverse("reviews:item_detail", args=[events["first"].pk]) in body
    assert 'method="post"' not in body.split('<main id="main">', 1)[1]


def test_the_audit_page_is_read_only_and_for_curators(client, curator, annotator, events):
    client.force_login(annotator)
    assert client.get(reverse("reviews:audit_list")).status_code == 403
    client.force_login(curator)
    assert client.post(reverse("reviews:audit_list"), {"action": "x"}).status_code == 405
    assert client.get(reverse("reviews:audit_list"), {"item": "abc"}).status_code == 400


def _events_written(count: int, actor, action: str = "review_item.resolve") -> None:
    AuditEvent.objects.bulk_create(
        AuditEvent(actor=actor, action=action, object_type="golden_example", object_id=str(n))
        for n in range(count)
    )


def test_the_log_pages_by_cursor_newest_first_and_its_count_stops(client, curator):
    _events_written(1_060, curator)
    client.force_login(curator)

    first = client.get(reverse("reviews:audit_list"))
    body = first.content.decode()
    assert "More than 1,000 events" in body
    newest = AuditEvent.objects.order_by("-created_at", "-id")
    assert f'id="event-{newest[0].pk}"' in body and f'id="event-{newest[49].pk}"' in body
    assert f'id="event-{newest[50].pk}"' not in body

    older = first.context["page"].older_cursor
    second = client.get(reverse("reviews:audit_list"), {"after": older}).content.decode()
    assert f'id="event-{newest[50].pk}"' in second
    assert f'id="event-{newest[49].pk}"' not in second
    refused = client.get(reverse("reviews:audit_list"), {"after": "not-a-cursor"})
    assert refused.status_code == 400


def test_a_page_costs_the_same_queries_however_long_the_log(client, curator):
    client.force_login(curator)
    _events_written(3, curator)
    client.get(reverse("reviews:audit_list"))
    with CaptureQueriesContext(connection) as short:
        client.get(reverse("reviews:audit_list"), {"action": "review_item.resolve"})
    _events_written(400, curator, action="trace_delete")
    with CaptureQueriesContext(connection) as long:
        client.get(reverse("reviews:audit_list"), {"action": "review_item.resolve"})
    assert len(long) == len(short)


def test_the_action_choices_are_every_action_once_sorted(curator):
    for action in ("trace_delete", "annotation.undo", "trace_delete", "review_item.resolve"):
        _events_written(2, curator, action=action)
    assert audit_actions() == ["annotation.undo", "review_item.resolve", "trace_delete"]
