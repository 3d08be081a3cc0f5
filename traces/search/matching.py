"""Which traces a content search or an attribute clause matches, as conditions on Trace.

Content search reads the trace's search document: a tsvector through its GIN index on
PostgreSQL, the FTS5 table on SQLite. Attribute clauses read TraceAttributeValue through its
(key, value, trace) indexes. Both give `pk IN (ids)` conditions, so they combine with every
other trace-list filter, the held-out rule and any sort.
"""

from __future__ import annotations

from django.contrib.postgres.search import SearchQuery
from django.db import connection
from django.db.models import Exists, OuterRef, Q
from django.db.models.expressions import RawSQL

from traces.models import TraceAttributeValue, TraceSearchDocument
from traces.search.syntax import AttributeClause, ContentQuery

SEARCH_CONFIG = "english"
_RANGE_LOOKUPS = {">": "gt", ">=": "gte", "<": "lt", "<=": "lte"}


def _phrase(term: str) -> SearchQuery:
    return SearchQuery(term, search_type="phrase", config=SEARCH_CONFIG)


def _postgres_condition(query: ContentQuery) -> Q:
    tsquery = None
    for alternatives in query.required:
        group = _phrase(alternatives[0])
        for term in alternatives[1:]:
            group = group | _phrase(term)
        tsquery = group if tsquery is None else tsquery & group
    for term in query.excluded:
        tsquery = ~_phrase(term) if tsquery is None else tsquery & ~_phrase(term)
    documents = TraceSearchDocument.objects.filter(document=tsquery)
    return Q(pk__in=documents.values("trace_id"))


def _fts5_string(term: str) -> str:
    """A term as an FTS5 string: the tokenizer reads it as a phrase; no operator survives."""
    return '"' + term.replace('"', '""') + '"'


def _sqlite_condition(query: ContentQuery) -> Q:
    required = " AND ".join(
        "(" + " OR ".join(_fts5_string(term) for term in alternatives) + ")"
        for alternatives in query.required
    )
    excluded = " OR ".join(_fts5_string(term) for term in query.excluded)
    if required and excluded:
        sql = "SELECT rowid FROM traces_search_fts WHERE traces_search_fts MATCH %s"
        params = [f"({required}) NOT ({excluded})"]
    elif required:
        sql = "SELECT rowid FROM traces_search_fts WHERE traces_search_fts MATCH %s"
        params = [required]
    else:
        sql = (
            "SELECT rowid FROM traces_search_fts WHERE rowid NOT IN"
            " (SELECT rowid FROM traces_search_fts WHERE traces_search_fts MATCH %s)"
        )
        params = [excluded]
    # The SQL is one of three constants; the user's text only ever travels as a parameter.
    return Q(pk__in=RawSQL(sql, params))  # noqa: S611


def content_condition(query: ContentQuery) -> Q:
    """Traces whose task, final answer, span inputs, outputs or attribute values match."""
    if query.is_empty:
        return Q()
    if connection.vendor == "postgresql":
        return _postgres_condition(query)
    if connection.vendor == "sqlite":
        return _sqlite_condition(query)
    raise NotImplementedError(f"Content search needs PostgreSQL or SQLite, not {connection.vendor}")


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
