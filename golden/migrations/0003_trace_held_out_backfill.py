from django.db import migrations
from django.db.models import Exists, OuterRef


def trace_held_out_backfill(apps, schema_editor):
    """Mark the source traces of held-out examples that existed before Trace.held_out."""
    Trace = apps.get_model("traces", "Trace")
    GoldenExample = apps.get_model("golden", "GoldenExample")
    backing = GoldenExample.objects.filter(source_trace_id=OuterRef("pk"), held_out=True)
    Trace.objects.update(held_out=Exists(backing))


class Migration(migrations.Migration):
    dependencies = [
        ("golden", "0002_example_key_origin_version_counts"),
        ("traces", "0003_trace_held_out"),
    ]

    operations = [migrations.RunPython(trace_held_out_backfill, migrations.RunPython.noop)]
