"""Which spans' tokens and cost a trace counts: each model call once.

Frameworks nest a provider's model-call span under their own (`call_llm` > `generate_content
gpt-4o` > `openai.chat`), each carrying the same usage. A model-call span counts unless a
model-call span inside it (at any depth) carries usage too: then the innermost ones count,
as they are the calls the provider billed. Agent and chain spans that repeat their calls'
sums count only when no model call carries usage at all. A stated cost on an outer span
counts when nothing inside it was priced, so a framework's own figure is never lost.

Decided per trace over all its spans (stored and new), never per span: ingest.store calls
usage_totals once for each trace a request grows.
"""

from __future__ import annotations

from decimal import Decimal
from typing import NamedTuple

from traces.models import SpanKind

# Where the trace notes the spans whose usage a call inside them repeats: {outer: inner}.
REPEATED_KEY = "evalsite.usage_repeated"
_LLM = SpanKind.LLM


class UsageTotals(NamedTuple):
    input_tokens: int
    output_tokens: int
    cost_usd: Decimal
    # Outer model-call span id -> the span id of a call inside it whose usage counted.
    repeated: dict[str, str]


def usage_totals(spans: list) -> UsageTotals:
    """Tokens and cost of a trace's spans (objects with span_id, parent_span_id, kind, tokens
    and cost), each model call counted once."""
    calls = [
        span
        for span in spans
        if span.kind == _LLM and (span.input_tokens or span.output_tokens or span.cost_usd)
    ]
    if not calls:
        return _summed(spans, Decimal(0), {})
    if len(calls) == 1:
        return _summed(calls, Decimal(0), {})
    parents = {span.span_id: span.parent_span_id for span in spans}
    carrying = {span.span_id: span for span in calls}
    outer: set[str] = set()
    limit = len(parents)
    for call in calls:
        # Inline walk up (no generator): this runs for every model call a request stores.
        parent, steps = call.parent_span_id, 0
        while parent and steps < limit:
            if parent in outer:
                break  # its own ancestors were marked when it was
            if parent in carrying:
                outer.add(parent)
            parent, steps = parents.get(parent, ""), steps + 1
    if not outer:
        return _summed(calls, Decimal(0), {})
    repeated: dict[str, str] = {}
    for call in calls:
        if call.span_id not in outer:
            for parent in _ancestors(call.span_id, parents):
                if parent in outer:
                    repeated.setdefault(parent, call.span_id)
    counted = [call for call in calls if call.span_id not in repeated]
    return _summed(counted, _stated_costs_kept(counted, repeated, carrying, parents), repeated)


def _summed(spans: list, extra_cost: Decimal, repeated: dict[str, str]) -> UsageTotals:
    return UsageTotals(
        sum(span.input_tokens for span in spans),
        sum(span.output_tokens for span in spans),
        sum((span.cost_usd for span in spans), extra_cost),
        repeated,
    )


def _stated_costs_kept(counted, repeated, carrying, parents) -> Decimal:
    """The cost of outer calls nothing inside them was priced for, innermost first."""
    priced_below: dict[str, Decimal] = {}

    def add_up(span_id: str, cost) -> None:
        for parent in _ancestors(span_id, parents):
            priced_below[parent] = priced_below.get(parent, 0) + cost

    for call in counted:
        if call.cost_usd:
            add_up(call.span_id, call.cost_usd)
    extra = Decimal(0)
    for outer_id in sorted(repeated, key=lambda span_id: -_depth(span_id, parents)):
        cost = carrying[outer_id].cost_usd
        if cost and not priced_below.get(outer_id):
            extra += cost
            add_up(outer_id, cost)
    return extra


def _depth(span_id: str, parents: dict[str, str]) -> int:
    return sum(1 for _ in _ancestors(span_id, parents))


def _ancestors(span_id: str, parents: dict[str, str]):
    """The span ids above a span, nearest first; a parent cycle a sender made ends the walk."""
    parent, steps = parents.get(span_id, ""), 0
    while parent and steps < len(parents):
        yield parent
        parent, steps = parents.get(parent, ""), steps + 1
