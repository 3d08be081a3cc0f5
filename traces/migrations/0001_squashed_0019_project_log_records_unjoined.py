# The traces app's tables, full-text search storage and the day-partitioned spans table.

import core.fields
import core.indexes
import django.contrib.postgres.search
import django.core.validators
import django.db.models.deletion
import django.utils.timezone
import traces.models
from django.conf import settings
from django.db import migrations, models

# Backend-specific full-text storage: a GIN index over the tsvector on PostgreSQL, an FTS5 table
# (removed with its document row) on SQLite. Other backends get neither.
POSTGRES_FULLTEXT = [
    "CREATE INDEX trace_search_document_gin ON traces_tracesearchdocument USING gin (document)",
]
SQLITE_FULLTEXT = [
    "CREATE VIRTUAL TABLE traces_search_fts USING fts5(body, tokenize='porter unicode61')",
    """CREATE TRIGGER traces_search_fts_forget AFTER DELETE ON traces_tracesearchdocument
    BEGIN DELETE FROM traces_search_fts WHERE rowid = old.trace_id; END""",
]
FULLTEXT_DROP = {
    "postgresql": ["DROP INDEX IF EXISTS trace_search_document_gin"],
    "sqlite": [
        "DROP TRIGGER IF EXISTS traces_search_fts_forget",
        "DROP TABLE IF EXISTS traces_search_fts",
    ],
}


def fulltext_create(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    for statement in {"postgresql": POSTGRES_FULLTEXT, "sqlite": SQLITE_FULLTEXT}.get(vendor, []):
        schema_editor.execute(statement)


def fulltext_drop(apps, schema_editor):
    for statement in FULLTEXT_DROP.get(schema_editor.connection.vendor, []):
        schema_editor.execute(statement)


def spans_partition(apps, schema_editor):
    """On PostgreSQL the spans table is partitioned by its trace's day (traces.span_partitions
    says why); the rebuild also gives each partition its row storage setting."""
    if schema_editor.connection.vendor == "postgresql":
        from traces.partition_sql import spans_table_convert

        spans_table_convert(partitioned=True)


def spans_unpartition(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        from traces.partition_sql import spans_table_convert

        spans_table_convert(partitioned=False)


class Migration(migrations.Migration):

    initial = True

    replaces = [
        ('traces', '0001_initial'),
        ('traces', '0002_span_cost_usd_trace_completed_at_and_more'),
        ('traces', '0003_trace_held_out'),
        ('traces', '0004_project_tool_error_rules'),
        ('traces', '0005_feedback'),
        ('traces', '0006_plural_names'),
        ('traces', '0007_project_retention_days'),
        ('traces', '0008_search_documents'),
        ('traces', '0009_sessions'),
        ('traces', '0010_trace_list_indexes'),
        ('traces', '0011_session_totals'),
        ('traces', '0012_spans_by_day'),
        ('traces', '0013_foreign_key_indexes_covered'),
        ('traces', '0014_span_rows_kept_whole'),
        ('traces', '0015_span_content_as_json_text'),
        ('traces', '0016_source_format_jaeger'),
        ('traces', '0017_pending_span_logs'),
        ('traces', '0018_masking_rules'),
        ('traces', '0019_project_log_records_unjoined'),
    ]

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='Project',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=200)),
                ('slug', models.SlugField(max_length=100, unique=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('tool_error_text_detection', models.BooleanField(default=True, help_text='Tool results that open with Error:, Traceback, HTTP 4xx/5xx fail.')),
                ('tool_error_markers', models.JSONField(blank=True, default=list, help_text='More openings that mark a tool result as failed.')),
                ('route_thumbs_down_to_review', models.BooleanField(default=False, help_text='A thumbs-down from end users queues the trace for review.')),
                ('retention_days', models.PositiveIntegerField(blank=True, help_text='Remove traces received more than this many days ago; empty keeps them all. Golden sources and traces under review, eval runs or running judge runs stay.', null=True, validators=[django.core.validators.MinValueValidator(1)])),
                ('masking_key', models.CharField(default=traces.models.masking_key_new, editable=False, max_length=64)),
                ('log_records_unjoined', models.PositiveBigIntegerField(default=0, editable=False, help_text='OTLP log records whose span never came.')),
            ],
        ),
        migrations.CreateModel(
            name='Trace',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('external_id', models.CharField(help_text='OpenTelemetry trace id (hex).', max_length=64)),
                ('task', models.TextField(blank=True, help_text="The user's request.")),
                ('final_answer', models.TextField(blank=True)),
                ('stop_reason', models.CharField(blank=True, max_length=100)),
                ('task_type', models.CharField(blank=True, max_length=100)),
                ('agent_name', models.CharField(blank=True, max_length=200)),
                ('agent_version', models.CharField(blank=True, max_length=100)),
                ('model', models.CharField(blank=True, max_length=200)),
                ('source_format', models.CharField(choices=[('otlp', 'OTLP'), ('span_tree', 'Span-tree JSON'), ('anthropic', 'Anthropic transcript'), ('openai', 'OpenAI transcript'), ('jaeger', 'Jaeger export')], max_length=20)),
                ('context', models.JSONField(blank=True, default=dict, help_text='available_tools, conversation id, user context.')),
                ('attributes', models.JSONField(blank=True, default=dict)),
                ('root_span_id', models.CharField(blank=True, max_length=32)),
                ('started_at', models.DateTimeField(blank=True, null=True)),
                ('ended_at', models.DateTimeField(blank=True, null=True)),
                ('span_count', models.PositiveIntegerField(default=0)),
                ('error_count', models.PositiveIntegerField(default=0)),
                ('input_tokens', models.PositiveBigIntegerField(default=0)),
                ('output_tokens', models.PositiveBigIntegerField(default=0)),
                ('cost_usd', models.DecimalField(decimal_places=6, default=0, max_digits=12)),
                ('content_hash', models.CharField(blank=True, max_length=64)),
                ('last_span_received_at', models.DateTimeField(blank=True, null=True)),
                ('completed_at', models.DateTimeField(blank=True, null=True)),
                ('held_out', models.BooleanField(default=False)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('spans_day', models.DateField(default=traces.models.utc_today)),
                ('project', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='traces', to='traces.project')),
            ],
        ),
        migrations.CreateModel(
            name='MaskingRule',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('detector', 'Built-in detector'), ('pattern', 'Pattern (regular expression)'), ('attribute', 'Attribute name')], max_length=16)),
                ('detector', models.CharField(blank=True, max_length=16)),
                ('pattern', models.CharField(blank=True, max_length=500)),
                ('label', models.SlugField(help_text="The mark's name: <label> or <label:…>.", max_length=40)),
                ('action', models.CharField(choices=[('mark', 'Fixed mark, e.g. <email>'), ('pseudonym', 'Stable pseudonym, e.g. <email:7f3a91c2>'), ('drop', 'Drop the attribute')], default='pseudonym', max_length=16)),
                ('enabled', models.BooleanField(default=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('project', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='masking_rules', to='traces.project')),
            ],
            options={
                'ordering': ['project', 'kind', 'id'],
            },
        ),
        migrations.CreateModel(
            name='Session',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('external_id', models.CharField(max_length=255)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('trace_count', models.IntegerField(default=0)),
                ('error_count', models.IntegerField(default=0)),
                ('input_tokens', models.BigIntegerField(default=0)),
                ('output_tokens', models.BigIntegerField(default=0)),
                ('cost_usd', models.DecimalField(decimal_places=6, default=0, max_digits=14)),
                ('first_started_at', models.DateTimeField(blank=True, null=True)),
                ('last_trace_at', models.DateTimeField(blank=True, null=True)),
                ('first_task', models.TextField(blank=True, help_text="The first trace's task, cut short.")),
                ('held_out_trace_count', models.IntegerField(default=0)),
                ('last_received_at', models.DateTimeField(blank=True, null=True)),
                ('project', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='sessions', to='traces.project')),
            ],
        ),
        migrations.CreateModel(
            name='TraceSearchDocument',
            fields=[
                ('trace', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='search_document', serialize=False, to='traces.trace')),
                ('document', django.contrib.postgres.search.SearchVectorField(null=True)),
                ('spans_received_at', models.DateTimeField(null=True)),
                ('built_at', models.DateTimeField()),
            ],
        ),
        migrations.AddField(
            model_name='trace',
            name='session',
            field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='traces', to='traces.session'),
        ),
        migrations.CreateModel(
            name='Span',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('span_id', models.CharField(max_length=32)),
                ('parent_span_id', models.CharField(blank=True, max_length=32)),
                ('name', models.CharField(max_length=500)),
                ('kind', models.CharField(choices=[('agent', 'Agent'), ('llm', 'Llm'), ('tool', 'Tool'), ('retriever', 'Retriever'), ('custom', 'Custom')], default='custom', max_length=20)),
                ('started_at', models.DateTimeField(blank=True, null=True)),
                ('ended_at', models.DateTimeField(blank=True, null=True)),
                ('duration_ms', models.PositiveIntegerField(blank=True, null=True)),
                ('input', core.fields.JSONTextField(blank=True, null=True)),
                ('output', core.fields.JSONTextField(blank=True, null=True)),
                ('attributes', core.fields.JSONTextField(blank=True, default=dict)),
                ('status', models.CharField(choices=[('unset', 'Unset'), ('ok', 'Ok'), ('error', 'Error')], default='unset', max_length=10)),
                ('error_message', models.TextField(blank=True)),
                ('tool_name', models.CharField(blank=True, max_length=200)),
                ('tool_call_id', models.CharField(blank=True, max_length=200)),
                ('model', models.CharField(blank=True, max_length=200)),
                ('input_tokens', models.PositiveIntegerField(default=0)),
                ('output_tokens', models.PositiveIntegerField(default=0)),
                ('cost_usd', models.DecimalField(decimal_places=6, default=0, max_digits=12)),
                ('position', models.PositiveIntegerField(default=0)),
                ('component', models.CharField(blank=True, help_text='Agent or tool this span is attributed to.', max_length=200)),
                ('trace_day', models.DateField(default=traces.models.utc_today)),
                ('trace', models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='spans', to='traces.trace')),
            ],
        ),
        migrations.CreateModel(
            name='Feedback',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('span_id', models.CharField(blank=True, max_length=32)),
                ('name', models.CharField(default='user_feedback', max_length=100)),
                ('kind', models.CharField(choices=[('thumbs', 'Thumbs up or down'), ('number', 'A number'), ('category', 'A category')], max_length=20)),
                ('value', models.FloatField(blank=True, null=True)),
                ('category', models.CharField(blank=True, max_length=100)),
                ('comment', models.TextField(blank=True)),
                ('end_user', models.CharField(blank=True, help_text='Who gave it, as sent.', max_length=200)),
                ('metadata', models.JSONField(blank=True, default=dict)),
                ('key', models.CharField(max_length=200)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
                ('trace', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='feedback', to='traces.trace')),
            ],
            options={
                'verbose_name_plural': 'feedback',
            },
        ),
        migrations.CreateModel(
            name='TraceAttributeValue',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('key', models.CharField(max_length=200)),
                ('value_text', models.CharField(max_length=200)),
                ('value_number', models.FloatField(null=True)),
                ('trace', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='attribute_values', to='traces.trace')),
            ],
        ),
        migrations.CreateModel(
            name='PendingSpanLog',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('trace_external_id', models.CharField(max_length=64)),
                ('span_id', models.CharField(max_length=32)),
                ('events', models.JSONField(default=list)),
                ('received_at', models.DateTimeField(auto_now_add=True)),
                ('project', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='traces.project')),
            ],
            options={
                'indexes': [models.Index(fields=['project', 'trace_external_id'], name='pending_log_trace')],
            },
        ),
        migrations.CreateModel(
            name='MaskingRuleChange',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('rule_id', models.IntegerField()),
                ('username', models.CharField(blank=True, max_length=150)),
                ('action', models.CharField(choices=[('created', 'Created'), ('changed', 'Changed'), ('deleted', 'Deleted')], max_length=16)),
                ('before', models.JSONField(blank=True, null=True)),
                ('after', models.JSONField(blank=True, null=True)),
                ('at', models.DateTimeField(default=django.utils.timezone.now)),
                ('user', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
                ('project', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='traces.project')),
            ],
            options={
                'ordering': ['-at', '-id'],
                'indexes': [models.Index(fields=['project', '-at'], name='masking_change_project_at')],
            },
        ),
        migrations.AddIndex(
            model_name='session',
            index=core.indexes.NullsLastIndex(fields=['-last_trace_at', '-id'], name='session_list_latest'),
        ),
        migrations.AddIndex(
            model_name='session',
            index=core.indexes.NullsLastIndex(fields=['project', '-last_trace_at', '-id'], name='session_project_latest'),
        ),
        migrations.AddIndex(
            model_name='session',
            index=models.Index(fields=['last_received_at', 'id'], name='session_received'),
        ),
        migrations.AddConstraint(
            model_name='session',
            constraint=models.UniqueConstraint(fields=('project', 'external_id'), name='session_unique_external_id'),
        ),
        migrations.AddIndex(
            model_name='trace',
            index=core.indexes.NullsLastIndex(fields=['-started_at', '-id'], name='trace_list_newest'),
        ),
        migrations.AddIndex(
            model_name='trace',
            index=core.indexes.NullsLastIndex(fields=['project', '-started_at', '-id'], name='trace_project_newest'),
        ),
        migrations.AddIndex(
            model_name='trace',
            index=models.Index(fields=['-created_at'], name='trace_created'),
        ),
        migrations.AddIndex(
            model_name='trace',
            index=models.Index(fields=['spans_day', 'project'], name='trace_spans_day'),
        ),
        migrations.AddIndex(
            model_name='trace',
            index=models.Index(fields=['agent_name', 'agent_version'], name='trace_agent'),
        ),
        migrations.AddIndex(
            model_name='trace',
            index=models.Index(fields=['task_type'], name='trace_task_type'),
        ),
        migrations.AddIndex(
            model_name='trace',
            index=models.Index(fields=['session', 'started_at'], name='trace_session_started'),
        ),
        migrations.AddIndex(
            model_name='trace',
            index=models.Index(condition=models.Q(('completed_at__isnull', True)), fields=['last_span_received_at'], name='trace_unsettled'),
        ),
        migrations.AddConstraint(
            model_name='trace',
            constraint=models.UniqueConstraint(fields=('project', 'external_id'), name='trace_unique_external_id'),
        ),
        migrations.AddIndex(
            model_name='span',
            index=models.Index(fields=['trace', 'position'], name='span_trace_position'),
        ),
        migrations.AddConstraint(
            model_name='span',
            constraint=models.UniqueConstraint(fields=('trace', 'span_id', 'trace_day'), name='span_unique_per_trace'),
        ),
        migrations.AddIndex(
            model_name='feedback',
            index=models.Index(fields=['kind', 'value'], name='feedback_kind_value'),
        ),
        migrations.AddConstraint(
            model_name='feedback',
            constraint=models.UniqueConstraint(fields=('trace', 'key'), name='feedback_unique_key'),
        ),
        migrations.AddIndex(
            model_name='traceattributevalue',
            index=models.Index(fields=['key', 'value_text', 'trace'], name='trace_attr_text'),
        ),
        migrations.AddIndex(
            model_name='traceattributevalue',
            index=models.Index(condition=models.Q(('value_number__isnull', False)), fields=['key', 'value_number', 'trace'], name='trace_attr_number'),
        ),
            migrations.RunPython(fulltext_create, fulltext_drop),
        migrations.RunPython(spans_partition, spans_unpartition),
    ]
