"""Request fields the APIs share."""

from rest_framework import serializers

# The largest key a bigint column holds: a larger number names no row, and SQLite cannot
# even be asked about it.
MAX_ROW_ID = 2**63 - 1


class RowIdField(serializers.IntegerField):
    """A row's primary key as a client sends it: a positive integer a key column can hold."""

    def __init__(self, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ROW_ID)
        super().__init__(**kwargs)
