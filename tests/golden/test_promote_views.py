import html
import re

from django.urls import reverse

from golden.models import GoldenExample
from metrics.models import RedFlag
from tests.factories import ReviewItemFactory
from tests.golden.builders import cancel_order_trace, resolved_item


def test_the_promote_page_lists_resolved_items_not_yet_promoted(client, curator):
    pending = resolved_item()
    ReviewItemFactory(trace=cancel_order_trace(task_type="x"))  # still open: not listed
    client.force_login(curator)
    body = client.get(reverse("golden:promote_list")).content.decode()
    assert f'id="item-{pending.pk}"' in body
    assert body.count('class="button primary"') == 1


def test_promoting_opens_a_draft_that_is_written_only_when_saved(client, curator):
    item = resolved_item(explanation="Should ask which order.")
    client.force_login(curator)
    url = reverse("golden:promote_item", args=[item.pk])
    draft = client.get(url).content.decode()
    assert "&lt;from_step_1_output&gt;" in draft
    assert "Should ask which order." in draft
    assert f'href="{reverse("golden:promote_list")}">Cancel</a>' in draft
    assert not GoldenExample.objects.exists()  # opening (and leaving) the draft writes nothing

    form = re.search(r'<textarea name="reference_trajectory"[^>]*>(.*?)</textarea>', draft, re.S)
    posted = {
        "task": "Cancel customer C-77's latest order.",
        "task_type": "order_cancellation",
        "reference_trajectory": html.unescape(form.group(1)),
        "expected_behavior": "Should ask which order.",
    }
    response = client.post(url, posted)
    example = GoldenExample.objects.get(source_review_item=item)
    assert response.status_code == 302
    assert response.url == reverse("golden:example_detail", args=[example.pk])
    assert example.task == "Cancel customer C-77's latest order."
    assert example.source_trace == item.trace and example.origin == "promoted"
    assert example.reference_trajectory[1]["inputs"]["order_id"] == "<from_step_1_output>"
    listing = client.get(reverse("golden:promote_list")).content.decode()
    assert f'id="item-{item.pk}"' not in listing


def test_the_draft_form_marks_red_flagged_steps(client, curator):
    trace = cancel_order_trace()
    RedFlag.objects.create(
        trace=trace,
        span=trace.spans.get(name="cancel_order"),
        kind=RedFlag.Kind.PREREQUISITE,
        detail="cancel_order before confirming",
    )
    item = resolved_item(trace)
    client.force_login(curator)
    body = client.get(reverse("golden:promote_item", args=[item.pk])).content.decode()
    assert 'id="flagged-steps"' in body
    assert '<li data-step="2">Step 2 <code>cancel_order</code>' in body
    assert "cancel_order before confirming" in body


def test_an_open_item_is_not_promoted(client, curator):
    item = ReviewItemFactory(trace=cancel_order_trace())
    client.force_login(curator)
    response = client.get(reverse("golden:promote_item", args=[item.pk]), follow=True)
    assert "Only resolved review items" in response.content.decode()
    assert not GoldenExample.objects.exists()


def test_annotators_cannot_promote(client, annotator):
    item = resolved_item()
    client.force_login(annotator)
    assert client.get(reverse("golden:promote_item", args=[item.pk])).status_code == 403
    assert client.post(reverse("golden:promote_item", args=[item.pk])).status_code == 403
    assert client.get(reverse("golden:promote_list")).status_code == 403
