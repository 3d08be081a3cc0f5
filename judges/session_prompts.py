"""A whole session as the judge reads it: its traces in order, as one span tree or transcript.

The prompt around it is the rubric's own (judges.prompts), so a session pass differs from a
trace pass only in what sits between the untrusted-trace fences.
"""

from django.conf import settings
from django.db.models import F

from judges.models import RubricVersion, TraceFormat
from judges.prompts import (
    CHARS_PER_TOKEN,
    LONG_STRING_CHARS,
    RenderedPrompt,
    prompt_from_text,
    strings_shortened,
    text_cut_to_budget,
)
from traces.models import Session, Span, Trace
from traces.reading import citation_names, traces_merged_members
from traces.serialize import trace_span_tree, trace_transcript, tree_json


def session_traces_ordered(session: Session) -> list[Trace]:
    """The session's traces in the order they happened (untimed ones last, then by arrival)."""
    return list(
        Trace.objects.filter(session=session).order_by(F("started_at").asc(nulls_last=True), "pk")
    )


def session_spans(traces: list[Trace]) -> dict[int, list[Span]]:
    """Every span of the traces, each trace's in order, in one query."""
    by_trace: dict[int, list[Span]] = {trace.pk: [] for trace in traces}
    for span in Span.objects.filter(trace_id__in=list(by_trace)).order_by(
        "trace_id", "position", "pk"
    ):
        by_trace[span.trace_id].append(span)
    return by_trace


def session_text(
    traces: list[Trace], spans: dict[int, list[Span]], trace_format: str, shorten: bool = False
) -> str:
    if trace_format == TraceFormat.TRANSCRIPT:
        parts = [
            f"=== Trace {index} of {len(traces)} ===\n{trace_transcript(trace, spans[trace.pk])}"
            for index, trace in enumerate(traces, start=1)
        ]
        return "\n\n".join(parts)
    tree = {
        "name": "session",
        "type": "agent",
        "input": traces[0].task if traces else "",
        "output": traces[-1].final_answer if traces else "",
        "children": [trace_span_tree(trace, spans[trace.pk]) for trace in traces],
    }
    if shorten:
        tree = strings_shortened(tree, LONG_STRING_CHARS)
    return tree_json(tree)


def session_prompt_render(version: RubricVersion, session: Session) -> RenderedPrompt:
    """The rubric's prompt with the whole session as the trajectory; the task is the first
    trace's and the final answer the last one's."""
    traces = session_traces_ordered(session)
    spans = session_spans(traces)
    budget_chars = settings.JUDGE_TRACE_TOKEN_BUDGET * CHARS_PER_TOKEN
    text = session_text(traces, spans, version.trace_format)
    if len(text) > budget_chars and version.trace_format != TraceFormat.TRANSCRIPT:
        text = session_text(traces, spans, version.trace_format, shorten=True)
    text, truncated = text_cut_to_budget(text, budget_chars)
    all_spans = [span for trace in traces for span in spans[trace.pk]]
    return prompt_from_text(
        version,
        text,
        truncated,
        traces[0].task if traces else "",
        traces[-1].final_answer if traces else "",
        all_spans,
        carried=traces_merged_members(traces),
    )


def session_span_ids_and_names(session_id: int) -> list[tuple[str, str]]:
    """(span id, a name it may be cited by) of every span of the session, for resolving a
    judge's citations."""
    return citation_names(
        list(
            Span.objects.filter(trace__session_id=session_id)
            .order_by("trace__started_at", "trace_id", "position", "pk")
            .only("span_id", "name", "kind", "tool_name", "trace_id")
        ),
        traces_merged_members(Trace.objects.filter(session_id=session_id).only("attributes")),
    )
