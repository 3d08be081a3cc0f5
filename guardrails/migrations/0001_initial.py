# The guardrails app's table (named judges_* as when the judges app held it).

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('traces', '0001_squashed_0019_project_log_records_unjoined'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='GuardrailDecision',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('trace_external_id', models.CharField(max_length=64)),
                ('decision', models.CharField(choices=[('allow', 'Allow'), ('block', 'Block')], max_length=10)),
                ('blocked_by', models.CharField(blank=True, max_length=40)),
                ('next_tool', models.CharField(blank=True, max_length=200)),
                ('steps', models.PositiveIntegerField(default=0)),
                ('checks', models.JSONField(blank=True, default=list)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
                ('project', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='guardrail_decisions', to='traces.project')),
            ],
            options={
                'db_table': 'judges_guardraildecision',
                'indexes': [models.Index(fields=['project', 'trace_external_id'], name='guardrail_trace')],
            },
        ),
    ]
