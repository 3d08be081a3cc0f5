"""Uploading a JSONL file from the trace list page."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.traces.test_ingest_span_tree import refund_tree
from traces.models import Trace

pytestmark = pytest.mark.django_db
URL = "/traces/upload/"


def jsonl(*lines: str) -> SimpleUploadedFile:
    return SimpleUploadedFile("traces.jsonl", "\n".join(lines).encode(), "application/x-ndjson")


def test_upload_stores_good_lines_and_lists_bad_ones(client, annotator):
    # given
    client.force_login(annotator)
    upload = jsonl(json.dumps(refund_tree()), '{"name": ""}')
    # when
    response = client.post(URL, {"file": upload}, follow=True)
    # then
    assert Trace.objects.count() == 1
    shown = [str(m) for m in response.context["messages"]]
    assert "1 traces stored from traces.jsonl." in shown
    assert "Line 2: name: Every span needs a non-empty string name." in shown


def test_upload_without_a_file_says_what_to_do(client, annotator):
    client.force_login(annotator)
    response = client.post(URL, {}, follow=True)
    assert "Choose a JSONL file" in [str(m) for m in response.context["messages"]][0]


def test_upload_to_a_malformed_project_slug_is_refused(client, annotator):
    client.force_login(annotator)
    response = client.post(
        URL, {"file": jsonl(json.dumps(refund_tree())), "project": "no such"}, follow=True
    )
    assert Trace.objects.count() == 0
    assert "not a project slug" in [str(m) for m in response.context["messages"]][0]


def test_upload_needs_a_role_and_post(client, outsider, annotator):
    client.force_login(outsider)
    assert client.post(URL, {"file": jsonl("{}")}).status_code == 403
    client.force_login(annotator)
    assert client.get(URL).status_code == 405
