from django.core.management.base import BaseCommand

from demo.calibration import demo_calibration_label


class Command(BaseCommand):
    help = "Label the demo's open calibration samples as its annotator (annie) would."

    def handle(self, *args, **options):
        counts = demo_calibration_label()
        self.stdout.write(
            f"Labelled {counts['labelled']} calibration item(s); skipped {counts['skipped']} "
            "criteria item(s)."
        )
