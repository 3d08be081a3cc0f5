from django.core.management.base import BaseCommand

from demo.golden import golden_demo_ensure


class Command(BaseCommand):
    help = "Create a small realistic golden dataset and its version (once)."

    def handle(self, *args, **options):
        version = golden_demo_ensure()
        self.stdout.write(
            f"Golden demo version {version.name}: {version.example_count} examples, "
            f"{version.held_out_count} held out, hash {version.content_hash[:12]}"
        )
