"""Every recorded run: what the judge reads marks failed exactly as many calls as the checks
read failed (metrics.steps), whether the failure lives on a tool span or only in what the model
was handed back; a failure told as text alone is none for a project that reads no text
errors, in the reading as in the error count."""

import contextlib

import pytest

from accounts.roles import ANNOTATOR
from metrics.steps import tool_steps_from_spans, trace_spans
from metrics.told_failures import trace_told_failures
from tests.conformance.harness import PROJECT
from tests.conformance.recorded_reading import RECORDED, send_recorded
from tests.conformance.test_recorded_told_failures import TOLD_AS_TEXT
from tests.factories import ProjectFactory, UserFactory
from tests.judges.judge_reads import calls_marked_failed
from traces.models import Trace
from traces.serialize import trace_span_tree

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(api_client_for):
    return api_client_for(UserFactory(roles=[ANNOTATOR]))


def sent(api, name: str) -> list[Trace]:
    """The run's traces (a crew's recording holds more than one)."""
    with contextlib.suppress(Trace.MultipleObjectsReturned):
        send_recorded(api, name)
    return list(Trace.objects.order_by("pk"))


@pytest.mark.parametrize("name", sorted(path.stem for path in RECORDED.glob("*.json")))
def test_the_reading_marks_the_calls_the_checks_read_failed(api, name):
    for trace in sent(api, name):
        failed = [step.failed for step in tool_steps_from_spans(trace_spans(trace))]
        assert len(calls_marked_failed(trace_span_tree(trace))) == failed.count(True)


@pytest.mark.parametrize("name", TOLD_AS_TEXT)
def test_a_failure_told_as_text_reads_as_none_where_the_project_reads_no_text_errors(api, name):
    ProjectFactory(slug=PROJECT, tool_error_text_detection=False)
    (trace,) = sent(api, name)
    assert calls_marked_failed(trace_span_tree(trace)) == []
    assert trace_told_failures(trace, trace_spans(trace)) == 0
