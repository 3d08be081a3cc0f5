import json

from django.core.files.uploadedfile import SimpleUploadedFile

from golden.models import DatasetVersion, GoldenExample
from tests.golden.builders import example


def _body(response) -> bytes:
    return b"".join(response.streaming_content)


def test_version_create_export_import_round_trip_over_the_api(api_client_for, curator):
    # given a dataset with an open and a held-out example
    example(task="Cancel order A1", failure_tags=["wrong_order"])
    example(task="Fix the date parser", task_type="code_fix", held_out=True)
    client = api_client_for(curator)
    created = client.post(
        "/api/golden/versions/", {"name": "v1", "note": "baseline"}, format="json"
    )
    assert created.status_code == 201
    version = created.json()
    # when both parts are exported and imported into an emptied dataset
    parts = {
        part: _body(client.get(f"/api/golden/versions/{version['id']}/export/?part={part}"))
        for part in ("open", "held_out")
    }
    GoldenExample.objects.all().delete()
    imported = client.post(
        "/api/golden/import/",
        {
            "open_file": SimpleUploadedFile("open.jsonl", parts["open"]),
            "held_out_file": SimpleUploadedFile("held_out.jsonl", parts["held_out"]),
            "version_name": "v1-again",
        },
        format="multipart",
    )
    # then the new version has the same content hash
    assert imported.status_code == 201
    assert imported.json()["created"] == 2
    assert imported.json()["version"]["content_hash"] == version["content_hash"]


def test_import_errors_name_file_line_and_field(api_client_for, curator):
    upload = SimpleUploadedFile("open.jsonl", b'{"task": "ok"}\nnot json\n')
    response = api_client_for(curator).post(
        "/api/golden/import/", {"open_file": upload}, format="multipart"
    )
    assert response.status_code == 400
    assert "open.jsonl:2.line" in response.json()["error"]["fields"]
    assert not GoldenExample.objects.exists()


def test_duplicate_version_name_is_a_field_error(api_client_for, curator):
    client = api_client_for(curator)
    client.post("/api/golden/versions/", {"name": "v1"}, format="json")
    again = client.post("/api/golden/versions/", {"name": "v1"}, format="json")
    assert again.status_code == 400
    assert again.json()["error"]["fields"] == {"name": ["A version named 'v1' already exists."]}
    assert DatasetVersion.objects.count() == 1


def test_annotators_cannot_create_versions_or_import(api_client_for, annotator):
    client = api_client_for(annotator)
    assert client.post("/api/golden/versions/", {"name": "v"}, format="json").status_code == 403
    upload = SimpleUploadedFile("open.jsonl", json.dumps({"task": "x"}).encode())
    assert (
        client.post("/api/golden/import/", {"open_file": upload}, format="multipart").status_code
        == 403
    )


def test_diff_needs_two_version_ids(api_client_for, curator):
    response = api_client_for(curator).get("/api/golden/versions/diff/?old=x&new=1")
    assert response.status_code == 400 and "old" in response.json()["error"]["fields"]
