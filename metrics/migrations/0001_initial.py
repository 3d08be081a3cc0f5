# The metrics app's tables (named judges_* as when the judges app held them).

import django.core.validators
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
            name='GuardrailPolicy',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('loop_repeats', models.PositiveSmallIntegerField(default=3, help_text='Identical or near-identical calls that make a loop.', validators=[django.core.validators.MinValueValidator(2), django.core.validators.MaxValueValidator(100)])),
                ('max_steps', models.PositiveIntegerField(default=30, help_text='Tool calls allowed in one trajectory.', validators=[django.core.validators.MinValueValidator(1), django.core.validators.MaxValueValidator(10000)])),
                ('tool_prerequisites', models.JSONField(blank=True, default=dict, help_text='Tool -> tools that must have succeeded before it.')),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('project', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='guardrail_policy', to='traces.project')),
                ('updated_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name_plural': 'guardrail policies',
                'db_table': 'judges_guardrailpolicy',
            },
        ),
        migrations.CreateModel(
            name='RedFlagCheck',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('checked_at', models.DateTimeField()),
                ('trace', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='red_flag_check', to='traces.trace')),
            ],
            options={
                'db_table': 'judges_redflagcheck',
            },
        ),
        migrations.CreateModel(
            name='RedFlag',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('prerequisite', 'Called before its prerequisite'), ('hallucinated_parameter', 'Hallucinated parameter'), ('loop', 'Repeated identical calls'), ('confident_after_failure', 'Confident answer after a failed tool'), ('max_steps_exceeded', 'Step limit exceeded'), ('judge_injection', 'Instructions aimed at the judge'), ('premature_stop', 'Stopped before finishing'), ('unclean_stop', 'Truncated, refused or errored stop')], max_length=40)),
                ('detail', models.TextField(blank=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('span', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='red_flags', to='traces.span')),
                ('trace', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='red_flags', to='traces.trace')),
            ],
            options={
                'db_table': 'judges_redflag',
                'indexes': [models.Index(fields=['trace', 'kind'], name='redflag_trace_kind')],
            },
        ),
        migrations.CreateModel(
            name='ToolEffect',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('tool', models.CharField(max_length=200)),
                ('effect', models.CharField(choices=[('read', 'Read'), ('write', 'Write')], max_length=10)),
                ('source', models.CharField(choices=[('default', 'Guessed from the name and definition'), ('curator', 'Set by a curator')], default='default', max_length=10)),
                ('definition', models.JSONField(blank=True, default=dict, help_text='As the agent sent it.')),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('project', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='tool_effects', to='traces.project')),
                ('updated_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'db_table': 'judges_tooleffect',
                'constraints': [models.UniqueConstraint(fields=('project', 'tool'), name='tool_effect_unique')],
            },
        ),
    ]
