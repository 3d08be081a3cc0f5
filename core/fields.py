"""Model fields Django does not ship."""

import json

from django.db import models


class JSONTextField(models.JSONField):
    """JSON kept as its text on PostgreSQL, not as jsonb; a JSONField everywhere else.

    For large values that are written often and read whole, never queried inside: jsonb
    parses every value on write (a span's input and output cost ingestion about a fifth of
    its COPY) and reorders object keys, where text stores the JSON as it was written. Lookups
    into the value (`field__key`) are not supported on PostgreSQL; `isnull` is.
    """

    def db_type(self, connection):
        return "text" if connection.vendor == "postgresql" else super().db_type(connection)

    def get_db_prep_value(self, value, connection, prepared=False):
        if connection.vendor != "postgresql":
            return super().get_db_prep_value(value, connection, prepared)
        if not prepared:
            value = self.get_prep_value(value)
        return json.dumps(value, cls=self.encoder, ensure_ascii=False)
