import json

import pytest

from golden.models import DatasetVersion, GoldenExample
from tests.e2e.conftest import login_as
from tests.golden.builders import reference_step

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

GOOD = {
    "task": "Cancel my most recent order, customer C-77",
    "task_type": "order_cancellation",
    "reference_trajectory": [
        reference_step(1, "get_recent_orders", {"customer_id": "<from_context>"}, ["orders"]),
    ],
}


def _file(name: str, lines: list) -> dict:
    text = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines)
    return {"name": name, "mimeType": "application/x-ndjson", "buffer": text.encode()}


def test_curator_uploads_jsonl_sees_line_errors_then_imports(new_page, curator):
    page = new_page()
    login_as(page, curator)
    page.goto("/golden/import/")

    # when a file with a broken second line is uploaded
    page.set_input_files("#id_open_file", _file("open.jsonl", [GOOD, '{"task": ']))
    page.fill("#id_version_name", "imported-v1")
    page.click("button[type=submit].primary")

    # then the line is named and nothing is imported
    errors = page.locator("#import-errors").inner_text()
    assert "Nothing was imported" in errors and "open.jsonl line 2: line: not JSON" in errors
    assert GoldenExample.objects.count() == 0

    # when a good file is uploaded (the refused upload answered 400, which the console logs)
    page.console_errors.clear()
    page.set_input_files("#id_open_file", _file("open.jsonl", [GOOD]))
    page.fill("#id_version_name", "imported-v1")
    page.click("button[type=submit].primary")
    page.wait_for_url("**/golden/versions/*/")

    # then the version page shows the example and its hash
    version = DatasetVersion.objects.get(name="imported-v1")
    assert version.content_hash in page.locator("main").inner_text()
    assert "Cancel my most recent order" in page.locator("table").inner_text()
    assert page.console_errors == []
