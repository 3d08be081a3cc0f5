import json

from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from golden.models import DatasetVersion, GoldenExample
from golden.services import dataset_version_create, golden_example_update
from tests.golden.builders import example


def _body(response) -> str:
    return b"".join(response.streaming_content).decode()


def test_curator_snapshots_a_version_from_the_page(client, curator):
    example(task="Cancel order A1")
    client.force_login(curator)
    response = client.post(
        reverse("golden:version_create"), {"name": "2026-12 baseline", "note": "first cut"}
    )
    version = DatasetVersion.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("golden:version_detail", args=[version.pk])
    detail = client.get(response.url).content.decode()
    assert version.content_hash in detail


def test_a_taken_name_is_refused_with_a_message(client, curator):
    dataset_version_create(name="v1", user=curator)
    client.force_login(curator)
    response = client.post(reverse("golden:version_create"), {"name": "v1"}, follow=True)
    assert "already exists" in response.content.decode()
    assert DatasetVersion.objects.count() == 1


def test_export_streams_one_json_line_per_example(client, curator):
    for n in range(3):
        example(task=f"Cancel order A{n}")
    version = dataset_version_create(name="v1", user=curator)
    client.force_login(curator)
    response = client.get(reverse("golden:version_export", args=[version.pk, "open"]))
    assert response.streaming
    assert response["Content-Type"].startswith("application/x-ndjson")
    assert 'filename="v1-open.jsonl"' in response["Content-Disposition"]
    lines = _body(response).splitlines()
    assert sorted(json.loads(line)["task"] for line in lines) == [
        "Cancel order A0",
        "Cancel order A1",
        "Cancel order A2",
    ]


def test_import_page_reports_bad_lines_and_imports_nothing(client, curator):
    client.force_login(curator)
    upload = SimpleUploadedFile(
        "open.jsonl", b'{"task": "Cancel order A1"}\n{"task": "x", "red_flags": [{"text": ""}]}\n'
    )
    response = client.post(reverse("golden:import"), {"open_file": upload, "version_name": "v"})
    body = response.content.decode()
    assert response.status_code == 400
    assert "Nothing was imported" in body
    assert "open.jsonl line 2: red_flags[0].text" in body
    assert not GoldenExample.objects.exists() and not DatasetVersion.objects.exists()


def test_page_export_then_page_import_keeps_the_hash(client, curator):
    example(task="Cancel order A1")
    example(task="Rebook flight TP538", task_type="flight_rebooking", held_out=True)
    version = dataset_version_create(name="v1", user=curator)
    client.force_login(curator)
    parts = {
        part: _body(client.get(reverse("golden:version_export", args=[version.pk, part])))
        for part in ("open", "held_out")
    }
    GoldenExample.objects.all().delete()
    response = client.post(
        reverse("golden:import"),
        {
            "open_file": SimpleUploadedFile("open.jsonl", parts["open"].encode()),
            "held_out_file": SimpleUploadedFile("held_out.jsonl", parts["held_out"].encode()),
            "version_name": "v1-restored",
        },
    )
    restored = DatasetVersion.objects.get(name="v1-restored")
    assert response.status_code == 302
    assert restored.content_hash == version.content_hash


def test_the_diff_page_lists_added_removed_and_changed(client, curator):
    kept = example(task="Cancel order A1")
    dropped = example(task="Cancel order A2")
    v1 = dataset_version_create(name="v1", user=curator)
    golden_example_update(example=kept, data={"expected_behavior": "Confirm first."}, user=curator)
    dropped.delete()
    example(task="Cancel order A3")
    v2 = dataset_version_create(name="v2", user=curator)
    client.force_login(curator)
    body = client.get(
        reverse("golden:version_diff") + f"?old={v1.pk}&new={v2}".replace(f"{v2}", str(v2.pk))
    ).content.decode()
    assert "Added (1)" in body and "Cancel order A3" in body
    assert "Removed (1)" in body and "Cancel order A2" in body
    assert "Changed (1)" in body and "expected_behavior" in body


def test_held_out_draw_page_sets_the_share(client, curator):
    for n in range(10):
        example(task=f"Cancel order A{n}")
    client.force_login(curator)
    response = client.post(reverse("golden:held_out"), {"share_percent": 20}, follow=True)
    assert "2 examples held out across 1 task types" in response.content.decode()
    assert GoldenExample.objects.filter(held_out=True).count() == 2
    refused = client.post(reverse("golden:held_out"), {"share_percent": 90})
    assert refused.status_code == 400


def test_held_out_draw_page_can_redraw_one_task_type(client, curator):
    for n in range(10):
        example(task=f"Cancel order A{n}")
    example(task="Book flight", task_type="flight_booking", held_out=True)
    client.force_login(curator)
    client.post(
        reverse("golden:held_out"), {"share_percent": 50, "task_type": "order_cancellation"}
    )
    assert GoldenExample.objects.filter(held_out=True, task_type="order_cancellation").count() == 5
    assert GoldenExample.objects.get(task_type="flight_booking").held_out
