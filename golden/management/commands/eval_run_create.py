"""`manage.py eval_run_create NAME --agent-version V --dataset-version D`: record a run."""

from django.core.management.base import BaseCommand

from core.command_errors import application_errors_as_command_errors
from golden.evals.services import eval_run_create


class Command(BaseCommand):
    help = "Record an eval run; the agent then tags its traces with evalsite.eval_run=NAME."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--agent-version", required=True)
        parser.add_argument("--agent-name", default="")
        parser.add_argument("--dataset-version", required=True, help="Dataset version name.")
        parser.add_argument("--trials", type=int, default=1, help="k trials per task.")
        parser.add_argument(
            "--noop",
            action="store_true",
            help="A repeat of an unchanged agent, to learn the noise band.",
        )

    def handle(self, *args, **opts):
        with application_errors_as_command_errors():
            run = eval_run_create(
                name=opts["name"],
                agent_version=opts["agent_version"],
                agent_name=opts["agent_name"],
                dataset_version=opts["dataset_version"],
                trials_per_task=opts["trials"],
                is_noop=opts["noop"],
            )
        self.stdout.write(
            f"eval run {run.pk} {run.name!r}: tag traces with evalsite.eval_run={run.name}"
        )
