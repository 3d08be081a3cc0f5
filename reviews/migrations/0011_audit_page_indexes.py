# The audit page reads newest first, whole or by action or person, one page of an index.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("reviews", "0001_squashed_0010_pairwise_judge_assist"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="auditevent",
            index=models.Index(fields=["-created_at", "-id"], name="audit_newest"),
        ),
        migrations.AddIndex(
            model_name="auditevent",
            index=models.Index(fields=["action", "-created_at", "-id"], name="audit_action_newest"),
        ),
        migrations.AddIndex(
            model_name="auditevent",
            index=models.Index(fields=["actor", "-created_at", "-id"], name="audit_actor_newest"),
        ),
    ]
