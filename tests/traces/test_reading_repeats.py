"""A framework step's value that a step of the same name showed before, at length, reads as a
reference to that step (traces.reading.ReadingState.repeats_referred)."""

import pytest

from tests.factories import SpanFactory, TraceFactory
from tests.judges.judge_reads import reading_steps
from traces.reading import REPEAT_REFER_CHARS
from traces.serialize import trace_span_tree, trace_transcript

pytestmark = pytest.mark.django_db

SIGNATURE = "question -> next_tool_name, next_tool_args; " * 10
HISTORY_A = [{"role": "user", "blocks": [{"text": "Refund order A-1 in full. " * 8}]}]
HISTORY_B = [*HISTORY_A, {"role": "system", "blocks": [{"text": "You answer orders. " * 8}]}]


def _adapter_steps(values: list[dict], field: str = "input") -> list[dict]:
    trace = TraceFactory(task="Refund A-1", final_answer="Refunded.")
    SpanFactory(trace=trace, span_id="r", name="agent_run", kind="agent", position=0)
    for position, value in enumerate(values, start=1):
        SpanFactory(
            trace=trace,
            span_id=f"a{position}",
            parent_span_id="r",
            name="Adapter.__call__",
            kind="custom",
            position=position,
            **{field: value},
        )
    tree = trace_span_tree(trace)
    return [s for s in reading_steps(tree) if s["name"].startswith("Adapter.__call__")]


def test_a_long_value_a_step_of_the_same_name_showed_reads_as_a_reference_to_it():
    assert len(SIGNATURE) >= REPEAT_REFER_CHARS
    first, second, third = _adapter_steps(
        [{"signature": SIGNATURE, "round": n, "demos": []} for n in (1, 2, 3)]
    )
    assert first["input"] == {"signature": SIGNATURE, "round": 1, "demos": []}
    referred = f"(the same as in step {first['step']})"
    # what differs, and what is short, reads as it is
    assert second["input"] == {"signature": referred, "round": 2, "demos": []}
    assert third["input"] == {"signature": referred, "round": 3, "demos": []}


def test_values_that_take_turns_each_refer_to_where_they_were_shown():
    steps = _adapter_steps([{"input": h} for h in (HISTORY_A, HISTORY_B, HISTORY_A, HISTORY_B)])
    a, b = steps[0]["step"], steps[1]["step"]
    assert [s["input"]["input"] for s in steps] == [
        HISTORY_A,
        HISTORY_B,
        f"(the same as in step {a})",
        f"(the same as in step {b})",
    ]


def test_a_changed_value_reads_whole_and_a_whole_value_repeated_refers():
    changed = SIGNATURE.replace("args", "arguments")
    steps = _adapter_steps([SIGNATURE, changed, SIGNATURE], field="output")
    assert [s["output"] for s in steps] == [
        SIGNATURE,
        changed,
        f"(the same as in step {steps[0]['step']})",
    ]


def test_the_transcript_reads_the_signature_once():
    trace = TraceFactory(task="Refund A-1", final_answer="Refunded.")
    for position in (1, 2):
        SpanFactory(
            trace=trace,
            span_id=f"a{position}",
            name="Adapter.__call__",
            kind="custom",
            position=position,
            input={"signature": SIGNATURE},
        )
    assert trace_transcript(trace).count(SIGNATURE) == 1
