import json

import pytest

from golden.models import GoldenExample
from tests.e2e.conftest import login_as
from tests.golden.builders import reference_step, resolved_item

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_curator_promotes_a_resolved_item_and_edits_its_reference_trajectory(new_page, curator):
    # given a review item resolved as a failure on a support trace
    item = resolved_item(
        score=0.0,
        explanation="Should confirm the order before cancelling.",
        failure_tags=["no_confirmation"],
    )
    page = new_page()
    login_as(page, curator)

    # when the curator promotes it from the golden pages
    page.goto("/golden/promote/")
    page.locator(f"#item-{item.pk} a", has_text="Promote").click()
    page.wait_for_url(f"**/golden/promote/{item.pk}/")
    # the draft is not in the dataset until it is saved
    assert not GoldenExample.objects.filter(source_review_item=item).exists()

    # then the draft trajectory has the trace's tool calls with inferred placeholders
    textarea = page.locator("#id_reference_trajectory")
    draft = json.loads(textarea.input_value())
    assert [step["tool"] for step in draft] == ["get_recent_orders", "cancel_order"]
    assert draft[1]["inputs"]["order_id"] == "<from_step_1_output>"

    # when the curator types broken JSON, the page says so before saving
    textarea.fill('[{"step": 1,')
    assert (
        "Not valid JSON"
        in page.locator(".json-error[data-for=id_reference_trajectory]").inner_text()
    )

    # and when the curator inserts a confirmation step and saves
    edited = [
        draft[0],
        reference_step(
            2, "confirm_with_customer", {"order_id": "<from_step_1_output>"}, ["confirmed"]
        ),
        {**draft[1], "step": 3},
    ]
    textarea.fill(json.dumps(edited, indent=2))
    assert page.locator(".json-error[data-for=id_reference_trajectory]").is_hidden()
    page.click("button[type=submit].primary")
    page.wait_for_url("**/golden/examples/*/")

    # then the detail page shows the edited trajectory, stored as written
    rows = page.locator("#reference-trajectory tbody tr")
    assert rows.count() == 3
    assert "confirm_with_customer" in rows.nth(1).inner_text()
    example = GoldenExample.objects.get(source_review_item=item)
    assert [s["tool"] for s in example.reference_trajectory] == [
        "get_recent_orders",
        "confirm_with_customer",
        "cancel_order",
    ]
    assert example.expected_behavior == "Should confirm the order before cancelling."
    assert page.console_errors == []


def test_a_broken_step_is_refused_with_the_field_named(new_page, curator):
    item = resolved_item()
    page = new_page()
    login_as(page, curator)
    page.goto("/golden/promote/")
    page.locator(f"#item-{item.pk} a", has_text="Promote").click()
    page.wait_for_url(f"**/golden/promote/{item.pk}/")
    page.fill(
        "#id_reference_trajectory",
        json.dumps([reference_step(1, "cancel_order", {"order_id": "<from_step_4_output>"}, [])]),
    )
    page.click("button[type=submit].primary")
    error = page.locator(".field-reference_trajectory .field-error").first.inner_text()
    assert "[0].inputs.order_id" in error and "earlier step" in error
    assert not GoldenExample.objects.filter(source_review_item=item).exists()

    # and Cancel leaves the dataset as it was
    page.get_by_role("link", name="Cancel").click()
    page.wait_for_url("**/golden/promote/")
    assert not GoldenExample.objects.filter(source_review_item=item).exists()
    assert page.locator(f"#item-{item.pk}").count() == 1
