"""A blind item, before the person answers, shows task, trajectory and rubric only."""

import pytest
from django.urls import reverse

from reviews.claims import review_item_claim_next
from tests.reviews.blind_items import (
    EXPLANATIONS,
    FLAG_DETAIL,
    JUDGE_TEXTS,
    REASON_TEXT,
    VERDICT_DETAIL,
    blind_red_flag_item,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def blind_item():
    return blind_red_flag_item()


def _hidden(html: str) -> list[str]:
    return [text for text in (*JUDGE_TEXTS, "red-flags") if text in html]


def test_blind_item_and_its_trace_show_no_judge_until_answered(client, annotator, blind_item):
    assert review_item_claim_next(user=annotator, queue=blind_item.queue).pk == blind_item.pk
    client.force_login(annotator)
    item_url = reverse("reviews:item_detail", args=[blind_item.pk])
    trace_url = reverse("explorer:detail", args=[blind_item.trace_id])
    queue_url = reverse("reviews:queue_detail", args=[blind_item.queue_id])

    item_html = client.get(item_url).content.decode()
    assert _hidden(item_html) == []
    assert 'id="item-reason">needs review<' in item_html
    assert f'href="{trace_url}?blind=1"' in item_html
    # The trace page stays blind for the holder even without the query parameter.
    assert _hidden(client.get(trace_url).content.decode()) == []
    queue_html = client.get(queue_url).content.decode()
    assert 'class="badge">needs review<' in queue_html and 'badge bad">Outcome' not in queue_html

    client.post(reverse("reviews:item_resolve", args=[blind_item.pk]), {"score": "0"})
    item_html = client.get(item_url).content.decode()
    assert all(text in item_html for text in (*EXPLANATIONS, FLAG_DETAIL, REASON_TEXT))
    assert VERDICT_DETAIL in item_html
    assert FLAG_DETAIL in client.get(trace_url).content.decode()


def test_curators_see_the_judge_on_a_blind_item(client, curator, blind_item):
    client.force_login(curator)
    html = client.get(reverse("reviews:item_detail", args=[blind_item.pk])).content.decode()
    assert EXPLANATIONS[0] in html and FLAG_DETAIL in html


def _verdict_badges(html: str) -> int:
    return html.count('badge warn">disputed')


def test_other_pages_list_no_verdict_of_a_trace_labelled_blind(client, annotator, blind_item):
    # given the annotator holds the blind item, and its trace has a disputed verdict
    review_item_claim_next(user=annotator, queue=blind_item.queue)
    client.force_login(annotator)
    trace_list = reverse("explorer:list")
    run_page = reverse("judges:run_detail", args=[blind_item.verdict.run_id])
    # then neither the trace list nor the judge run page shows that verdict
    assert (
        _verdict_badges(client.get(trace_list, {"q": "Refund order A1042"}).content.decode()) == 0
    )
    assert VERDICT_DETAIL not in client.get(run_page).content.decode()
    # and once answered, both show it
    client.post(reverse("reviews:item_resolve", args=[blind_item.pk]), {"score": "0"})
    assert (
        _verdict_badges(client.get(trace_list, {"q": "Refund order A1042"}).content.decode()) == 1
    )
    assert VERDICT_DETAIL in client.get(run_page).content.decode()


def test_the_api_hides_reason_and_detail_of_a_blind_queue_from_annotators(
    annotator, curator, api_client_for, blind_item
):
    api = api_client_for(annotator)
    claimed = api.post(reverse("api-review-claim", args=[blind_item.queue_id])).json()["item"]
    assert claimed["id"] == blind_item.pk
    assert (claimed["reason"], claimed["detail"]) == (None, "")
    listing = api.get(reverse("api-review-queue-items", args=[blind_item.queue_id])).json()
    assert [(i["reason"], i["detail"]) for i in listing["results"]] == [(None, "")]
    # filtering by reason would tell the reason: refused, naming the field
    refused = api.get(
        reverse("api-review-queue-items", args=[blind_item.queue_id]), {"reason": "red_flag"}
    )
    assert refused.status_code == 400 and "reason" in refused.json()["error"]["fields"]
    # curators see it all
    seen = api_client_for(curator).get(
        reverse("api-review-queue-items", args=[blind_item.queue_id]), {"status": "all"}
    )
    assert seen.json()["results"][0]["detail"] == VERDICT_DETAIL


def test_spans_loaded_later_stay_blind_for_the_holder(client, annotator, blind_item):
    # given the annotator holds the blind item whose span a red flag fired on
    review_item_claim_next(user=annotator, queue=blind_item.queue)
    client.force_login(annotator)
    rows_url = reverse("explorer:tree_rows", args=[blind_item.trace_id])
    span = blind_item.trace.spans.get(name="issue_refund")
    params = {"parent": "", "from": "1", "to": "2"}
    # when the tree's later spans load, then nothing marks the flagged span
    rows = client.get(rows_url, params).content.decode()
    assert f'id="span-{span.span_id}"' in rows and "is-highlighted" not in rows
    body = client.get(reverse("traces:span_body", args=[blind_item.trace_id, span.pk]))
    assert _hidden(body.content.decode()) == []
    # and once answered, it is marked again
    client.post(reverse("reviews:item_resolve", args=[blind_item.pk]), {"score": "0"})
    assert "is-highlighted" in client.get(rows_url, params).content.decode()
