from django.core.management.base import BaseCommand

from metrics.told_failures import traces_told_failures_recount


class Command(BaseCommand):
    help = (
        "Count into every checked trace's errors (and its session's) the failed tool calls its "
        "checks read only in the messages handed back to the model: traces checked before "
        "those were counted."
    )

    def add_arguments(self, parser):
        parser.add_argument("--batch", type=int, default=200, help="Traces read a query.")

    def handle(self, *args, batch, **options):
        read, changed = traces_told_failures_recount(batch=batch)
        self.stdout.write(f"{changed} traces recounted of {read} read.")
