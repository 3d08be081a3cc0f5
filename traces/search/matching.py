"""Which traces an attribute clause matches, as a condition on Trace.

Attribute clauses read TraceAttributeValue through its (key, value, trace) indexes and give
`pk IN (ids)` conditions, so they combine with every other trace-list filter, the held-out rule
and any sort; content search, which differs by database, is in traces/search/sql.py.
"""

from __future__ import annotations

from django.db.models import Exists, OuterRef, Q

from traces.models import TraceAttributeValue
from traces.search.syntax import AttributeClause

_RANGE_LOOKUPS = {">": "gt", ">=": "gte", "<": "lt", "<=": "lte"}


def attribute_condition(clause: AttributeClause) -> Q:
    """Traces with a span (or the trace itself) whose attribute satisfies the clause.

    `!=` means no span has that value: a trace with no such key at all matches it too.
    """
    values = TraceAttributeValue.objects.filter(key=clause.key)
    if clause.op in _RANGE_LOOKUPS:
        values = values.filter(**{f"value_number__{_RANGE_LOOKUPS[clause.op]}": clause.number})
    elif clause.number is not None:
        values = values.filter(Q(value_text=clause.text) | Q(value_number=clause.number))
    else:
        values = values.filter(value_text=clause.text)
    if clause.op == "!=":
        return ~Exists(values.filter(trace=OuterRef("pk")))
    return Q(pk__in=values.values("trace_id"))
