# The golden app's tables.

import django.db.models.deletion
import golden.models
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    replaces = [
        ('golden', '0001_initial'),
        ('golden', '0002_example_key_origin_version_counts'),
        ('golden', '0003_trace_held_out_backfill'),
        ('golden', '0004_plural_names'),
        ('golden', '0005_example_draft'),
        ('golden', '0006_list_indexes'),
        ('golden', '0007_tool_worlds'),
    ]

    dependencies = [
        ('judges', '0001_squashed_0024_pairwise_judge'),
        ('reviews', '0001_squashed_0010_pairwise_judge_assist'),
        ('traces', '0001_squashed_0019_project_log_records_unjoined'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='DatasetVersion',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=200, unique=True)),
                ('note', models.TextField(blank=True)),
                ('content_hash', models.CharField(max_length=64)),
                ('example_count', models.PositiveIntegerField(default=0)),
                ('held_out_count', models.PositiveIntegerField(default=0)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'abstract': False,
            },
        ),
        migrations.CreateModel(
            name='DatasetVersionEntry',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('example_key', models.CharField(help_text='Stable id across versions.', max_length=64)),
                ('held_out', models.BooleanField(default=False)),
                ('content', models.JSONField()),
                ('content_hash', models.CharField(max_length=64)),
                ('version', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='entries', to='golden.datasetversion')),
            ],
            options={
                'verbose_name_plural': 'dataset version entries',
            },
        ),
        migrations.CreateModel(
            name='EvalRun',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=200)),
                ('agent_name', models.CharField(blank=True, max_length=200)),
                ('agent_version', models.CharField(max_length=100)),
                ('trials_per_task', models.PositiveSmallIntegerField(default=1)),
                ('is_noop', models.BooleanField(default=False, help_text='A repeat of an unchanged agent.')),
                ('tool_worlds_started_at', models.DateTimeField(blank=True, null=True)),
                ('metrics', models.JSONField(blank=True, default=dict)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
                ('dataset_version', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='eval_runs', to='golden.datasetversion')),
            ],
        ),
        migrations.CreateModel(
            name='EvalTrial',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('trial_index', models.PositiveSmallIntegerField(default=0)),
                ('variant', models.CharField(blank=True, default='', max_length=100)),
                ('tool_token_hash', models.CharField(blank=True, default='', max_length=64)),
                ('metrics', models.JSONField(blank=True, default=dict)),
                ('passed', models.BooleanField(null=True)),
                ('entry', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, to='golden.datasetversionentry')),
                ('eval_run', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='trials', to='golden.evalrun')),
                ('trace', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to='traces.trace')),
            ],
        ),
        migrations.CreateModel(
            name='GoldenExample',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('key', models.CharField(default=golden.models.example_key_new, max_length=64)),
                ('origin', models.CharField(choices=[('promoted', 'Promoted from review'), ('handwritten', 'Written by hand'), ('imported', 'Imported'), ('collected', 'Added from a trace')], default='handwritten', max_length=20)),
                ('adversarial_kind', models.CharField(blank=True, choices=[('', 'Not adversarial'), ('ambiguous_parameters', 'Ambiguous parameters (agent should ask)'), ('empty_tool_result', 'Empty tool result'), ('contradictory_outputs', 'Contradictory tool outputs'), ('tool_error', 'Tool error'), ('tool_timeout', 'Tool timeout')], default='', max_length=30)),
                ('task', models.TextField()),
                ('task_type', models.CharField(blank=True, max_length=100)),
                ('context', models.JSONField(blank=True, default=dict)),
                ('reference_trajectory', models.JSONField(blank=True, default=list, help_text='[{"step", "tool", "inputs", "acceptable_output_fields"}]')),
                ('expected_outcome', models.TextField(blank=True)),
                ('expected_behavior', models.TextField(blank=True)),
                ('failure_tags', models.JSONField(blank=True, default=list)),
                ('red_flags', models.JSONField(blank=True, default=list, help_text='[{"text", "rule"}]')),
                ('held_out', models.BooleanField(default=False)),
                ('tool_world', models.JSONField(blank=True, default=dict)),
                ('draft', models.BooleanField(default=False)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
                ('outcome_rubric', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to='judges.rubric')),
                ('source_review_item', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to='reviews.reviewitem')),
                ('source_trace', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='golden_examples', to='traces.trace')),
            ],
        ),
        migrations.AddField(
            model_name='datasetversionentry',
            name='example',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to='golden.goldenexample'),
        ),
        migrations.CreateModel(
            name='ToolWorldCall',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('sequence', models.PositiveIntegerField()),
                ('tool', models.CharField(max_length=200)),
                ('arguments', models.JSONField(blank=True, null=True)),
                ('status', models.PositiveSmallIntegerField()),
                ('returned', models.JSONField(blank=True, null=True)),
                ('recording', models.IntegerField(blank=True, null=True)),
                ('fault', models.JSONField(blank=True, null=True)),
                ('transport', models.CharField(choices=[('http', 'Plain HTTP'), ('mcp', 'MCP')], max_length=10)),
                ('trace_id', models.CharField(blank=True, default='', max_length=32)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('trial', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='tool_calls', to='golden.evaltrial')),
            ],
        ),
        migrations.AddIndex(
            model_name='evalrun',
            index=models.Index(fields=['-created_at', '-id'], name='evalrun_newest'),
        ),
        migrations.AddConstraint(
            model_name='evaltrial',
            constraint=models.UniqueConstraint(fields=('eval_run', 'entry', 'variant', 'trial_index'), name='trial_unique'),
        ),
        migrations.AddIndex(
            model_name='goldenexample',
            index=models.Index(fields=['held_out', 'task_type'], name='golden_heldout_type'),
        ),
        migrations.AddIndex(
            model_name='goldenexample',
            index=models.Index(fields=['-created_at', '-id'], name='golden_example_newest'),
        ),
        migrations.AddConstraint(
            model_name='datasetversionentry',
            constraint=models.UniqueConstraint(fields=('version', 'example_key'), name='entry_unique_key'),
        ),
        migrations.AddConstraint(
            model_name='toolworldcall',
            constraint=models.UniqueConstraint(fields=('trial', 'sequence'), name='tool_call_sequence'),
        ),
            # Made unique after the table, as the replaced history did: the constraint gets the
        # name that databases migrated through that history have.
        migrations.AlterField(
            model_name='goldenexample',
            name='key',
            field=models.CharField(default=golden.models.example_key_new, max_length=64, unique=True),
        ),
    ]
