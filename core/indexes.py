"""Indexes whose column order must match the order pages sort by."""

import copy

from django.db import models


class NullsLastIndex(models.Index):
    """A fields index whose descending nullable columns keep NULLs last, as pages sort them.

    PostgreSQL puts NULLs first in a descending index unless told otherwise, and such an index
    cannot serve `ORDER BY ... DESC NULLS LAST`; SQLite already keeps them last there and
    refuses the clause in CREATE INDEX.
    """

    def create_sql(self, model, schema_editor, using="", **kwargs):
        index = self
        if schema_editor.connection.vendor == "postgresql":
            index = copy.copy(self)
            nullable = {name for name, _ in self.fields_orders if model._meta.get_field(name).null}
            index.fields_orders = [
                (name, f"{order} NULLS LAST" if order and name in nullable else order)
                for name, order in self.fields_orders
            ]
        return models.Index.create_sql(index, model, schema_editor, using=using, **kwargs)
