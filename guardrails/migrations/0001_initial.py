# The model came from the judges app with its table, which the judges migrations created and
# which keeps its name: only the state is created here (the judges side:
# judges/migrations/0021_models_moved_to_metrics_and_guardrails.py).

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

MOVED = ("guardraildecision",)


def content_types_follow(apps, schema_editor, before="judges", after="guardrails"):
    """Permissions and admin history point at the models under their new app label."""
    content_type = apps.get_model("contenttypes", "ContentType")
    known = content_type.objects.using(schema_editor.connection.alias)
    for model in MOVED:
        if not known.filter(app_label=after, model=model).exists():
            known.filter(app_label=before, model=model).update(app_label=after)


def content_types_return(apps, schema_editor):
    content_types_follow(apps, schema_editor, before="guardrails", after="judges")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("judges", "0021_models_moved_to_metrics_and_guardrails"),
        ("contenttypes", "0002_remove_content_type_name"),
        ('traces', '0017_pending_span_logs'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
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
            ],
            database_operations=[],
        ),
        migrations.RunPython(content_types_follow, content_types_return),
    ]
