from golden.models import GoldenExample
from tests.golden.builders import example, reference_step, resolved_item

EXAMPLE = {
    "task": "My flight TP538 was cancelled, rebook me on the next one to BER.",
    "task_type": "flight_rebooking",
    "adversarial_kind": "contradictory_outputs",
    "reference_trajectory": [
        reference_step(1, "get_booking", {"flight_id": "<from_context>"}, ["status"]),
        reference_step(2, "search_flights", {"destination": "BER"}, ["flights"]),
    ],
    "expected_behavior": "get_booking says confirmed while the airline says cancelled: ask.",
    "red_flags": [
        {
            "text": "Rebooks without resolving the contradiction",
            "rule": {"rule": "never_called", "tool": "rebook_flight"},
        }
    ],
}


def test_curator_creates_an_example_through_the_api(api_client_for, curator):
    response = api_client_for(curator).post("/api/golden/examples/", EXAMPLE, format="json")
    assert response.status_code == 201
    body = response.json()
    assert body["adversarial_kind"] == "contradictory_outputs"
    assert body["created_by"] == "cora" and len(body["key"]) == 32
    assert GoldenExample.objects.get().reference_trajectory == EXAMPLE["reference_trajectory"]


def test_a_bad_trajectory_is_a_json_error_naming_the_field(api_client_for, curator):
    bad = {
        **EXAMPLE,
        "reference_trajectory": [
            {"step": 2, "tool": "x", "inputs": {}, "acceptable_output_fields": []}
        ],
    }
    response = api_client_for(curator).post("/api/golden/examples/", bad, format="json")
    assert response.status_code == 400
    assert "reference_trajectory[0].step" in response.json()["error"]["fields"]
    assert not GoldenExample.objects.exists()


def test_a_near_duplicate_is_a_conflict_until_allowed(api_client_for, curator):
    example(task=EXAMPLE["task"], task_type="flight_rebooking")
    client = api_client_for(curator)
    conflict = client.post("/api/golden/examples/", EXAMPLE, format="json")
    assert conflict.status_code == 409
    assert conflict.json()["error"]["code"] == "near_duplicate"
    assert "task" in conflict.json()["error"]["fields"]
    allowed = client.post(
        "/api/golden/examples/", {**EXAMPLE, "allow_duplicate": True}, format="json"
    )
    assert allowed.status_code == 201


def test_curator_patches_the_reference_trajectory(api_client_for, curator):
    target = example(task="Cancel order A1")
    steps = [reference_step(1, "get_recent_orders", {"customer_id": "<from_context>"}, ["orders"])]
    response = api_client_for(curator).patch(
        f"/api/golden/examples/{target.pk}/", {"reference_trajectory": steps}, format="json"
    )
    assert response.status_code == 200
    target.refresh_from_db()
    assert target.reference_trajectory == steps and target.task == "Cancel order A1"


def test_annotator_tokens_read_but_cannot_write(api_client_for, annotator):
    target = example(task="Cancel order A1")
    client = api_client_for(annotator)
    assert client.get(f"/api/golden/examples/{target.pk}/").status_code == 200
    assert client.post("/api/golden/examples/", EXAMPLE, format="json").status_code == 403
    assert (
        client.patch(f"/api/golden/examples/{target.pk}/", {"task": "x"}, format="json").status_code
        == 403
    )
    assert (
        client.post("/api/golden/held-out/draw/", {"share": 0.2}, format="json").status_code == 403
    )


def test_promote_through_the_api(api_client_for, curator):
    item = resolved_item()
    response = api_client_for(curator).post(
        "/api/golden/examples/promote/", {"item": item.pk}, format="json"
    )
    assert response.status_code == 201
    assert response.json()["reference_trajectory"][1]["inputs"]["order_id"] == (
        "<from_step_1_output>"
    )


def test_held_out_draw_through_the_api(api_client_for, curator):
    for n in range(5):
        example(task=f"Cancel order {n}")
    response = api_client_for(curator).post(
        "/api/golden/held-out/draw/", {"share": 0.2, "seed": 1}, format="json"
    )
    assert response.json() == {"held_out_by_task_type": {"order_cancellation": 1}}
    bad = api_client_for(curator).post("/api/golden/held-out/draw/", {"share": 2}, format="json")
    assert bad.status_code == 400 and "share" in bad.json()["error"]["fields"]
