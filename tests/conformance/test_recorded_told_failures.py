"""Recorded runs whose failed tool call lives only in what the model was handed back (a plain
SDK tool loop under a provider instrumentation: no tool span; or a tool span left OK while
the model is told `is_error`): once the trace settles its error count takes the failure in,
so the trace list's Errors column, its status filter and its "Most errors" sort agree with
the checks. A run whose failed tool span also told the model counts that failure once."""

import pytest

from accounts.roles import ANNOTATOR
from metrics.steps import tool_steps_from_messages, tool_steps_from_spans, trace_spans
from tests.conformance.harness import PROJECT
from tests.conformance.recorded_reading import send_recorded
from tests.factories import ProjectFactory, UserFactory
from tests.judges.judge_reads import calls_marked_failed
from traces.completion import trace_complete
from traces.filters import filter_query, traces_for_query
from traces.models import SpanKind, SpanStatus, Trace
from traces.serialize import trace_span_tree

pytestmark = pytest.mark.django_db

# the failure only in the messages: no tool span (or none failed), the error handed back
TOLD_ONLY = [
    "openlit-openai-tool-error",
    "litellm-otel-tool-error",
    "bedrock-tool-error",
    "google-genai-chat-failing",
    "logfire-anthropic-v1-tool-error",
    "openinference-google-genai-tool-error",
    "autogen-tool-error",
]
# the same failure told as text alone (`Error: ...`), not flagged
TOLD_AS_TEXT = ["openlit-openai-tool-error", "litellm-otel-tool-error"]
# a failed tool span, its error also handed back to the model
SPAN_AND_TOLD = ["mlflow-openai-tool-error", "langfuse-tool-error", "haystack-tool-error"]


@pytest.fixture
def api(api_client_for):
    return api_client_for(UserFactory(roles=[ANNOTATOR]))


def settled(api, name: str, trace: Trace | None = None) -> Trace:
    """The run's trace once it settled (`trace`, when already sent)."""
    trace = trace or send_recorded(api, name)
    assert trace_complete(trace.pk, whole=True)
    trace.refresh_from_db()
    return trace


def listed(**query) -> list[int]:
    chosen = traces_for_query(Trace.objects.all(), filter_query(query))
    return list(chosen.values_list("pk", flat=True))


def failed_steps(trace) -> int:
    return sum(bool(step.failed) for step in tool_steps_from_spans(trace_spans(trace)))


@pytest.mark.parametrize("name", TOLD_ONLY)
def test_a_failure_told_only_in_messages_counts_once_the_trace_settles(api, name):
    trace = send_recorded(api, name)
    # as stored, no span failed: ingest counts none
    assert trace.error_count == 0
    assert not trace.spans.filter(status=SpanStatus.ERROR).exists()
    trace = settled(api, name, trace)
    # the checks read one failed call, and so does the trace's error count
    assert failed_steps(trace) == 1
    assert (trace.error_count, trace.told_error_count) == (1, 1)
    assert listed(status="error") == [trace.pk]
    assert listed(status="ok") == []


def test_most_errors_lists_the_told_failure_before_a_clean_run(api):
    clean = settled(api, "openlit-openai")
    with pytest.raises(Trace.MultipleObjectsReturned):
        send_recorded(api, "openlit-openai-tool-error")  # a second trace of the project
    failed = settled(api, "", Trace.objects.exclude(pk=clean.pk).get())
    assert listed(sort="-error_count")[:2] == [failed.pk, clean.pk]


@pytest.mark.parametrize("name", TOLD_AS_TEXT)
def test_a_failure_told_as_text_alone_is_none_with_text_errors_off(api, name):
    ProjectFactory(slug=PROJECT, tool_error_text_detection=False)
    trace = settled(api, name)
    assert (trace.error_count, trace.told_error_count) == (0, 0)
    assert listed(status="error") == []
    # nor does the judge's reading mark it
    assert calls_marked_failed(trace_span_tree(trace)) == []


@pytest.mark.parametrize("name", SPAN_AND_TOLD)
def test_a_failed_tool_span_whose_error_the_model_was_told_counts_once(api, name):
    trace = settled(api, name)
    failed = trace.spans.filter(status=SpanStatus.ERROR)
    assert [span.kind for span in failed] == [SpanKind.TOOL]
    # the model's messages tell the same failure
    assert sum(step.failed for step in tool_steps_from_messages(trace_spans(trace))) == 1
    assert (trace.error_count, trace.told_error_count) == (1, 0)
    assert listed(status="error") == [trace.pk]
