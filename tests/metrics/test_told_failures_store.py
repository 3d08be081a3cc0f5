"""A trace's error count takes in the failed calls its checks read in messages alone, once the
trace settles; late spans, ingest's recount and the usage recount keep them, its session's
totals follow, and the trace list's status filter finds the trace."""

import io

import pytest
from django.core.management import call_command

from metrics.redflag_store import red_flags_check
from tests.factories import ProjectFactory
from traces.filters import filter_query, traces_for_query
from traces.ingest.services import ingest_span_tree
from traces.models import Session, Trace
from traces.session_totals import sessions_totals_recount
from traces.usage_recount import traces_usage_recount

pytestmark = pytest.mark.django_db

TRACE_ID = "7c2d0a9e4b1f4c3d8e6a5b4c3d2e1f0a"
TASK = {"role": "user", "content": "Refund order A1042."}
LOOKUP = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "lookup_order", "arguments": "{}"}}
    ],
}
FAILED = {"role": "tool", "tool_call_id": "c1", "content": "Error: order service unavailable"}


def chat(span_id, history, output, minute):
    return {
        "span_id": span_id,
        "name": "chat gpt-4o-mini",
        "type": "llm",
        "input": history,
        "output": output,
        "start_time": f"2026-11-20T10:{minute:02d}:00Z",
        "end_time": f"2026-11-20T10:{minute:02d}:10Z",
    }


def plain_loop(*late):
    """An SDK tool loop: no tool span, the lookup's failure only in what the model is handed."""
    return {
        "trace_id": TRACE_ID,
        "span_id": "root",
        "name": "support-agent",
        "type": "agent",
        "input": "Refund order A1042.",
        "output": "Sorry, the order service is down.",
        "start_time": "2026-11-20T10:00:00Z",
        "end_time": "2026-11-20T10:09:00Z",
        "context": {"session_id": "conv-1"},
        "children": [
            chat("m1", [TASK], [LOOKUP], 1),
            chat("m2", [TASK, LOOKUP, FAILED], "Sorry, the order service is down.", 2),
            *late,
        ],
    }


def errors(trace: Trace) -> tuple[int, int, int]:
    """(error count, of it told in messages alone, the session's error count)."""
    trace.refresh_from_db()
    return trace.error_count, trace.told_error_count, Session.objects.get().error_count


def listed_failed() -> list[int]:
    return list(
        traces_for_query(Trace.objects.all(), filter_query({"status": "error"})).values_list(
            "pk", flat=True
        )
    )


def test_a_settled_plain_loop_counts_the_failure_the_model_was_told():
    trace = ingest_span_tree(ProjectFactory(), plain_loop())
    assert errors(trace) == (1, 1, 1)
    assert listed_failed() == [trace.pk]
    assert traces_for_query(Trace.objects.all(), filter_query({"status": "ok"})).count() == 0
    # recounting the session from its traces agrees with what was kept
    sessions_totals_recount([trace.session_id])
    assert errors(trace) == (1, 1, 1)


def test_text_errors_turned_off_count_no_told_failure():
    project = ProjectFactory(tool_error_text_detection=False)
    trace = ingest_span_tree(project, plain_loop())
    assert errors(trace) == (0, 0, 0)
    assert listed_failed() == []


def test_late_spans_and_the_usage_recount_keep_it():
    project = ProjectFactory()
    trace = ingest_span_tree(project, plain_loop())
    # when a span with nothing failed arrives late, ingest recounts the spans' errors
    note = {"span_id": "note", "name": "note", "type": "custom", "output": "ok"}
    ingest_span_tree(project, plain_loop(note))
    assert errors(trace) == (1, 1, 1)
    # and the recount of stored traces' totals leaves it too
    assert traces_usage_recount() == (1, 0)
    assert errors(trace) == (1, 1, 1)


def test_a_late_failed_tool_span_for_the_told_call_is_still_one_failure():
    project = ProjectFactory()
    trace = ingest_span_tree(project, plain_loop())
    tool = {
        "span_id": "t1",
        "name": "lookup_order",
        "type": "tool",
        "tool_call_id": "c1",
        "input": {},
        "output": "Error: order service unavailable",
        "status": "error",
        "start_time": "2026-11-20T10:01:30Z",
        "end_time": "2026-11-20T10:01:40Z",
    }
    ingest_span_tree(project, plain_loop(tool))
    # the failed span counts the call now; the check run again for the late span lets go of it
    assert errors(trace) == (1, 0, 1)
    assert traces_usage_recount() == (1, 0)
    assert errors(trace) == (1, 0, 1)


def test_a_check_after_text_errors_are_turned_off_lets_the_text_failure_go():
    project = ProjectFactory()
    trace = ingest_span_tree(project, plain_loop())
    assert errors(trace) == (1, 1, 1)
    project.tool_error_text_detection = False
    project.save()
    # checked again, read without its project: the project's rule is read for it
    red_flags_check(Trace.objects.get(pk=trace.pk))
    assert errors(trace) == (0, 0, 0)
    assert listed_failed() == []


def test_traces_checked_before_told_failures_were_counted_are_recounted_by_the_command():
    trace = ingest_span_tree(ProjectFactory(), plain_loop())
    # as a trace checked before the count existed holds it: none, in the trace or its session
    Trace.objects.filter(pk=trace.pk).update(told_error_count=0, error_count=0)
    Session.objects.update(error_count=0)
    out = io.StringIO()

    call_command("recount_told_failures", stdout=out)
    assert errors(trace) == (1, 1, 1)
    assert out.getvalue().strip() == "1 traces recounted of 1 read."
    call_command("recount_told_failures", stdout=out)  # again: nothing moves
    assert errors(trace) == (1, 1, 1)


def test_the_trace_page_says_which_errors_no_span_shows(logged_in):
    trace = ingest_span_tree(ProjectFactory(), plain_loop())
    body = logged_in.get(f"/traces/{trace.pk}/").content.decode()
    assert '1 error</span> <span class="muted">(1 only in a tool result handed back' in body
    Trace.objects.filter(pk=trace.pk).update(told_error_count=0)  # as a failed span counts it
    body = logged_in.get(f"/traces/{trace.pk}/").content.decode()
    assert "1 error</span>" in body and "only in a tool result" not in body
