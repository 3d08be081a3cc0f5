from django.urls import reverse

from golden.models import GoldenExample
from tests.factories import ReviewItemFactory
from tests.golden.builders import cancel_order_trace, resolved_item


def test_the_promote_page_lists_resolved_items_not_yet_promoted(client, curator):
    pending = resolved_item()
    ReviewItemFactory(trace=cancel_order_trace(task_type="x"))  # still open: not listed
    client.force_login(curator)
    body = client.get(reverse("golden:promote_list")).content.decode()
    assert f'id="item-{pending.pk}"' in body
    assert body.count('class="primary">Promote</button>') == 1


def test_promoting_opens_the_draft_for_editing(client, curator):
    item = resolved_item(explanation="Should ask which order.")
    client.force_login(curator)
    response = client.post(reverse("golden:promote_item", args=[item.pk]))
    example = GoldenExample.objects.get(source_review_item=item)
    assert response.status_code == 302
    assert response.url == reverse("golden:example_edit", args=[example.pk])
    edit = client.get(response.url).content.decode()
    assert "&lt;from_step_1_output&gt;" in edit
    listing = client.get(reverse("golden:promote_list")).content.decode()
    assert f'id="item-{item.pk}"' not in listing


def test_an_open_item_is_not_promoted(client, curator):
    item = ReviewItemFactory(trace=cancel_order_trace())
    client.force_login(curator)
    response = client.post(reverse("golden:promote_item", args=[item.pk]), follow=True)
    assert "Only resolved review items" in response.content.decode()
    assert not GoldenExample.objects.exists()


def test_annotators_cannot_promote(client, annotator):
    item = resolved_item()
    client.force_login(annotator)
    assert client.post(reverse("golden:promote_item", args=[item.pk])).status_code == 403
    assert client.get(reverse("golden:promote_list")).status_code == 403
