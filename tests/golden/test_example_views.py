import json

from django.urls import reverse

from golden.models import GoldenExample
from tests.golden.builders import example, reference_step

STEPS = [
    reference_step(
        1,
        "search_flights",
        {"origin": "<from_context>", "destination": "<from_context>"},
        ["flights"],
    ),
]


def _form(**overrides):
    data = {
        "task": "Find me a flight from LIS to BER tomorrow morning",
        "task_type": "flight_booking",
        "adversarial_kind": "empty_tool_result",
        "context": json.dumps({"traveller_id": "T-1"}),
        "reference_trajectory": json.dumps(STEPS),
        "expected_outcome": "",
        "outcome_rubric": "",
        "expected_behavior": "search_flights returns no flights: say so, do not invent one.",
        "failure_tags": "hallucinated_result, empty_result",
        "red_flags": json.dumps(
            [
                {
                    "text": "Books a flight that was never returned",
                    "rule": {"rule": "never_called", "tool": "book_flight"},
                }
            ]
        ),
    }
    data.update(overrides)
    return data


def test_curator_writes_an_adversarial_example_with_the_form(client, curator):
    client.force_login(curator)
    response = client.post(reverse("golden:example_create"), _form())
    created = GoldenExample.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("golden:example_detail", args=[created.pk])
    assert created.adversarial_kind == "empty_tool_result"
    assert created.failure_tags == ["empty_result", "hallucinated_result"]
    assert created.reference_trajectory == STEPS
    assert created.created_by == curator


def test_invalid_json_and_broken_steps_are_shown_on_their_fields(client, curator):
    client.force_login(curator)
    bad_json = client.post(
        reverse("golden:example_create"), _form(reference_trajectory='[{"step": 1,')
    )
    assert bad_json.status_code == 400
    assert "Not valid JSON" in bad_json.content.decode()
    bad_step = client.post(
        reverse("golden:example_create"),
        _form(
            reference_trajectory=json.dumps([{**STEPS[0], "inputs": {"x": "<from_step_2_output>"}}])
        ),
    )
    body = bad_step.content.decode()
    assert bad_step.status_code == 400
    assert "[0].inputs.x: &lt;from_step_2_output&gt; must name an earlier step" in body
    assert GoldenExample.objects.count() == 0


def test_a_near_duplicate_is_pointed_out_and_can_be_saved_anyway(client, curator):
    # given an existing example with nearly the same task
    existing = example(
        task="Find me a flight from LIS to BER tomorrow morning!", task_type="flight_booking"
    )
    client.force_login(curator)
    # when the curator saves the new one
    warned = client.post(reverse("golden:example_create"), _form())
    # then the duplicate is named and nothing is saved until confirmed
    assert warned.status_code == 400
    assert f"#{existing.pk}" in warned.content.decode()
    assert "Save anyway" in warned.content.decode()
    assert GoldenExample.objects.count() == 1
    saved = client.post(reverse("golden:example_create"), _form(allow_duplicate="on"))
    assert saved.status_code == 302 and GoldenExample.objects.count() == 2


def test_curator_edits_the_reference_trajectory(client, curator):
    target = example(task="Cancel order A1042", reference_trajectory=STEPS)
    client.force_login(curator)
    page = client.get(reverse("golden:example_edit", args=[target.pk]))
    assert page.status_code == 200 and "search_flights" in page.content.decode()
    new_steps = [{**STEPS[0], "tool": "search_flights_v2"}]
    response = client.post(
        reverse("golden:example_edit", args=[target.pk]),
        _form(
            task="Cancel order A1042",
            task_type="order_cancellation",
            reference_trajectory=json.dumps(new_steps),
        ),
    )
    assert response.status_code == 302
    target.refresh_from_db()
    assert target.reference_trajectory[0]["tool"] == "search_flights_v2"


def test_annotator_reads_examples_but_cannot_write(client, annotator):
    target = example(task="Cancel order A1042")
    client.force_login(annotator)
    assert client.get(reverse("golden:example_detail", args=[target.pk])).status_code == 200
    assert client.get(reverse("golden:example_create")).status_code == 403
    assert client.post(reverse("golden:example_edit", args=[target.pk]), _form()).status_code == 403


def test_trace_text_is_escaped_on_the_detail_page(client, curator):
    target = example(
        task='<script>alert("x")</script> cancel it',
        reference_trajectory=[{**STEPS[0], "inputs": {"q": "<img src=x onerror=1>"}}],
    )
    client.force_login(curator)
    body = client.get(reverse("golden:example_detail", args=[target.pk])).content.decode()
    assert "<script>alert" not in body and "&lt;script&gt;alert" in body
    assert "<img src=x" not in body


def test_the_list_page_query_count_does_not_grow_with_rows(
    client, curator, django_assert_max_num_queries
):
    client.force_login(curator)
    for n in range(3):
        example(task=f"Cancel order A{n}", created_by=curator)
    client.get(reverse("golden:example_list"))
    with django_assert_max_num_queries(12) as few:
        client.get(reverse("golden:example_list"))
    for n in range(30):
        example(task=f"Book flight {n}", created_by=curator)
    with django_assert_max_num_queries(len(few.captured_queries)):
        client.get(reverse("golden:example_list"))


def test_the_form_saves_optional_and_alternative_inputs_and_refuses_a_broken_spec(client, curator):
    client.force_login(curator)
    specs = [
        {
            **STEPS[0],
            "inputs": {"origin": {"any_of": ["LIS", "Lisbon"]}, "cabin": {"optional": True}},
            "optional": True,
        }
    ]
    saved = client.post(
        reverse("golden:example_create"), _form(reference_trajectory=json.dumps(specs))
    )
    assert saved.status_code == 302
    assert GoldenExample.objects.get().reference_trajectory == specs
    broken = [{**STEPS[0], "inputs": {"origin": {"any_of": "LIS"}}}]
    refused = client.post(
        reverse("golden:example_create"), _form(reference_trajectory=json.dumps(broken))
    )
    assert refused.status_code == 400
    assert (
        "[0].inputs.origin: &#x27;any_of&#x27; must be a non-empty list" in refused.content.decode()
    )
