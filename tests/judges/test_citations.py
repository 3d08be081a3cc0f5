"""Cited spans are resolved to span ids when a judge reply is stored."""

import json

import pytest
from django.urls import reverse

from judges.citations import citations_resolve
from judges.execution import judgment_complete
from judges.models import JudgmentStatus, Rubric
from judges.providers.common import ProviderReply
from reviews.claims import review_item_claim_next
from tests.factories import (
    JudgeRunFactory,
    JudgmentFactory,
    QueueFactory,
    ReviewItemFactory,
    ToolSpanFactory,
    TraceFactory,
)

pytestmark = pytest.mark.django_db

# The seed general trace judge asks for {"score": <integer>, "reason": "<why, citing ...>"}.
REASON = (
    "search_flights #2 returned no fares for 14 March, yet book_flight booked TP-555, which "
    "neither search returned; search_flights[1] only listed TP-541. The weather_lookup[1] "
    "call the plan mentions never happened."
)


@pytest.fixture
def booking_trace():
    trace = TraceFactory(task="Book the cheapest nonstop flight from Lisbon to Berlin on 14 March.")
    spans = [
        ToolSpanFactory(trace=trace, span_id=f"{i:016x}", name=name, position=i)
        for i, name in enumerate(["search_flights", "search_flights", "book_flight"], start=1)
    ]
    return trace, spans


def _seed_general_judge_pass(trace):
    version = Rubric.objects.get(name="General trace judge").versions.order_by("number").first()
    assert '{"score": <integer>, "reason": "<why, citing the names of the spans' in (
        version.system_prompt
    )
    run = JudgeRunFactory(rubric_version=version)
    return JudgmentFactory(trace=trace, run=run, status=JudgmentStatus.RUNNING, score=None)


def _general_judge_reply_stored(trace):
    judgment = _seed_general_judge_pass(trace)
    reply = json.dumps({"score": 2, "reason": REASON})
    judgment_complete(judgment, ProviderReply(reply, 900, 80, 0, 0, 410), "digest-1")
    return judgment


@pytest.fixture
def judged_item(client, annotator, booking_trace):
    """The general judge's reply stored on the booking trace, and its review item claimed by
    the annotator, who is logged in."""
    trace, _ = booking_trace
    judgment = _general_judge_reply_stored(trace)
    item = ReviewItemFactory(
        trace=trace, rubric_version=judgment.rubric_version, queue=QueueFactory()
    )
    review_item_claim_next(user=annotator, queue=item.queue)
    client.force_login(annotator)
    return item


def test_a_reply_citing_by_name_and_number_is_stored_with_span_ids(booking_trace):
    trace, (first_search, second_search, booking) = booking_trace

    judgment = _general_judge_reply_stored(trace)

    judgment.refresh_from_db()
    assert judgment.score == 2
    assert judgment.cited_spans == [
        {"cited": "search_flights #2", "span_id": second_search.span_id},
        {"cited": "book_flight", "span_id": booking.span_id},
        {"cited": "search_flights[1]", "span_id": first_search.span_id},
        {"cited": "weather_lookup[1]", "span_id": ""},
    ]


def test_a_bare_shared_name_cites_every_span_of_it_and_ids_resolve_too(booking_trace):
    trace, (first_search, second_search, booking) = booking_trace
    spans = [(s.span_id, s.name) for s in (first_search, second_search, booking)]
    cited = citations_resolve(f"search_flights looped; see {booking.span_id}.", [], spans)
    assert [c["span_id"] for c in cited] == [
        first_search.span_id,
        second_search.span_id,
        booking.span_id,
    ]
    assert citations_resolve("", ["search_flights[3]"], spans) == [
        {"cited": "search_flights[3]", "span_id": ""}
    ]


def test_review_page_highlights_resolved_citations_and_lists_unresolved_ones(
    client, booking_trace, judged_item
):
    trace, (_, second_search, booking) = booking_trace
    item = judged_item

    html = client.get(reverse("reviews:item_detail", args=[item.pk])).content.decode()

    assert f'href="#span-{second_search.span_id}" class="cite"' in html
    assert f'href="#span-{booking.span_id}" class="cite"' in html
    assert 'class="cite-unresolved"' in html and "weather_lookup[1]" in html
    assert f'id="span-{second_search.span_id}"' in html
    assert html.count("is-highlighted") == 3


def test_cites_link_to_the_span_on_the_trace_page_and_flag_what_no_span_answers(
    client, booking_trace, judged_item
):
    trace, (_, second_search, booking) = booking_trace
    item = judged_item
    trace_url = reverse("explorer:detail", args=[trace.pk])

    item_html = client.get(reverse("reviews:item_detail", args=[item.pk])).content.decode()
    assert f'href="{trace_url}?span={booking.span_id}#span-{booking.span_id}"' in item_html
    assert 'weather_lookup[1] <span class="badge warn">no such span</span>' in item_html

    trace_html = client.get(trace_url).content.decode()
    assert f'href="?span={second_search.span_id}#span-{second_search.span_id}"' in trace_html
    assert 'weather_lookup[1] <span class="badge warn">no such span</span>' in trace_html
    assert f'id="span-{booking.span_id}"' in trace_html
    followed = client.get(trace_url, {"span": booking.span_id}).content.decode()
    assert f'class="span-node kind-tool is-highlighted" id="span-{booking.span_id}"' in followed


def test_citations_stored_as_bare_names_before_resolution_still_find_their_spans(
    client, annotator, booking_trace
):
    # given a pass stored the old way: the span names as if they were ids, one unknown
    trace, (first_search, second_search, booking) = booking_trace
    run = JudgeRunFactory()
    JudgmentFactory(trace=trace, run=run, cited_spans=["book_flight", "refund_lookup"])
    item = ReviewItemFactory(trace=trace, rubric_version=run.rubric_version, queue=QueueFactory())
    review_item_claim_next(user=annotator, queue=item.queue)
    client.force_login(annotator)
    html = client.get(reverse("reviews:item_detail", args=[item.pk])).content.decode()
    # then the name finds its span, and the unknown one is flagged rather than dropped
    assert f'href="#span-{booking.span_id}" class="cite"' in html
    assert 'refund_lookup <span class="badge warn">no such span</span>' in html
    assert html.count("is-highlighted") == 1
