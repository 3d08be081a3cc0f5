"""For tests of the spans table's day partitions."""

import pytest
from django.db import connection

# SQLite (embedded mode) keeps one plain spans table: there is nothing to test there.
POSTGRESQL_ONLY = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="spans partitioned on PostgreSQL"
)
