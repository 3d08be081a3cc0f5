"""`manage.py eval_run_score RUN`: attach the run's tagged traces and score them."""

from django.core.management.base import BaseCommand, CommandError
from evalsite_checks.matchers import AUTO, TRAJECTORY_MATCHERS

from core.command_errors import application_errors_as_command_errors
from golden.evals.metrics import GATED_METRICS
from golden.evals.scoring import ScoringOptions, eval_run_score, parameter_judge_safe
from golden.evals.services import eval_run_lookup
from judges.trajectory_llm import behavior_judge_llm, parameter_judge_llm, path_judge_llm


class Command(BaseCommand):
    help = "Score an eval run: outcome, tool selection, parameters, pass@k/pass^k, red flags."

    def add_arguments(self, parser):
        parser.add_argument("run", help="Eval run id or name.")
        parser.add_argument("--matcher", choices=TRAJECTORY_MATCHERS, default=AUTO)
        parser.add_argument(
            "--no-llm",
            action="store_true",
            help="Deterministic only: undecided parameters score 0.5.",
        )

    def handle(self, *args, **opts):
        with application_errors_as_command_errors():
            run = eval_run_lookup(opts["run"], field="run")
        options = ScoringOptions(
            matcher=opts["matcher"],
            path_judge=None if opts["no_llm"] else path_judge_llm,
            parameter_judge=None if opts["no_llm"] else parameter_judge_safe(parameter_judge_llm),
            behavior_judge=None if opts["no_llm"] else behavior_judge_llm,
        )
        if opts["no_llm"] and opts["matcher"] == "semantic":
            raise CommandError("The semantic matcher needs the LLM; drop --no-llm.")
        metrics = eval_run_score(run, options)
        overall = metrics["overall"]
        self.stdout.write(
            f"run {run.pk} {run.name!r}: {overall['trials']} trials, "
            f"{metrics['attached']} traces attached, "
            f"{overall['missing_trials']} missing"
        )
        for name in GATED_METRICS:
            value = overall.get(name)
            self.stdout.write(f"  {name:24} {'-' if value is None else f'{value:.3f}'}")
        if metrics["unknown_example"] or metrics["untagged_example"]:
            self.stdout.write(
                self.style.WARNING(
                    f"  {metrics['unknown_example']} trace(s) named an unknown example, "
                    f"{metrics['untagged_example']} had no evalsite.example_key"
                )
            )
