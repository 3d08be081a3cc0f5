"""The item page and its actions, per role: resolve, lost lock, skip, flag, undo, blind mode."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.roles import ANNOTATOR
from metrics.models import RedFlag
from reviews.claims import review_item_claim_next
from reviews.models import Annotation, ReviewStatus
from tests.factories import (
    JudgmentFactory,
    QueueFactory,
    ReviewItemFactory,
    SpanFactory,
    TraceFactory,
    UserFactory,
    VerdictFactory,
    VerdictItemFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def disputed_item():
    """A disputed item whose two judge passes cite different spans of the trace."""
    trace = TraceFactory(task="Book the 9:40 train from Lyon to Paris for two adults.")
    SpanFactory(trace=trace, span_id="aaaa000000000001", name="search_trains")
    SpanFactory(
        trace=trace,
        span_id="aaaa000000000002",
        name="book_ticket",
        output={"note": "<script>window.__xss = 1</script>"},
    )
    verdict = VerdictFactory(trace=trace)
    JudgmentFactory(
        trace=trace, run=verdict.run, pass_index=0, score=1, explanation="Booked the right train.",
        cited_spans=["aaaa000000000001"],
    )  # fmt: skip
    JudgmentFactory(
        trace=trace, run=verdict.run, pass_index=1, score=0, explanation="Wrong passenger count.",
        cited_spans=[{"span_id": "aaaa000000000002"}],
        criteria_results=[{"question": "Were both adults booked?", "met": False}],
    )  # fmt: skip
    RedFlag.objects.create(trace=trace, kind=RedFlag.Kind.LOOP, detail="search_trains called 3x")
    return VerdictItemFactory(verdict=verdict, queue=QueueFactory())


def _hold(user, item):
    assert review_item_claim_next(user=user, queue=item.queue).pk == item.pk


def test_item_page_shows_task_answer_tree_passes_and_red_flags(client, annotator, disputed_item):
    _hold(annotator, disputed_item)
    client.force_login(annotator)
    response = client.get(reverse("reviews:item_detail", args=[disputed_item.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Book the 9:40 train from Lyon to Paris" in html
    assert "Booked the right train." in html and "Wrong passenger count." in html
    assert "search_trains called 3x" in html
    assert "Were both adults booked?" in html
    assert 'id="span-aaaa000000000002"' in html
    # Both cited spans are highlighted in the tree
    assert html.count("is-highlighted") == 2
    # Trace text is escaped, never markup
    assert "<script>window.__xss" not in html
    assert "&lt;script&gt;window.__xss" in html
    assert 'src="/static/js/review.js"' in html


def test_blind_queue_hides_passes_until_the_annotator_answered(client, annotator, disputed_item):
    disputed_item.queue.blind = True
    disputed_item.queue.save()
    _hold(annotator, disputed_item)
    client.force_login(annotator)
    url = reverse("reviews:item_detail", args=[disputed_item.pk])
    html = client.get(url).content.decode()
    assert "Wrong passenger count." not in html
    assert 'id="passes-hidden"' in html
    client.post(reverse("reviews:item_resolve", args=[disputed_item.pk]), {"score": "0"})
    html = client.get(url).content.decode()
    assert "Wrong passenger count." in html
    assert Annotation.objects.get().blind is True


def test_resolve_saves_and_opens_the_next_item(client, annotator):
    queue = QueueFactory()
    first, second = ReviewItemFactory(queue=queue), ReviewItemFactory(queue=queue)
    _hold(annotator, first)
    client.force_login(annotator)
    response = client.post(
        reverse("reviews:item_resolve", args=[first.pk]),
        {
            "score": "0",
            "explanation": "Cancelled without checking the order status.",
            "failure_tags": ["premature_termination"],
            "custom_tags": "policy breach, ",
        },
    )
    assert response.status_code == 302
    assert response.url == reverse("reviews:item_detail", args=[second.pk])
    annotation = Annotation.objects.get(item=first)
    assert annotation.failure_tags == ["premature_termination", "policy breach"]
    first.refresh_from_db()
    assert first.status == ReviewStatus.RESOLVED


def test_resolve_after_losing_the_lock_is_refused_and_keeps_the_typed_text(client, annotator):
    queue = QueueFactory()
    item = ReviewItemFactory(queue=queue)
    _hold(annotator, item)
    # The lock lapses and a colleague takes the item
    item.lock_expires_at = timezone.now() - timedelta(seconds=5)
    item.save(update_fields=["lock_expires_at"])
    review_item_claim_next(user=UserFactory(roles=[ANNOTATOR]), queue=queue)
    client.force_login(annotator)
    response = client.post(
        reverse("reviews:item_resolve", args=[item.pk]),
        {"score": "1", "explanation": "A long careful explanation I must not lose."},
    )
    assert response.status_code == 409
    html = response.content.decode()
    assert 'id="lock-error"' in html
    assert "expired or another reviewer has it" in html
    assert "A long careful explanation I must not lose." in html
    assert not Annotation.objects.exists()


def test_out_of_range_score_is_shown_on_the_form(client, annotator, disputed_item):
    _hold(annotator, disputed_item)
    client.force_login(annotator)
    response = client.post(
        reverse("reviews:item_resolve", args=[disputed_item.pk]),
        {"score": "7", "explanation": "keep me"},
    )
    assert response.status_code == 400
    assert "between 0 and 1" in response.content.decode()
    assert "keep me" in response.content.decode()


def test_skip_flag_comment_and_undo(client, annotator):
    queue = QueueFactory()
    a, b, c = (ReviewItemFactory(queue=queue) for _ in range(3))
    client.force_login(annotator)
    client.post(reverse("reviews:queue_claim", args=[queue.pk]))
    # Skip a -> b opens
    response = client.post(reverse("reviews:item_skip", args=[a.pk]))
    assert response.url == reverse("reviews:item_detail", args=[b.pk])
    client.post(reverse("reviews:item_comment", args=[b.pk]), {"text": "Odd refund amount."})
    assert b.comments.get().text == "Odd refund amount."
    response = client.post(reverse("reviews:item_flag", args=[b.pk]), {"note": "Policy?"})
    assert response.url == reverse("reviews:item_detail", args=[c.pk])
    b.refresh_from_db()
    assert b.needs_curator
    client.post(reverse("reviews:item_resolve", args=[c.pk]), {"score": "1"})
    annotation = Annotation.objects.get(item=c)
    response = client.post(reverse("reviews:annotation_undo", args=[annotation.pk]))
    assert response.url == reverse("reviews:item_detail", args=[c.pk])
    c.refresh_from_db()
    assert c.status == ReviewStatus.OPEN and c.claimed_by == annotator


def test_heartbeat_renews_or_reports_a_lost_lock(client, annotator):
    queue = QueueFactory()
    item = ReviewItemFactory(queue=queue)
    _hold(annotator, item)
    client.force_login(annotator)
    url = reverse("reviews:item_heartbeat", args=[item.pk])
    assert client.post(url).status_code == 200
    item.lock_expires_at = timezone.now() - timedelta(seconds=1)
    item.save(update_fields=["lock_expires_at"])
    response = client.post(url)
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "lock_lost"


def test_annotator_cannot_open_an_item_someone_else_holds(client, annotator, disputed_item):
    _hold(UserFactory(roles=[ANNOTATOR]), disputed_item)
    client.force_login(annotator)
    assert client.get(reverse("reviews:item_detail", args=[disputed_item.pk])).status_code == 403


def test_curator_sees_any_item_and_adjudicates(client, curator, disputed_item):
    disputed_item.needs_curator = True
    disputed_item.save()
    client.force_login(curator)
    html = client.get(reverse("reviews:item_detail", args=[disputed_item.pk])).content.decode()
    assert 'name="mode" value="adjudicate"' in html
    response = client.post(
        reverse("reviews:item_resolve", args=[disputed_item.pk]),
        {"score": "0", "mode": "adjudicate", "explanation": "Two adults were asked for."},
    )
    assert response.status_code == 302
    disputed_item.refresh_from_db()
    assert disputed_item.status == ReviewStatus.RESOLVED
    assert Annotation.objects.get().is_adjudication


@pytest.mark.parametrize("persona", ["outsider"])
def test_people_without_a_role_get_403_everywhere(client, request, persona, disputed_item):
    client.force_login(request.getfixturevalue(persona))
    item_id = disputed_item.pk
    assert client.get(reverse("reviews:item_detail", args=[item_id])).status_code == 403
    for name in ("item_resolve", "item_skip", "item_flag", "item_heartbeat"):
        assert client.post(reverse(f"reviews:{name}", args=[item_id])).status_code == 403


def test_anonymous_people_are_sent_to_login(client, disputed_item):
    response = client.get(reverse("reviews:item_detail", args=[disputed_item.pk]))
    assert response.status_code == 302
    assert "/login/" in response.url


def test_item_page_query_count_does_not_grow_with_spans_or_flags(client, annotator, disputed_item):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    _hold(annotator, disputed_item)
    client.force_login(annotator)
    url = reverse("reviews:item_detail", args=[disputed_item.pk])
    with CaptureQueriesContext(connection) as few:
        client.get(url)
    trace = disputed_item.trace
    for index in range(20):
        span = SpanFactory(trace=trace, parent_span_id="aaaa000000000001", name=f"step_{index}")
        RedFlag.objects.create(trace=trace, span=span, kind=RedFlag.Kind.LOOP)
    with CaptureQueriesContext(connection) as many:
        html = client.get(url).content.decode()
    assert "step_19" in html
    assert len(many) == len(few)


def test_a_person_sends_a_trace_to_review_from_any_page(client, annotator, outsider):
    from reviews.models import ReviewItem, ReviewReason

    trace = TraceFactory(task="Upgrade my seat to business on BA117")
    url = reverse("reviews:trace_flag", args=[trace.pk])
    client.force_login(outsider)
    assert client.post(url, {"note": "x"}).status_code == 403
    client.force_login(annotator)
    response = client.post(url, {"note": "Charged twice for the upgrade."})
    assert response.url == reverse("explorer:detail", args=[trace.pk])
    item = ReviewItem.objects.get(trace=trace)
    assert item.reason == ReviewReason.FLAGGED
    assert item.detail == "Charged twice for the upgrade."
    assert item.task_excerpt == "Upgrade my seat to business on BA117"


def test_a_held_out_trace_cannot_be_sent_to_review_by_an_annotator(
    client, annotator, curator, api_client_for
):
    from reviews.models import ReviewItem

    trace = TraceFactory(task="Rebook LH400 for Friday", held_out=True)
    client.force_login(annotator)
    assert client.post(reverse("reviews:trace_flag", args=[trace.pk])).status_code == 404
    api = api_client_for(annotator)
    assert api.post("/api/reviews/flags/", {"trace_id": trace.pk}, format="json").status_code == 404
    assert not ReviewItem.objects.filter(trace=trace).exists()
    client.force_login(curator)
    assert client.post(reverse("reviews:trace_flag", args=[trace.pk])).status_code == 302
    assert ReviewItem.objects.filter(trace=trace).count() == 1


def test_a_red_flagged_span_past_the_trees_window_is_rendered(
    client, annotator, disputed_item, monkeypatch
):
    from traces import span_window

    monkeypatch.setattr(span_window, "WINDOW_ROWS", 2)
    trace = disputed_item.trace
    spans = [SpanFactory(trace=trace, name=f"late_{i}", position=100 + i) for i in range(5)]
    RedFlag.objects.create(trace=trace, span=spans[-1], kind=RedFlag.Kind.LOOP)
    _hold(annotator, disputed_item)
    client.force_login(annotator)
    html = client.get(reverse("reviews:item_detail", args=[disputed_item.pk])).content.decode()
    assert f'id="span-{spans[-1].span_id}"' in html
    assert f'id="span-{spans[-2].span_id}"' not in html and "span-more" in html
