from django.core.management.base import BaseCommand, CommandError

from traces.masking.stored import BATCH, project_stored_mask
from traces.models import Project


class Command(BaseCommand):
    help = (
        "Mask a project's stored traces, spans, feedback and search documents with its current "
        "masking rules (new data is masked on ingest; this catches up what came before)."
    )

    def add_arguments(self, parser):
        parser.add_argument("project", help="The project's slug.")
        parser.add_argument("--batch", type=int, default=BATCH, help="Traces per transaction.")

    def handle(self, *args, project, batch, **options):
        found = Project.objects.filter(slug=project).first()
        if found is None:
            raise CommandError(f"No project has the slug {project!r}.")
        counts = project_stored_mask(found, batch=batch)
        self.stdout.write(
            f"{counts.traces_changed} of {counts.traces_read} traces masked again "
            f"({counts.spans_changed} spans, {counts.feedback_changed} feedback)."
        )
