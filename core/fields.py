"""Model fields Django does not ship."""

import json

from django.db import models
from django.db.models.fields.json import KeyTransform, KeyTransformFactory


class JSONTextField(models.JSONField):
    """JSON kept as its text on PostgreSQL, not as jsonb; a JSONField everywhere else.

    For large values written often and read whole: jsonb parses every value on write (a span's
    attributes, input and output were two fifths of its COPY's CPU) and reorders object keys,
    where text keeps the JSON as it was written. Key lookups (`field__key=value`) still work:
    on PostgreSQL each row's text is read as jsonb for them, so they suit filters that scan
    rather than ones that need an index.
    """

    def db_type(self, connection):
        return "text" if connection.vendor == "postgresql" else super().db_type(connection)

    def get_db_prep_value(self, value, connection, prepared=False):
        if connection.vendor != "postgresql":
            return super().get_db_prep_value(value, connection, prepared)
        if not prepared:
            value = self.get_prep_value(value)
        return json.dumps(value, cls=self.encoder, ensure_ascii=False)

    def get_transform(self, name):
        transform = super().get_transform(name)
        if isinstance(transform, KeyTransformFactory):
            return _TextKeyTransformFactory(name)
        return transform


class _JsonFromText(models.Func):
    """A JSONTextField's column as jsonb on PostgreSQL; elsewhere the column is JSON already."""

    output_field = models.JSONField()

    def as_sql(self, compiler, connection, **extra_context):
        return compiler.compile(self.source_expressions[0])

    def as_postgresql(self, compiler, connection, **extra_context):
        sql, params = compiler.compile(self.source_expressions[0])
        return f"({sql})::jsonb", params


class _TextKeyTransformFactory:
    def __init__(self, key_name: str):
        self.key_name = key_name

    def __call__(self, lhs, *args, **kwargs):
        return KeyTransform(self.key_name, _JsonFromText(lhs), *args, **kwargs)
