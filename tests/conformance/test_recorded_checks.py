"""Every recorded run, through the checks: the calls each real library's run made, in order,
the failed lookup failed, no red flag on a run that did what the user asked, and the judge's
reading marking failed as many calls as the checks read failed, whether the failure lives on a
tool span or only in what the model was handed back.

Each recording is the support task run to the end (the refund made and reported), its
`-tool-error` and `-failing` runs with a lookup that fails once and is retried: what happened is
known from the run, not decided by evalsite. Where an instrumentation does not send what the
checks need, the recording is named below with what it lacks and what the checks read instead.
"""

import pytest

from accounts.roles import ANNOTATOR
from metrics.models import RedFlag
from metrics.redflags import red_flags_detect
from metrics.steps import tool_steps_from_spans, trace_spans
from tests.conformance.recorded_reading import RECORDED, recorded_post
from tests.factories import UserFactory
from tests.judges.judge_reads import calls_marked_failed
from traces.models import Trace
from traces.serialize import trace_span_tree

pytestmark = pytest.mark.django_db

RECORDINGS = sorted(path.stem for path in RECORDED.glob("*.json"))
LOOKUP, REFUND = "lookup_order", "refund"
# Tools a framework calls to end its own loop (DSPy's ReAct `finish`, BeeAI's `final_answer`),
# after the refund: calls the run made, not the task's.
LOOP_ENDING_TOOLS = {"finish", "final_answer"}
# Semantic Kernel names a plugin's function `<plugin>-<function>`.
PLUGIN_PREFIX = "SupportPlugin-"

# What an instrumentation leaves out, and what the checks read of the run without it.
UNSENT = {
    # OpenLLMetry's Gemini instrumentation records none of the calls the SDK's automatic
    # function calling makes: the run reads as an answer with no refund tried.
    "openllmetry-google-genai-automatic": ([], {RedFlag.Kind.PREMATURE_STOP}),
    # Logfire's default Anthropic attributes drop a tool_result's `is_error`, and the error's
    # text opens with no marker: the failed lookup reads as a result.
    "logfire-anthropic-tool-error": (
        [(LOOKUP, False), (LOOKUP, False), (REFUND, False)],
        set(),
    ),
}


def expected(name: str) -> tuple[list[tuple[str, bool]], set]:
    """(tool, failed) of each call the run made, and the red flags it earns."""
    if name in UNSENT:
        return UNSENT[name]
    calls = [(LOOKUP, False), (REFUND, False)]
    if name.endswith(("-tool-error", "-failing")):
        calls.insert(0, (LOOKUP, True))
    return calls, set()


def test_every_recording_is_named_by_what_its_run_did():
    # A new recording whose name says neither must be added to UNSENT or renamed.
    assert len(RECORDINGS) >= 80
    assert set(UNSENT) <= set(RECORDINGS)


@pytest.mark.parametrize("name", RECORDINGS)
def test_the_checks_read_each_recorded_run_as_it_went(api_client_for, name):
    recorded_post(api_client_for(UserFactory(roles=[ANNOTATOR])), name)
    # OpenLIT also traces building a LangGraph graph or a CrewAI flow, as a trace of its own.
    trace = Trace.objects.exclude(final_answer="").get()

    steps = tool_steps_from_spans(trace_spans(trace))
    calls = [(step.tool.removeprefix(PLUGIN_PREFIX), step.failed) for step in steps]
    while calls and calls[-1][0] in LOOP_ENDING_TOOLS:
        calls.pop()
    flags = {hit.kind for hit in red_flags_detect(trace)}

    assert (calls, flags) == expected(name)
    marked = calls_marked_failed(trace_span_tree(trace))
    assert len(marked) == sum(failed for _, failed in calls)
