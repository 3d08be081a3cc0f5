"""manage.py ingest FILE...: JSONL with a progress bar; bad lines reported, others stored."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from tests.traces.test_ingest_span_tree import refund_tree
from tests.traces.test_ingest_transcripts import OPENAI
from traces.models import Trace

pytestmark = pytest.mark.django_db


def test_good_lines_land_and_bad_lines_are_reported_by_number(tmp_path):
    # given a file with a span tree, a broken line, a transcript and a tree missing its name
    path = tmp_path / "traces.jsonl"
    path.write_text(
        "\n".join(
            [
                json.dumps(refund_tree()),
                "{broken json",
                json.dumps(OPENAI),
                json.dumps({"type": "agent", "children": []}),
                "",
            ]
        )
    )
    out, err = io.StringIO(), io.StringIO()
    # when
    with pytest.raises(CommandError, match="2 lines failed"):
        call_command("ingest", str(path), "--no-progress", stdout=out, stderr=err)
    # then
    assert Trace.objects.count() == 2
    assert "2 traces stored, 2 failed" in out.getvalue()
    assert f"{path}:2: Not valid JSON" in err.getvalue()
    assert f"{path}:4: name: Every span needs a non-empty string name." in err.getvalue()


def test_json_file_is_one_trace_and_project_is_used(tmp_path):
    from tests.factories import ProjectFactory

    ProjectFactory(slug="support")
    path = tmp_path / "one.json"
    path.write_text(json.dumps(refund_tree(), indent=2))
    call_command(
        "ingest",
        str(path),
        "--project",
        "support",
        "--no-progress",
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )
    assert Trace.objects.get().project.slug == "support"


def test_a_new_project_is_created_on_first_use(tmp_path):
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(refund_tree()))
    call_command("ingest", str(path), "--project", "billing-agent", stdout=io.StringIO())
    assert Trace.objects.get().project.name == "Billing agent"


def test_a_project_that_is_no_slug_is_refused(tmp_path):
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(refund_tree()))
    with pytest.raises(CommandError, match="not a project slug"):
        call_command("ingest", str(path), "--project", "no such", stdout=io.StringIO())
    assert Trace.objects.count() == 0
