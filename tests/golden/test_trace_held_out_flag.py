"""Trace.held_out follows the examples a trace backs, through every golden write."""

from golden.services import golden_example_update, held_out_draw
from tests.factories import GoldenExampleFactory, TraceFactory
from traces.models import Trace
from traces.selectors import traces_visible


def _flag(trace) -> bool:
    return Trace.objects.get(pk=trace.pk).held_out


def test_toggle_draw_and_delete_keep_the_source_trace_flag(curator):
    trace = TraceFactory()
    example = GoldenExampleFactory(source_trace=trace)
    assert _flag(trace) is False

    golden_example_update(example=example, data={"held_out": True}, user=curator)
    assert _flag(trace) is True

    held_out_draw(share=0, user=curator)
    assert _flag(trace) is False

    golden_example_update(example=example, data={"held_out": True}, user=curator)

    example.delete()
    assert _flag(trace) is False


def test_a_trace_stays_held_out_while_any_example_it_backs_is(curator):
    trace = TraceFactory()
    GoldenExampleFactory(source_trace=trace, held_out=True)
    second = GoldenExampleFactory(source_trace=trace, held_out=True)
    second.delete()
    assert _flag(trace) is True


def test_traces_visible_hides_held_out_traces_from_annotators_only(annotator, curator):
    open_trace, hidden = TraceFactory(), TraceFactory()
    GoldenExampleFactory(source_trace=hidden, held_out=True)
    assert list(traces_visible(annotator)) == [open_trace]
    assert set(traces_visible(curator)) == {open_trace, hidden}
    assert list(traces_visible(None)) == [open_trace]
