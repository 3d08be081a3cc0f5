# The red flags, tool effects and guardrail thresholds are the metrics app's models now, and
# the recorded guardrail decisions the guardrails app's (metrics/migrations/0001_initial.py,
# guardrails/migrations/0001_initial.py). Their tables stay as they are: only the state moves.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("judges", "0020_red_flag_kinds_both_stops"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name='guardrailpolicy',
                    name='project',
                ),
                migrations.RemoveField(
                    model_name='guardrailpolicy',
                    name='updated_by',
                ),
                migrations.RemoveField(
                    model_name='redflag',
                    name='span',
                ),
                migrations.RemoveField(
                    model_name='redflag',
                    name='trace',
                ),
                migrations.RemoveField(
                    model_name='redflagcheck',
                    name='trace',
                ),
                migrations.RemoveField(
                    model_name='tooleffect',
                    name='project',
                ),
                migrations.RemoveField(
                    model_name='tooleffect',
                    name='updated_by',
                ),
                migrations.DeleteModel(
                    name='GuardrailDecision',
                ),
                migrations.DeleteModel(
                    name='GuardrailPolicy',
                ),
                migrations.DeleteModel(
                    name='RedFlag',
                ),
                migrations.DeleteModel(
                    name='RedFlagCheck',
                ),
                migrations.DeleteModel(
                    name='ToolEffect',
                ),
            ],
            database_operations=[],
        ),
    ]
