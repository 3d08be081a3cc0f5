# The reviews app's tables.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    replaces = [
        ('reviews', '0001_initial'),
        ('reviews', '0002_itemskip_savedview_annotation_promoted_and_more'),
        ('reviews', '0003_remove_reviewitem_review_item_claim_order_and_more'),
        ('reviews', '0004_annotation_annotation_undone'),
        ('reviews', '0005_reviewitem_task_excerpt'),
        ('reviews', '0006_user_feedback_reason'),
        ('reviews', '0007_one_hold_per_queue'),
        ('reviews', '0008_session_and_direct'),
        ('reviews', '0009_pairwise_review'),
        ('reviews', '0010_pairwise_judge_assist'),
    ]

    dependencies = [
        ('judges', '0001_squashed_0024_pairwise_judge'),
        ('traces', '0001_squashed_0019_project_log_records_unjoined'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='Queue',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=200, unique=True)),
                ('kind', models.CharField(choices=[('single', 'One trace, scored'), ('pairwise', 'Two traces of one task, compared')], default='single', max_length=20)),
                ('priority', models.IntegerField(default=0, help_text='Higher queues are worked first.')),
                ('blind', models.BooleanField(default=False, help_text='Hide judge passes until submitted.')),
                ('annotators_per_item', models.PositiveSmallIntegerField(default=1)),
                ('audit_sample_rate', models.FloatField(default=0.0)),
                ('judge_assist', models.CharField(choices=[('off', 'No judge'), ('prefill', "The judge's pick is filled in; people confirm or change it"), ('replace', 'The judge answers; only pairs it is unsure of go to people')], default='off', max_length=20)),
                ('judge_answers_confirm_gate', models.BooleanField(default=False, help_text="Pairs the judge settled count for the gate's people confirmation.")),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('judge_config', models.ForeignKey(blank=True, help_text='Blank: the default judge config.', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='judges.judgeconfig')),
                ('project', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to='traces.project')),
                ('rubric', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='queues', to='judges.rubric')),
            ],
        ),
        migrations.CreateModel(
            name='ReviewItem',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('reason', models.CharField(choices=[('passes_disagree', 'Judge passes disagree'), ('unparseable', 'Judge reply unusable'), ('call_failed', 'Judge call failed'), ('red_flag', 'Outcome passes but a trajectory red flag fired'), ('criterion_flip', 'A criterion flipped between passes'), ('audit_sample', 'Random audit sample'), ('calibration', 'Judge calibration sample'), ('flagged', 'Flagged by a person'), ('user_feedback', 'An end user gave a thumbs-down'), ('direct', 'Scored on the trace page'), ('pairwise', 'Two trajectories of one task to compare')], max_length=30)),
                ('detail', models.TextField(blank=True)),
                ('task_excerpt', models.CharField(blank=True, max_length=500)),
                ('status', models.CharField(choices=[('open', 'Open'), ('resolved', 'Resolved'), ('closed', 'Closed')], default='open', max_length=20)),
                ('priority', models.IntegerField(default=0)),
                ('lock_expires_at', models.DateTimeField(blank=True, null=True)),
                ('resolved_score', models.FloatField(blank=True, null=True)),
                ('needs_curator', models.BooleanField(default=False)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('resolved_at', models.DateTimeField(blank=True, null=True)),
                ('assigned_to', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='assigned_items', to=settings.AUTH_USER_MODEL)),
                ('claimed_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='claimed_items', to=settings.AUTH_USER_MODEL)),
                ('flagged_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='flagged_items', to=settings.AUTH_USER_MODEL)),
                ('queue', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='items', to='reviews.queue')),
                ('rubric_version', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='review_items', to='judges.rubricversion')),
                ('session', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='review_items', to='traces.session')),
                ('trace', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='review_items', to='traces.trace')),
                ('verdict', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='review_items', to='judges.verdict')),
            ],
        ),
        migrations.CreateModel(
            name='PairwiseComparison',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('candidate_on_left', models.BooleanField()),
                ('source', models.CharField(choices=[('eval_runs', 'Two eval runs (compare page)'), ('agent_versions', 'Two agent versions in a session'), ('traces', 'Two traces picked by hand')], max_length=20)),
                ('baseline_run_id', models.BigIntegerField(blank=True, null=True)),
                ('candidate_run_id', models.BigIntegerField(blank=True, null=True)),
                ('task_key', models.CharField(blank=True, max_length=200)),
                ('direction', models.CharField(blank=True, max_length=20)),
                ('settled_by_judge', models.BooleanField(default=False)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('baseline_trace', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='traces.trace')),
                ('candidate_trace', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='traces.trace')),
                ('judge_verdict', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='judges.pairwiseverdict')),
                ('item', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='pairwise', to='reviews.reviewitem')),
            ],
        ),
        migrations.CreateModel(
            name='ItemSkip',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, to=settings.AUTH_USER_MODEL)),
                ('item', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='skips', to='reviews.reviewitem')),
            ],
        ),
        migrations.CreateModel(
            name='Comment',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('text', models.TextField()),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('author', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, to=settings.AUTH_USER_MODEL)),
                ('item', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='comments', to='reviews.reviewitem')),
            ],
        ),
        migrations.CreateModel(
            name='Annotation',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('score', models.FloatField()),
                ('explanation', models.TextField(blank=True)),
                ('failure_tags', models.JSONField(blank=True, default=list)),
                ('criteria_results', models.JSONField(blank=True, default=list)),
                ('blind', models.BooleanField(default=False, help_text='Made without seeing the judge.')),
                ('is_adjudication', models.BooleanField(default=False)),
                ('promoted', models.BooleanField(default=False, help_text='Asked for promotion to golden.')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('undone_at', models.DateTimeField(blank=True, null=True)),
                ('annotator', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='annotations', to=settings.AUTH_USER_MODEL)),
                ('item', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='annotations', to='reviews.reviewitem')),
            ],
        ),
        migrations.CreateModel(
            name='SavedView',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=100)),
                ('query', models.CharField(blank=True, max_length=1000)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('queue', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='saved_views', to='reviews.queue')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='saved_review_views', to=settings.AUTH_USER_MODEL)),
            ],
        ),
        migrations.CreateModel(
            name='AuditEvent',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('action', models.CharField(max_length=50)),
                ('object_type', models.CharField(max_length=50)),
                ('object_id', models.CharField(max_length=50)),
                ('before', models.JSONField(blank=True, null=True)),
                ('after', models.JSONField(blank=True, null=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('actor', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'indexes': [models.Index(fields=['object_type', 'object_id'], name='audit_object')],
            },
        ),
        migrations.AddIndex(
            model_name='reviewitem',
            index=models.Index(fields=['queue', 'status', '-priority', 'created_at', 'id'], name='review_item_queue_order'),
        ),
        migrations.AddIndex(
            model_name='reviewitem',
            index=models.Index(fields=['status', 'resolved_at'], name='review_item_resolved'),
        ),
        migrations.AddConstraint(
            model_name='reviewitem',
            constraint=models.UniqueConstraint(condition=models.Q(('session__isnull', True), models.Q(('reason', 'pairwise'), _negated=True)), fields=('trace', 'rubric_version', 'reason'), name='review_item_unique_reason'),
        ),
        migrations.AddConstraint(
            model_name='reviewitem',
            constraint=models.UniqueConstraint(condition=models.Q(('session__isnull', False)), fields=('session', 'rubric_version', 'reason'), name='review_item_unique_session_reason'),
        ),
        migrations.AddConstraint(
            model_name='reviewitem',
            constraint=models.UniqueConstraint(condition=models.Q(('claimed_by__isnull', False), ('status', 'open')), fields=('queue', 'claimed_by'), name='review_item_one_hold_per_queue'),
        ),
        migrations.AddIndex(
            model_name='pairwisecomparison',
            index=models.Index(fields=['baseline_run_id', 'candidate_run_id'], name='pairwise_runs'),
        ),
        migrations.AddConstraint(
            model_name='pairwisecomparison',
            constraint=models.UniqueConstraint(fields=('baseline_trace', 'candidate_trace'), name='pairwise_pair_unique'),
        ),
        migrations.AddConstraint(
            model_name='itemskip',
            constraint=models.UniqueConstraint(fields=('item', 'user'), name='item_skip_unique'),
        ),
        migrations.AddIndex(
            model_name='annotation',
            index=models.Index(fields=['annotator', 'created_at'], name='annotation_by_annotator'),
        ),
        migrations.AddIndex(
            model_name='annotation',
            index=models.Index(fields=['undone_at'], name='annotation_undone'),
        ),
        migrations.AddConstraint(
            model_name='savedview',
            constraint=models.UniqueConstraint(fields=('user', 'queue', 'name'), name='saved_view_unique'),
        ),
    ]
