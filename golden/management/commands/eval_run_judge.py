"""`manage.py eval_run_judge RUN`: judge the run's traces with their examples' outcome rubrics."""

from django.core.management.base import BaseCommand

from core.command_errors import application_errors_as_command_errors
from golden.evals.services import eval_run_lookup, eval_run_outcomes_judge


class Command(BaseCommand):
    help = "Start judge runs for the outcome rubrics; score the eval run once verdicts are in."

    def add_arguments(self, parser):
        parser.add_argument("run", help="Eval run id or name.")
        parser.add_argument("--config", default="default", help="Judge config name.")

    def handle(self, *args, **opts):
        with application_errors_as_command_errors():
            runs = eval_run_outcomes_judge(
                eval_run_lookup(opts["run"], field="run"), config_name=opts["config"]
            )
        for judge_run in runs:
            self.stdout.write(
                f"judge run {judge_run.pk}: {judge_run.rubric_version} on {judge_run.trace_count} "
                "traces; run eval_run_score when it is done"
            )
