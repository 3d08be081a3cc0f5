"""traces' search SQL: where PostgreSQL (a tsvector with its GIN index) and SQLite (an FTS5
table) differ, for writing search documents and attribute values and for content search.
Table names from the models; the user's text only ever travels as a parameter."""

from __future__ import annotations

from django.contrib.postgres.search import SearchQuery
from django.db import connection
from django.db.models import Q
from django.db.models.expressions import RawSQL

from traces.models import TraceAttributeValue, TraceSearchDocument
from traces.search.syntax import ContentQuery

# SQLite's full-text table, made by migration traces 0008 (not a model).
FTS_TABLE = "traces_search_fts"
_LOCK_KEY = 0x7E5EA2C4  # pg_advisory_xact_lock key of the search builders


def search_builders_take_turns() -> None:
    """In the caller's transaction on PostgreSQL, wait for any other search builder, so two
    never write the same trace's rows side by side."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK_KEY])


SEARCH_CONFIG = "english"


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
        sql = f"SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s"  # noqa: S608
        params = [f"({required}) NOT ({excluded})"]
    elif required:
        sql = f"SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s"  # noqa: S608
        params = [required]
    else:
        sql = (
            f"SELECT rowid FROM {FTS_TABLE} WHERE rowid NOT IN"  # noqa: S608
            f" (SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s)"
        )
        params = [excluded]
    # The SQL is one of three fixed statements; the user's text only ever travels as a parameter.
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


# Plain SQL: the ORM's bulk_create spends more on model instances than the database does.
_VALUES = TraceAttributeValue._meta.db_table
_DOCUMENTS = TraceSearchDocument._meta.db_table
_ATTRIBUTES_COPY = (
    f"INSERT INTO {_VALUES} (trace_id, key, value_text, value_number)"  # noqa: S608
    " SELECT * FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::float8[])"
)
_ATTRIBUTES_INSERT = (
    f"INSERT INTO {_VALUES} (trace_id, key, value_text, value_number)"  # noqa: S608
    " VALUES (%s, %s, %s, %s)"
)
_DOCUMENTS_UPSERT = (
    f"INSERT INTO {_DOCUMENTS} (trace_id, spans_received_at, built_at, document)"  # noqa: S608
    f" SELECT v.id, v.received, %s, to_tsvector('{SEARCH_CONFIG}'::regconfig, v.body)"
    " FROM unnest(%s::bigint[], %s::timestamptz[], %s::text[]) AS v(id, received, body)"
    " ON CONFLICT (trace_id) DO UPDATE SET spans_received_at = excluded.spans_received_at,"
    " built_at = excluded.built_at, document = excluded.document"
)


def attributes_write(rows: list[tuple]) -> None:
    if not rows:
        return
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(_ATTRIBUTES_COPY, [list(column) for column in zip(*rows, strict=True)])
        else:
            cursor.executemany(_ATTRIBUTES_INSERT, rows)


def documents_write(documents: list[tuple], now) -> None:
    """Upsert (trace id, spans received at, text) documents with their full-text form."""
    documents = [(pk, received, body.replace("\x00", "")) for pk, received, body in documents]
    if connection.vendor == "postgresql":
        ids, received, bodies = (list(column) for column in zip(*documents, strict=True))
        with connection.cursor() as cursor:
            cursor.execute(_DOCUMENTS_UPSERT, [now, ids, received, bodies])
        return
    TraceSearchDocument.objects.bulk_create(
        [
            TraceSearchDocument(trace_id=pk, spans_received_at=received, built_at=now)
            for pk, received, _ in documents
        ],
        update_conflicts=True,
        unique_fields=["trace"],
        update_fields=["spans_received_at", "built_at"],
    )
    _fts5_write({pk: body for pk, _, body in documents})


def _fts5_write(bodies: dict[int, str]) -> None:
    ids = list(bodies)
    placeholders = ", ".join("%s" for _ in ids)
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {FTS_TABLE} WHERE rowid IN ({placeholders})",  # noqa: S608
            ids,
        )
        cursor.executemany(
            f"INSERT INTO {FTS_TABLE} (rowid, body) VALUES (%s, %s)",  # noqa: S608
            list(bodies.items()),
        )
