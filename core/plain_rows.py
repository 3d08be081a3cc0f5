"""Model instances from plain SQL rows, converted and built as a queryset builds them.

For the statements a hot path runs so often that the ORM building them is most of their CPU
(a judge pass, its verdict's hand-offs): the statement is written out once, and its rows still
become the instances the rest of the code expects.
"""

from dataclasses import dataclass
from functools import cache

from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import Field, Model
from django.db.models.base import ModelState
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute
from django.db.models.query_utils import DeferredAttribute
from django.db.models.signals import post_init, pre_init


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
    converters, and whether the instance may be built by filling its __dict__."""

    fields: tuple[Field, ...]  # kept, so the id the shape is found by stays theirs
    attnames: tuple[str, ...]
    converters: tuple
    direct: bool


_shapes: dict[tuple[int, str], _RowShape] = {}


def _direct_build_allowed(model: type[Model], fields: tuple[Field, ...]) -> bool:
    # What Model.__init__ does besides setting attributes: the init signals, and descriptors
    # that act on a set (a foreign key's id only drops a cached row, which a new one lacks).
    if pre_init.has_listeners(model) or post_init.has_listeners(model):
        return False
    plain = (DeferredAttribute, ForeignKeyDeferredAttribute)
    return all(type(getattr(model, f.attname, None)) in plain for f in fields)


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
        direct = _direct_build_allowed(model, fields)
        shape = _RowShape(fields, attnames, tuple(found), direct)
        _shapes[(id(fields), db.vendor)] = shape
    return shape


def instances_from_rows(model: type[Model], fields: tuple[Field, ...], rows) -> list[Model]:
    """Model instances from rows of `fields`' columns, converted as the ORM converts and
    built as `Model.from_db` builds them, without `Model.__init__` where nothing depends on
    it. `fields` as model_fields or named_fields give them: one tuple a shape, so its
    conversions are looked up once."""
    db = connections[DEFAULT_DB_ALIAS]
    shape = _shape(model, fields, db)
    instances = []
    for row in rows:
        values = list(row)
        for index, expression, converters in shape.converters:
            for convert in converters:
                values[index] = convert(values[index], expression, db)
        if shape.direct:
            instance = model.__new__(model)
            instance.__dict__.update(zip(shape.attnames, values, strict=True))
            instance._state = ModelState()
            instance._state.adding = False
            instance._state.db = db.alias
        else:
            instance = model.from_db(db.alias, shape.attnames, values)
        instances.append(instance)
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
