from django.core.management.base import BaseCommand

from traces.usage_recount import traces_usage_recount


class Command(BaseCommand):
    help = (
        "Recount every stored trace's tokens and cost with each model call counted once "
        "(nested model-call spans repeating one call's usage), their failures with each merged "
        "call counted once, and their sessions' totals."
    )

    def add_arguments(self, parser):
        parser.add_argument("--batch", type=int, default=200, help="Traces per transaction.")

    def handle(self, *args, batch, **options):
        read, changed = traces_usage_recount(batch=batch)
        self.stdout.write(f"{changed} traces recounted of {read} read.")
