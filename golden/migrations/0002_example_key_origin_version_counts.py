import uuid

from django.db import migrations, models

import golden.models


def fill_example_keys(apps, schema_editor):
    GoldenExample = apps.get_model("golden", "GoldenExample")
    for example in GoldenExample.objects.filter(key__isnull=True).only("pk"):
        GoldenExample.objects.filter(pk=example.pk).update(key=uuid.uuid4().hex)


class Migration(migrations.Migration):

    dependencies = [
        ("golden", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="goldenexample",
            name="key",
            field=models.CharField(max_length=64, null=True),
        ),
        migrations.RunPython(fill_example_keys, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="goldenexample",
            name="key",
            field=models.CharField(
                default=golden.models.example_key_new, max_length=64, unique=True
            ),
        ),
        migrations.AddField(
            model_name="goldenexample",
            name="origin",
            field=models.CharField(
                choices=[
                    ("promoted", "Promoted from review"),
                    ("handwritten", "Written by hand"),
                    ("imported", "Imported"),
                ],
                default="handwritten",
                max_length=20,
            ),
        ),
        migrations.AddField(
            model_name="goldenexample",
            name="adversarial_kind",
            field=models.CharField(
                blank=True,
                choices=[
                    ("", "Not adversarial"),
                    ("ambiguous_parameters", "Ambiguous parameters (agent should ask)"),
                    ("empty_tool_result", "Empty tool result"),
                    ("contradictory_outputs", "Contradictory tool outputs"),
                    ("tool_error", "Tool error"),
                    ("tool_timeout", "Tool timeout"),
                ],
                default="",
                max_length=30,
            ),
        ),
        migrations.AddField(
            model_name="datasetversion",
            name="held_out_count",
            field=models.PositiveIntegerField(default=0),
        ),
    ]
