"""A project's rule for a tool result's failure (Project.tool_error_text_detection and
tool_error_markers) is asked the same way by everything that judges a result handed back to
the model: the red flags' steps, the trace's error count and the judge's reading. With text
detection off an `Error: ...` result is no failure for any of them; a project's own marker
makes a result opening with it one failure for all of them; the default project reads text as
it always did."""

import pytest

from accounts.roles import ANNOTATOR
from guardrails.check import guardrail_check
from metrics.models import GuardrailPolicy, RedFlag
from metrics.redflag_store import red_flags_check
from metrics.redflags import flag_rules_for, red_flags_detect
from metrics.steps import tool_steps_from_spans, trace_spans
from tests.conformance.harness import PROJECT
from tests.conformance.recorded_reading import recorded_post
from tests.factories import ProjectFactory, TraceFactory, UserFactory
from tests.judges.judge_reads import calls_marked_failed
from tests.traces.test_reading_told_failures import TASK, plain_loop, told
from tests.traces.tool_loop import decided_then_handed_back
from traces.completion import trace_complete
from traces.ingest.failures import (
    DEFAULT_FAILURE_RULE,
    FailureRule,
    project_failure_rule,
    trace_failure_rule,
)
from traces.ingest.services import ingest_span_tree
from traces.models import SpanStatus, Trace
from traces.serialize import trace_span_tree, trace_transcript

pytestmark = pytest.mark.django_db

DOWN = "Error: order service down"
DECLINED = "FAILED: the order service declined the lookup"
# claims what the lookup was for, admitting nothing: confident after a failed lookup
CONFIDENT = "Order A-1 has shipped."


def project(**settings):
    return ProjectFactory(
        slug="-".join(f"{k}-{v}" for k, v in settings.items()) or "plain", **settings
    )


def plain_run(proj, handed_back: str, resent: bool = False) -> Trace:
    """A plain SDK loop of `proj` (no tool span) whose lookup's result is `handed_back` text,
    checked as a settled trace is; read back without its project loaded."""
    trace = TraceFactory(project=proj, task=TASK, final_answer=CONFIDENT)
    plain_loop(trace, told(handed_back), resent=resent)
    red_flags_check(Trace.objects.get(pk=trace.pk))
    return Trace.objects.get(pk=trace.pk)


def read(trace: Trace) -> dict:
    """What each reader makes of the trace: the red flags' steps and flags, the stored error
    count (and of it told in messages alone), and the calls the judge's reading marks failed."""
    steps = tool_steps_from_spans(trace_spans(trace), flag_rules_for(trace).failure_rule)
    return {
        "steps failed": [bool(step.failed) for step in steps],
        "flags": sorted(trace.red_flags.values_list("kind", flat=True)),
        "errors": (trace.error_count, trace.told_error_count),
        "reading": calls_marked_failed(trace_span_tree(Trace.objects.get(pk=trace.pk))),
    }


FAILED_EVERYWHERE = {
    "steps failed": [True],
    "flags": [RedFlag.Kind.CONFIDENT_AFTER_FAILURE],
    "errors": (1, 1),
    "reading": ["c1"],
}
FAILED_NOWHERE = {"steps failed": [False], "flags": [], "errors": (0, 0), "reading": []}


def test_the_rule_is_made_from_the_project_s_two_settings():
    assert project_failure_rule(None) == DEFAULT_FAILURE_RULE == FailureRule(True, ())
    quiet = project(tool_error_text_detection=False)
    strict = project(tool_error_markers=["FAILED:", "", "DECLINED"])
    assert project_failure_rule(quiet) == FailureRule(False, ())
    assert project_failure_rule(strict) == FailureRule(True, ("FAILED:", "DECLINED"))
    # read from the row when the trace has not loaded its project
    trace = Trace.objects.get(pk=TraceFactory(project=strict).pk)
    assert trace_failure_rule(trace) == project_failure_rule(strict)


def test_the_default_project_reads_text_as_before():
    plain = project()
    assert read(plain_run(plain, DOWN)) == FAILED_EVERYWHERE
    # an opening no rule knows is a result
    Trace.objects.all().delete()
    assert read(plain_run(plain, DECLINED)) == FAILED_NOWHERE


def test_with_text_detection_off_an_error_text_fails_nothing():
    quiet = project(tool_error_text_detection=False)
    trace = plain_run(quiet, DOWN)
    assert read(trace) == FAILED_NOWHERE
    assert "error for call_id" not in trace_transcript(trace)


def test_a_project_s_own_marker_fails_the_call_for_every_reader_once():
    strict = project(tool_error_markers=["failed:"])  # openings are read regardless of case
    trace = plain_run(strict, DECLINED, resent=True)  # handed back twice: one failure
    assert read(trace) == FAILED_EVERYWHERE
    assert trace_transcript(trace).count("error for call_id c1") == 1


def test_text_detection_off_reads_no_marker_either_as_ingest_does():
    both = project(tool_error_text_detection=False, tool_error_markers=["FAILED:"])
    assert read(plain_run(both, DECLINED)) == FAILED_NOWHERE


def test_a_tool_span_recording_only_its_call_id_reads_the_marker_too():
    # AutoGen's own `execute_tool`: the text handed back is the tool step's result
    strict = project(tool_error_markers=["FAILED:"])
    trace = TraceFactory(project=strict, task=TASK, final_answer=CONFIDENT)
    only_id = {"name": "lookup", "tool_call_id": "c1", "input": None, "output": None}
    decided_then_handed_back(trace, only_id, {"content": DECLINED})
    red_flags_check(Trace.objects.get(pk=trace.pk))
    trace = Trace.objects.get(pk=trace.pk)
    assert read(trace) == FAILED_EVERYWHERE


def test_a_marked_tool_span_and_the_message_telling_it_are_one_failure():
    strict = project(tool_error_markers=["FAILED:"])
    lookup = {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "lookup"}}]}
    ask = {"role": "user", "content": TASK}
    trace = ingest_span_tree(
        strict,
        {
            "trace_id": "5d1f0c2b9a8e4f7d6c5b4a3928170605",
            "span_id": "root",
            "name": "agent",
            "type": "agent",
            "input": TASK,
            "output": CONFIDENT,
            "children": [
                {
                    "span_id": "m1",
                    "name": "chat",
                    "type": "llm",
                    "input": [ask],
                    "output": [lookup],
                },
                {
                    "span_id": "t1",
                    "name": "lookup",
                    "type": "tool",
                    "tool_call_id": "c1",
                    "input": {"id": "A-1"},
                    "output": DECLINED,
                },
                {
                    "span_id": "m2",
                    "name": "chat",
                    "type": "llm",
                    "input": [
                        ask,
                        lookup,
                        {"role": "tool", "tool_call_id": "c1", "content": DECLINED},
                    ],
                    "output": CONFIDENT,
                },
            ],
        },
    )
    trace = Trace.objects.get(pk=trace.pk)
    # ingest marked the span by the marker: the span counts the failure, the message adds none
    assert trace.spans.get(span_id="t1").status == SpanStatus.ERROR
    assert read(trace) == {**FAILED_EVERYWHERE, "errors": (1, 0)}


def test_a_recorded_run_s_error_text_is_no_failed_call_with_text_detection_off(api_client_for):
    # LiteLLM's OTel callback, a plain loop: the failed lookup is handed back as
    # `Error: order service unavailable`, then retried, and the refund made
    ProjectFactory(slug=PROJECT, tool_error_text_detection=False)
    api = api_client_for(UserFactory(roles=[ANNOTATOR]))
    recorded_post(api, "litellm-otel")
    correct = Trace.objects.get()
    recorded_post(api, "litellm-otel-tool-error")
    failing = Trace.objects.exclude(pk=correct.pk).get()
    for trace in (correct, failing):
        assert trace_complete(trace.pk, whole=True)
    failing = Trace.objects.get(pk=failing.pk)
    steps = tool_steps_from_spans(trace_spans(failing), flag_rules_for(failing).failure_rule)
    assert [step.tool for step in steps] == ["lookup_order", "lookup_order", "refund"]
    assert not any(step.failed for step in steps)
    assert (failing.error_count, failing.told_error_count) == (0, 0)
    assert calls_marked_failed(trace_span_tree(failing)) == []
    # the red flags read it as they read a run whose lookup never failed
    assert {h.kind for h in red_flags_detect(failing)} == {
        h.kind for h in red_flags_detect(correct)
    }
    assert set(failing.red_flags.values_list("kind", flat=True)) == set(
        correct.red_flags.values_list("kind", flat=True)
    )


def test_the_guardrail_check_reads_a_handed_back_result_by_the_project_s_rule():
    # a plain loop sent to the guardrail: the identity check is handed back opening with the
    # project's marker, and a refund (which needs it) follows
    def calls(call_id: str, name: str) -> list[dict]:
        decided = {"id": call_id, "function": {"name": name, "arguments": '{"id": "A-1"}'}}
        return [{"role": "assistant", "tool_calls": [decided]}]

    ask = {"role": "user", "content": TASK}
    verify, refund = calls("c1", "verify_identity"), calls("c2", "issue_refund")
    handed = [*verify, {"role": "tool", "tool_call_id": "c1", "content": DECLINED}]
    trajectory = {
        "name": "agent",
        "type": "agent",
        "task": TASK,
        "children": [
            {"name": "chat", "type": "llm", "input": [ask], "output": verify},
            {"name": "chat", "type": "llm", "input": [ask, *handed], "output": refund},
        ],
    }
    fired = {}
    for proj in (project(), project(tool_error_markers=["FAILED:"])):
        GuardrailPolicy.objects.create(
            project=proj, tool_prerequisites={"issue_refund": ["verify_identity"]}
        )
        result = guardrail_check(proj, trajectory=trajectory)
        fired[proj.tool_error_markers == []] = [check["check"] for check in result.checks]
    assert fired == {True: [], False: [RedFlag.Kind.PREREQUISITE]}
