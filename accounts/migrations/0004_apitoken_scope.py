# What an API token may do: everything its person's role allows (every token so far), or send.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_squashed_0003_idempotency_key"),
    ]

    operations = [
        migrations.AddField(
            model_name="apitoken",
            name="scope",
            field=models.CharField(
                choices=[
                    ("full", "Everything its person's role allows"),
                    ("send", "Send traces, logs and feedback only"),
                ],
                default="full",
                max_length=8,
            ),
        ),
    ]
