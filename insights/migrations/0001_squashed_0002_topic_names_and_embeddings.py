# The insights app's tables.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    replaces = [
        ('insights', '0001_topics_and_silent_rules'),
        ('insights', '0002_topic_names_and_embeddings'),
    ]

    dependencies = [
        ('judges', '0001_squashed_0024_pairwise_judge'),
        ('traces', '0001_squashed_0019_project_log_records_unjoined'),
    ]

    operations = [
        migrations.CreateModel(
            name='TopicBuild',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('window_start', models.DateTimeField()),
                ('window_end', models.DateTimeField()),
                ('built_at', models.DateTimeField()),
                ('trace_count', models.PositiveIntegerField(default=0)),
                ('traces_left_out', models.PositiveIntegerField(default=0)),
                ('duration_ms', models.PositiveIntegerField(default=0)),
                ('peak_memory_kb', models.PositiveIntegerField(default=0)),
                ('method', models.CharField(default='tfidf-kmeans', max_length=50)),
                ('embedding_model', models.CharField(blank=True, max_length=200)),
                ('representation_note', models.CharField(blank=True, max_length=300)),
                ('arrivals_fallback', models.PositiveIntegerField(default=0)),
                ('names_asked', models.PositiveSmallIntegerField(default=0)),
                ('naming_note', models.CharField(blank=True, max_length=300)),
                ('vocabulary', models.JSONField(default=list)),
                ('idf', models.JSONField(default=list)),
                ('failure_share', models.FloatField(default=0)),
                ('project', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='topic_builds', to='traces.project')),
            ],
        ),
        migrations.CreateModel(
            name='Topic',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('number', models.PositiveSmallIntegerField()),
                ('name', models.CharField(max_length=200)),
                ('name_source', models.CharField(default='terms', max_length=10)),
                ('terms', models.JSONField(default=list)),
                ('centroid', models.JSONField(default=list)),
                ('embedding_centroid', models.JSONField(blank=True, default=list)),
                ('size', models.PositiveIntegerField(default=0)),
                ('failure_count', models.PositiveIntegerField(default=0)),
                ('earlier_count', models.PositiveIntegerField(default=0)),
                ('later_count', models.PositiveIntegerField(default=0)),
                ('arrived_count', models.PositiveIntegerField(default=0)),
                ('arrived_failures', models.PositiveIntegerField(default=0)),
                ('example_trace_ids', models.JSONField(default=list)),
                ('is_new', models.BooleanField(default=False)),
                ('rule_draft', models.JSONField(blank=True, default=dict)),
                ('build', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='topics', to='insights.topicbuild')),
            ],
        ),
        migrations.CreateModel(
            name='TraceTopic',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('distance', models.FloatField()),
                ('failed', models.BooleanField(default=False)),
                ('on_arrival', models.BooleanField(default=False)),
                ('topic', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='members', to='insights.topic')),
                ('trace', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='topic_membership', to='traces.trace')),
            ],
        ),
        migrations.CreateModel(
            name='SilentRuleAlert',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('raised_at', models.DateTimeField()),
                ('cleared_at', models.DateTimeField(blank=True, null=True)),
                ('decisions', models.PositiveIntegerField(default=0)),
                ('top_reason', models.CharField(blank=True, choices=[('judged', 'Judged'), ('not_sampled', 'Not sampled'), ('not_calibrated', 'Judge version not calibrated'), ('not_settled', 'Trace not settled'), ('over_limit', 'Over the hourly limit'), ('provider_failing', 'Provider failing'), ('other_task_type', 'No matching task type'), ('no_approved_version', 'No approved version')], max_length=30)),
                ('project', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='silent_alerts', to='traces.project')),
                ('rubric', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='silent_alerts', to='judges.rubric')),
            ],
            options={
                'constraints': [models.UniqueConstraint(condition=models.Q(('cleared_at__isnull', True)), fields=('rubric', 'project'), name='silent_rule_alert_open')],
            },
        ),
        migrations.AddIndex(
            model_name='topicbuild',
            index=models.Index(fields=['project', '-built_at'], name='topic_build_project_newest'),
        ),
        migrations.AddConstraint(
            model_name='topic',
            constraint=models.UniqueConstraint(fields=('build', 'number'), name='topic_build_number'),
        ),
    ]
