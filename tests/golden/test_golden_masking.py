"""The golden set holds no value a masking detector finds: promotion, hand-written examples,
edits and imports are masked, the draft says what will be, and exports carry marks only."""

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from golden.masking import example_data_masked
from golden.models import DatasetVersion, GoldenExample
from golden.services import golden_example_create, golden_example_promote
from tests.golden.builders import cancel_order_trace, resolved_item
from traces.masking.detectors import DETECTORS
from traces.masking.masker import every_detector

pytestmark = pytest.mark.django_db

EMAIL, OTHER_EMAIL = DETECTORS["email"].examples
CARD = DETECTORS["card"].examples[0]
PHONE = DETECTORS["phone"].examples[0]
KEY = DETECTORS["secret"].examples[2]


def _unmasked_trace():
    """A trace stored before its project had any masking rule."""
    trace = cancel_order_trace(
        task=f"Cancel my order; I'm {EMAIL}, call {PHONE}.",
        final_answer=f"Cancelled; refund to card {CARD}.",
        context={"customer_email": EMAIL, "locale": "en-GB"},
    )
    span = trace.spans.get(name="cancel_order")
    span.input = {"order_id": "A1042", "notify": OTHER_EMAIL}
    span.save()
    return trace


def _holds_secret(value) -> list[str]:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return [secret for secret in (EMAIL, OTHER_EMAIL, CARD, PHONE, KEY) if secret in text]


def test_promoting_an_unmasked_trace_masks_the_example_with_the_projects_marks(curator):
    trace = _unmasked_trace()
    item = resolved_item(trace, score=1.0)
    example = golden_example_promote(item=item, annotation=item.annotations.get(), user=curator)
    content = {
        name: getattr(example, name)
        for name in ("task", "context", "reference_trajectory", "expected_outcome")
    }
    assert _holds_secret(content) == []
    # the same address keeps the mark the project gives it at ingest, in every field
    mark = every_detector(trace.project.masking_key).text(EMAIL)
    assert mark in example.task and example.context["customer_email"] == mark
    step = next(s for s in example.reference_trajectory if s["tool"] == "cancel_order")
    assert step["inputs"]["notify"] == every_detector(trace.project.masking_key).text(OTHER_EMAIL)


def test_the_promotion_draft_says_what_will_be_masked(client, curator):
    item = resolved_item(_unmasked_trace(), score=1.0)
    client.force_login(curator)
    page = client.get(f"/golden/promote/{item.pk}/")
    assert page.status_code == 200
    body = page.content.decode()
    panel = body.split('id="will-mask"')[1].split("</div>")[0]
    assert "<code>task</code>: email" in panel and "<code>task</code>: phone" in panel
    assert "<code>expected_outcome</code>: card" in panel
    assert "<code>context.customer_email</code>: email" in panel


def test_hand_written_and_edited_examples_are_masked(curator):
    example = golden_example_create(
        data={
            "task": f"Rotate the leaked key {KEY}",
            "task_type": "security",
            "expected_behavior": f"Never echo {KEY}.",
        },
        user=curator,
    )
    assert _holds_secret([example.task, example.expected_behavior]) == []
    assert re.search(r"<secret:[0-9a-f]{8}>", example.task)


def test_imported_examples_and_their_export_hold_no_detected_value(api_client_for, curator):
    client = api_client_for(curator)
    line = json.dumps({"task": f"Email {EMAIL} the receipt", "task_type": "support"})
    imported = client.post(
        "/api/golden/import/",
        {"open_file": SimpleUploadedFile("open.jsonl", line.encode()), "version_name": "v1"},
        format="multipart",
    )
    assert imported.status_code == 201, imported.content
    assert _holds_secret(GoldenExample.objects.get().task) == []
    version_id = DatasetVersion.objects.latest("pk").pk
    export = client.get(f"/api/golden/versions/{version_id}/export/?part=open")
    body = b"".join(export.streaming_content).decode()
    assert "<email:" in body and _holds_secret(body) == []


def test_masking_finds_nothing_in_clean_content():
    data = {"task": "Cancel order A1042 placed 2026-12-05", "context": {"tier": "gold"}}
    masked, found = example_data_masked(data, None)
    assert masked == data and found == []


def test_a_tool_world_holds_marks_and_still_answers_the_value_sent_in_the_clear(curator):
    from golden.models import EvalTrial, ToolWorldCall
    from golden.worlds.serving import tool_world_call
    from tests.golden.world_builders import handout, support_world, world_example, world_run

    world = support_world()
    world["tools"][0]["input_schema"] = {"type": "object"}
    world["recordings"][0] = {
        "tool": world["recordings"][0]["tool"],
        "arguments": {"customer_id": "C-77", "email": EMAIL},
        "result": {"orders": [], "phone_on_file": PHONE},
    }
    example = world_example(curator, world=world)
    assert _holds_secret(example.tool_world) == []
    _, handouts = world_run(curator, examples=[example])
    trial = EvalTrial.objects.select_related("entry").get(pk=handout(handouts)["trial_id"])
    answer = tool_world_call(
        trial,
        world["recordings"][0]["tool"],
        {"customer_id": "C-77", "email": EMAIL},
        transport=ToolWorldCall.Transport.HTTP,
    )
    assert answer.status == 200 and answer.call.recording == 0
    assert answer.body["result"]["phone_on_file"].startswith("<phone:")
    assert _holds_secret(answer.call.arguments) == []
