"""A curator clears a batch of wrong drafts and a trace nothing keeps, in the browser: each
through its confirmation page, with the real forms and their CSRF tokens."""

import pytest

from golden.models import GoldenExample
from tests.e2e.conftest import login_as
from tests.factories import GoldenExampleFactory, TraceFactory
from traces.models import Trace

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_curator_deletes_drafts_then_a_trace(new_page, curator):
    kept_example = GoldenExampleFactory(task="Confirmed: refund order A1990")
    for number in range(3):
        GoldenExampleFactory(task=f"Wrong draft {number}", draft=True)
    promoted = TraceFactory(task="Backs the confirmed example")
    kept_example.source_trace = promoted
    kept_example.save(update_fields=["source_trace"])
    junk = TraceFactory(task="A test run sent to the wrong project")
    page = new_page()
    page.set_viewport_size({"width": 1400, "height": 900})
    login_as(page, curator)

    page.goto("/golden/?draft=yes")
    page.click("#examples-delete")
    assert page.locator("h1").inner_text() == "Delete 3 golden examples?"
    page.click("#delete-form button[type=submit]")
    page.wait_for_url("**/golden/?draft=yes")
    assert "Deleted 3 golden examples." in page.locator(".messages").inner_text()
    assert list(GoldenExample.objects.all()) == [kept_example]

    page.goto(f"/traces/{promoted.pk}/delete/")
    assert page.locator("h1").inner_text() == "This trace cannot be deleted yet"
    assert page.locator("#delete-form").count() == 0

    page.goto(f"/traces/{junk.pk}/")
    page.click("#trace-delete")
    assert page.locator("h1").inner_text() == "Delete this trace?"
    page.click("#delete-form button[type=submit]")
    page.wait_for_url("**/traces/")
    assert f"Deleted trace {junk.external_id}." in page.locator(".messages").inner_text()
    assert list(Trace.objects.values_list("pk", flat=True)) == [promoted.pk]
    assert page.console_errors == []


def test_past_the_cap_a_curator_deletes_in_the_background_and_watches_it_finish(
    new_page, curator, monkeypatch
):
    from traces import deletion
    from traces.deletion_jobs import trace_deletion_run
    from traces.models import TraceDeletion

    monkeypatch.setattr(deletion, "MAX_TRACES_DELETED_AT_ONCE", 2)
    doomed = [TraceFactory(agent_version="2.0.0", task=f"Load test {n}") for n in range(5)]
    GoldenExampleFactory(source_trace=doomed[0])
    page = new_page()
    page.set_viewport_size({"width": 1400, "height": 900})
    login_as(page, curator)

    page.goto("/traces/?agent_version=2.0.0")
    page.click("#delete-listed")
    assert page.locator("h1").inner_text() == "Delete 5 traces in the background?"
    page.click("#delete-background-form button[type=submit]")
    page.wait_for_url("**/traces/deletions/*/")
    assert page.locator("[data-testid=deletion-status]").inner_text() == "Waiting for a worker"

    trace_deletion_run(TraceDeletion.objects.get().pk)  # what the worker does

    page.locator("[data-testid=deletion-status]", has_text="Done").wait_for(timeout=10_000)
    assert page.locator("[data-testid=deletion-deleted]").inner_text() == "4"
    assert "Kept by golden examples: 1 trace" in page.locator("#deletion-kept-by").inner_text()
    assert list(Trace.objects.values_list("pk", flat=True)) == [doomed[0].pk]
    assert page.console_errors == []
