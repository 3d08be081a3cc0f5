"""The trace list's pair picker: two ticked traces open side by side or go to a pairwise
queue, with a clear error for anything else."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from reviews.models import PairwiseComparison, Queue, QueueKind
from tests.factories import SpanFactory, TraceFactory

pytestmark = pytest.mark.django_db

TASK = "Cancel order A1042, please."


@pytest.fixture
def pair():
    now = timezone.now()
    older = TraceFactory(
        task=TASK, agent_version="1.4.0", started_at=now - timedelta(hours=1), final_answer="Old"
    )
    newer = TraceFactory(task=f" {TASK}", agent_version="1.5.0", started_at=now, final_answer="New")
    SpanFactory(trace=older, span_id="a000000000000001", name="get_recent_orders")
    SpanFactory(trace=newer, span_id="b000000000000001", name="cancel_order")
    return older, newer


def test_each_row_has_a_box_for_the_pair_form(client, annotator, pair):
    client.force_login(annotator)
    html = client.get(reverse("explorer:list")).content.decode()
    assert 'id="pair-form"' in html and 'src="/static/js/trace_pick.js"' in html
    for trace in pair:
        assert f'name="trace" value="{trace.pk}" form="pair-form"' in html
    # annotators read pairs; sending them to a queue is a curator's
    assert 'id="pair-queue"' not in html


def test_the_curator_sees_the_send_button(client, curator, pair):
    client.force_login(curator)
    html = client.get(reverse("explorer:list")).content.decode()
    assert 'id="pair-queue"' in html
    # the list's form is a GET: it carries no token into the address
    form = html[
        html.index('id="pair-form"') - 200 : html.index("</form>", html.index('id="pair-form"'))
    ]
    assert 'method="get"' in form and "csrfmiddlewaretoken" not in form


def test_two_picked_traces_open_side_by_side_earlier_first(client, annotator, pair):
    older, newer = pair
    client.force_login(annotator)
    response = client.get(reverse("explorer:pair"), {"trace": [newer.pk, older.pk]})
    html = response.content.decode()
    assert response.status_code == 200
    assert html.index("get_recent_orders") < html.index("cancel_order")
    assert html.index('id="side-A"') < html.index("Old") < html.index('id="side-B"')
    assert 'id="pair-different-tasks"' not in html


@pytest.mark.parametrize("picked", [[], ["1"], ["1", "2", "3"], ["x", "2"]])
def test_anything_but_two_traces_is_refused_with_the_reason(client, annotator, pair, picked):
    client.force_login(annotator)
    response = client.get(
        reverse("explorer:pair"),
        {"trace": picked, "next": reverse("explorer:list") + "?q=cancel"},
        follow=True,
    )
    html = response.content.decode()
    assert response.redirect_chain[0][0] == reverse("explorer:list") + "?q=cancel"
    assert "Pick exactly two traces to compare" in html


def test_the_way_back_never_leaves_the_trace_list(client, annotator):
    client.force_login(annotator)
    response = client.get(reverse("explorer:pair"), {"next": "https://example.com/?a=1"})
    assert response.status_code == 302 and response.url == reverse("explorer:list")


def test_a_trace_the_user_may_not_see_is_not_found(client, annotator, pair, monkeypatch):
    client.force_login(annotator)
    response = client.get(reverse("explorer:pair"), {"trace": [pair[0].pk, 999_999]})
    assert response.status_code == 404


def test_the_curator_sends_the_pair_earlier_as_baseline(client, curator, pair):
    older, newer = pair
    queue = Queue.objects.create(name="Releases", kind=QueueKind.PAIRWISE)
    client.force_login(curator)
    response = client.post(
        reverse("explorer:pair_queue"), {"trace": [newer.pk, older.pk], "queue": queue.pk}
    )
    comparison = PairwiseComparison.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("reviews:queue_detail", args=[queue.pk])
    assert (comparison.baseline_trace_id, comparison.candidate_trace_id) == (older.pk, newer.pk)
    assert comparison.item.queue == queue and comparison.source == "traces"
    # sent again: the same item
    again = client.post(reverse("explorer:pair_queue"), {"trace": [older.pk, newer.pk]})
    assert again.status_code == 302 and PairwiseComparison.objects.count() == 1


def test_traces_of_different_tasks_are_not_sent_and_the_page_says_why(client, curator, pair):
    older, _ = pair
    other = TraceFactory(task="Book a flight to Berlin.")
    client.force_login(curator)
    pair_page = client.get(reverse("explorer:pair"), {"trace": [older.pk, other.pk]})
    assert 'id="pair-different-tasks"' in pair_page.content.decode()
    response = client.post(
        reverse("explorer:pair_queue"), {"trace": [older.pk, other.pk]}, follow=True
    )
    html = response.content.decode()
    assert "Not sent: The two traces ask different tasks" in html
    assert not PairwiseComparison.objects.exists()


def test_a_queue_that_is_not_pairwise_is_named_in_the_error(client, curator, pair):
    single = Queue.objects.create(name="Single")
    client.force_login(curator)
    response = client.post(
        reverse("explorer:pair_queue"),
        {"trace": [p.pk for p in pair], "queue": single.pk},
        follow=True,
    )
    assert "Queue &#x27;Single&#x27; is not a pairwise queue." in response.content.decode()


def test_annotators_cannot_send_pairs(client, annotator, pair):
    client.force_login(annotator)
    response = client.post(reverse("explorer:pair_queue"), {"trace": [p.pk for p in pair]})
    assert response.status_code == 403
    assert not PairwiseComparison.objects.exists()
