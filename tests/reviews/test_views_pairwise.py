"""The pairwise item page and API: both trajectories side by side with no hint of which is the
candidate, answers by side, errors that keep the choices, curators' adjudication."""

import pytest
from django.urls import reverse

from reviews.blind import trace_blind_for
from reviews.claims import review_item_claim_next
from reviews.models import Annotation, PairwiseSource, ReviewStatus
from reviews.pairwise import (
    pairwise_answer,
    pairwise_item_create,
    pairwise_layout,
    pairwise_queue,
)
from tests.factories import RubricVersionFactory, SpanFactory, TraceFactory

pytestmark = pytest.mark.django_db

TASK = "Cancel my most recent order."


@pytest.fixture
def pair():
    baseline = TraceFactory(
        task=TASK, agent_version="1.4.0-baseline", final_answer="Order A1042 is cancelled."
    )
    candidate = TraceFactory(
        task=TASK, agent_version="1.5.0-candidate", final_answer="<b>Cancelled</b> A1042."
    )
    SpanFactory(trace=baseline, span_id="b000000000000001", name="get_recent_orders")
    SpanFactory(trace=baseline, span_id="b000000000000002", name="cancel_order")
    SpanFactory(trace=candidate, span_id="c000000000000001", name="cancel_order")
    item, _ = pairwise_item_create(
        baseline_trace=baseline, candidate_trace=candidate, source=PairwiseSource.TRACES
    )
    return item


def test_holder_reads_both_trajectories_without_their_roles(client, annotator, pair):
    review_item_claim_next(user=annotator, queue=pair.queue)
    client.force_login(annotator)
    response = client.get(reverse("reviews:item_detail", args=[pair.pk]))
    html = response.content.decode()
    assert response.status_code == 200
    assert 'id="side-A"' in html and 'id="side-B"' in html
    assert "get_recent_orders" in html and html.count("cancel_order") >= 2
    # neither the agent version nor the word candidate tells the sides apart
    assert "1.5.0-candidate" not in html and "1.4.0-baseline" not in html
    assert 'data-role="candidate"' not in html
    # the trace's own text is escaped
    assert "<b>Cancelled</b>" not in html and "&lt;b&gt;Cancelled&lt;/b&gt;" in html
    # the left side is the item's trace
    left = pairwise_layout(pair.pairwise).left_trace_id
    assert html.index('id="side-A"') < html.index('id="side-B"')
    assert pair.trace_id == left


def test_answer_saves_and_opens_the_next_item_then_roles_show(client, annotator, pair):
    review_item_claim_next(user=annotator, queue=pair.queue)
    client.force_login(annotator)
    response = client.post(
        reverse("reviews:pairwise_answer", args=[pair.pk]),
        {"answer-0": "A", "explanation": "A looked the order up first."},
    )
    assert response.status_code == 302
    annotation = Annotation.objects.get(item=pair)
    expected = 1.0 if pair.pairwise.candidate_on_left else 0.0
    assert annotation.score == expected and annotation.criteria_results[0]["side"] == "A"
    page = client.get(reverse("reviews:item_detail", args=[pair.pk])).content.decode()
    assert 'data-role="candidate"' in page and "1.5.0-candidate" in page


def test_a_missing_answer_keeps_what_was_chosen(client, annotator):
    version = RubricVersionFactory(
        criteria=[{"question": "Looked it up first?"}, {"question": "True answer?"}]
    )
    queue = pairwise_queue()
    queue.rubric = version.rubric
    queue.save()
    item, _ = pairwise_item_create(
        baseline_trace=TraceFactory(task=TASK),
        candidate_trace=TraceFactory(task=TASK),
        source=PairwiseSource.TRACES,
    )
    review_item_claim_next(user=annotator, queue=queue)
    client.force_login(annotator)
    response = client.post(
        reverse("reviews:pairwise_answer", args=[item.pk]),
        {"answer-0": "B", "answer-1": "", "answer-2": "equal", "explanation": "kept"},
    )
    html = response.content.decode()
    assert response.status_code == 400
    assert "Answer each of the 3 questions" in html
    assert 'value="B" data-choice="B" checked' in html and ">kept</textarea>" in html
    assert not Annotation.objects.filter(item=item).exists()


def test_api_creates_a_pair_and_answers_it(curator, annotator, api_client_for):
    baseline, candidate = TraceFactory(task=TASK), TraceFactory(task=TASK)
    made = api_client_for(curator).post(
        "/api/reviews/pairwise/",
        {"baseline_trace": baseline.pk, "candidate_trace": candidate.pk},
        format="json",
    )
    assert made.status_code == 201
    body = made.json()
    assert {body["left_trace_id"], body["right_trace_id"]} == {baseline.pk, candidate.pk}
    again = api_client_for(curator).post(
        "/api/reviews/pairwise/",
        {"baseline_trace": baseline.pk, "candidate_trace": candidate.pk},
        format="json",
    )
    assert again.status_code == 200 and again.json()["item_id"] == body["item_id"]
    client = api_client_for(annotator)
    claimed = client.post(f"/api/reviews/queues/{body['queue_id']}/claim/")
    assert claimed.json()["item"]["id"] == body["item_id"]
    # the plain resolve endpoint refuses a number for a pairwise item, naming the field
    refused = client.post(
        f"/api/reviews/items/{body['item_id']}/resolve/", {"score": 1}, format="json"
    )
    assert refused.status_code == 400 and "answers" in refused.json()["error"]["fields"]
    bad = client.post(
        f"/api/reviews/items/{body['item_id']}/prefer/", {"answers": ["left"]}, format="json"
    )
    assert bad.status_code == 400 and "answers" in bad.content.decode()
    answered = client.post(
        f"/api/reviews/items/{body['item_id']}/prefer/", {"answers": ["equal"]}, format="json"
    )
    assert answered.status_code == 201 and answered.json()["score"] == 0.5


def test_api_refuses_different_tasks_by_field(curator, api_client_for):
    response = api_client_for(curator).post(
        "/api/reviews/pairwise/",
        {
            "baseline_trace": TraceFactory(task="One").pk,
            "candidate_trace": TraceFactory(task="Two").pk,
        },
        format="json",
    )
    assert response.status_code == 400
    assert "candidate_trace" in response.json()["error"]["fields"]


def test_curator_adjudicates_from_the_page(client, curator, pair):
    client.force_login(curator)
    page = client.get(reverse("reviews:item_detail", args=[pair.pk])).content.decode()
    assert 'name="mode" value="adjudicate"' in page
    client.post(
        reverse("reviews:pairwise_answer", args=[pair.pk]), {"answer-0": "B", "mode": "adjudicate"}
    )
    pair.refresh_from_db()
    assert pair.status == ReviewStatus.RESOLVED
    assert Annotation.objects.get(item=pair).is_adjudication
    # the answer is listed with what its side meant, above the two trajectories
    page = client.get(reverse("reviews:item_detail", args=[pair.pk])).content.decode()
    meant = "candidate" if not pair.pairwise.candidate_on_left else "baseline"
    assert f"<td>B ({meant})</td>" in page
    assert page.index('id="pairwise-answers"') < page.index('id="side-A"')


def test_a_queue_with_items_keeps_its_kind(client, curator, pair):
    client.force_login(curator)
    response = client.post(
        reverse("reviews:queue_edit", args=[pair.queue_id]),
        {"name": "Pairwise", "kind": "single", "priority": "0", "annotators_per_item": "1",
         "audit_sample_rate": "0"},
    )  # fmt: skip
    assert response.status_code == 200
    assert "make a new queue for the other kind" in response.content.decode()
    pair.queue.refresh_from_db()
    assert pair.queue.kind == "pairwise"


def test_both_traces_of_a_held_blind_pair_are_blind_until_answered(annotator, pair):
    review_item_claim_next(user=annotator, queue=pair.queue)
    comparison = pair.pairwise
    for trace in (comparison.baseline_trace, comparison.candidate_trace):
        assert trace_blind_for(annotator, trace)
    pairwise_answer(item=pair, user=annotator, answers=["equal"])
    assert not trace_blind_for(annotator, comparison.candidate_trace)
