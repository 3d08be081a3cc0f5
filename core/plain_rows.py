"""Model instances from plain SQL rows, converted as a queryset converts them and built by
`Model.from_db`, as a queryset builds them.

For the statements a hot path runs so often that the ORM building the statement is most of
their CPU (a judge pass, its verdict's hand-offs): the statement is written out once, and its
rows still become the instances the rest of the code expects. Instances are not built by
writing `__dict__` and `_state` by hand: measured with bench/judge_throughput.py against that
trick in the same run (2026-12-05, bench/RESULTS.md), it gave no end-to-end gain beyond noise
(worker CPU per judgment 0.98x and 0.85x the trick's, medians of 3 and 2 runs), below the 5%
that would pay for it.
"""

from dataclasses import dataclass
from functools import cache

from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import Field, Model


@cache
def model_fields(model: type[Model], deferred: tuple[str, ...] = ()) -> tuple[Field, ...]:
    return tuple(f for f in model._meta.concrete_fields if f.attname not in deferred)


@cache
def named_fields(model: type[Model], names: tuple[str, ...]) -> tuple[Field, ...]:
    # In the model's order, which `Model.from_db` expects of a row with fewer fields.
    named = {model._meta.get_field(name) for name in names}
    return tuple(f for f in model._meta.concrete_fields if f in named)


def select_list(alias: str, fields: tuple[Field, ...]) -> str:
    quote = connection.ops.quote_name
    return ", ".join(f"{alias}.{quote(f.column)}" for f in fields)


@dataclass(frozen=True)
class _RowShape:
    """How rows of `fields` become instances of `model` on one backend: each column's
    converters."""

    fields: tuple[Field, ...]  # kept, so the id the shape is found by stays theirs
    attnames: tuple[str, ...]
    converters: tuple


_shapes: dict[tuple[int, str], _RowShape] = {}


def _shape(model: type[Model], fields: tuple[Field, ...], db) -> _RowShape:
    shape = _shapes.get((id(fields), db.vendor))
    if shape is None:
        # What a queryset applies to each column: the backend's converters, then the field's.
        found = []
        for index, field in enumerate(fields):
            expression = field.get_col(model._meta.db_table)
            converters = db.ops.get_db_converters(expression)
            converters += field.get_db_converters(db)
            if converters:
                found.append((index, expression, tuple(converters)))
        attnames = tuple(f.attname for f in fields)
        shape = _RowShape(fields, attnames, tuple(found))
        _shapes[(id(fields), db.vendor)] = shape
    return shape


def instances_from_rows(model: type[Model], fields: tuple[Field, ...], rows) -> list[Model]:
    """Model instances from rows of `fields`' columns, converted as the ORM converts and
    built by `Model.from_db`, as a queryset builds them. `fields` as model_fields or
    named_fields give them: one tuple a shape, so its conversions are looked up once."""
    db = connections[DEFAULT_DB_ALIAS]
    shape = _shape(model, fields, db)
    instances = []
    for row in rows:
        values = list(row)
        for index, expression, converters in shape.converters:
            for convert in converters:
                values[index] = convert(values[index], expression, db)
        instances.append(model.from_db(db.alias, shape.attnames, values))
    return instances


def instance_from_row(model: type[Model], fields: tuple[Field, ...], values) -> Model:
    """A model instance from a row of `fields`' columns, converted as the ORM converts."""
    return instances_from_rows(model, fields, [values])[0]


def instances_where(
    model: type[Model],
    names: tuple[str, ...],
    where: str,
    params: list,
    *,
    order: str = "id",
    lock: bool = False,
) -> list[Model]:
    """Rows of `model` matching `where` (SQL over its table) in `order`, with the fields
    `names` only, as `.only(*names)` gives them; `lock` locks them as `select_for_update()`
    does, inside the caller's transaction."""
    with connection.cursor() as cursor:
        cursor.execute(_where_sql(model, names, where, order, lock), params)
        rows = cursor.fetchall()
    return instances_from_rows(model, named_fields(model, names), rows)


@cache
def _where_sql(model: type[Model], names: tuple[str, ...], where: str, order: str, lock: bool):
    table = connection.ops.quote_name(model._meta.db_table)
    lock_sql = " FOR UPDATE" if lock and connection.features.has_select_for_update else ""
    return (
        f"SELECT {select_list(table, named_fields(model, names))} FROM {table} "  # noqa: S608
        f"WHERE {where} ORDER BY {order}{lock_sql}"
    )
