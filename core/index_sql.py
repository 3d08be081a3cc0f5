"""Index DDL of migrations for tables that take writes while the migration runs."""

from django.contrib.postgres.operations import NotInTransactionMixin
from django.db import migrations


class AddIndexWritable(NotInTransactionMixin, migrations.AddIndex):
    """AddIndex built (and, going back, dropped) CONCURRENTLY on PostgreSQL, so ingestion goes
    on writing the table meanwhile; the migration must be `atomic = False`. A plain CREATE
    INDEX elsewhere."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        self._index_change(schema_editor, to_state, schema_editor.add_index, app_label)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        self._index_change(schema_editor, from_state, schema_editor.remove_index, app_label)

    def _index_change(self, schema_editor, state, change, app_label):
        model = state.apps.get_model(app_label, self.model_name)
        if not self.allow_migrate_model(schema_editor.connection.alias, model):
            return
        if schema_editor.connection.vendor != "postgresql":
            change(model, self.index)
            return
        self._ensure_not_in_transaction(schema_editor)
        change(model, self.index, concurrently=True)
