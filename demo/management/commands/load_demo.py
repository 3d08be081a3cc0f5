from django.core.management.base import BaseCommand

from demo.loader import demo_load


class Command(BaseCommand):
    help = "Create the demo logins, traces and first judge run. Running it again changes nothing."

    def handle(self, *args, **options):
        result = demo_load()
        self.stdout.write(f"Demo traces added: {result['traces_added']}.")
        for run in result["runs"]:
            self.stdout.write(
                f"Judge run {run.pk} ({run.rubric_version}) queued for the demo traces."
            )
        self.stdout.write(f"Golden dataset version: {result['dataset'].name}.")
        if len(result["eval_runs"]) == 2:
            base, cand = sorted(result["eval_runs"], key=lambda run: run.pk)
            self.stdout.write(
                f"Eval runs {base.name} and {cand.name}: compare them at "
                f"/golden/evals/compare/?baseline={base.pk}&candidate={cand.pk}"
            )
        self.stdout.write(f"Log in as one of (password for all: {result['password']}):")
        for username, role in result["logins"]:
            self.stdout.write(f"  {username:8} {role}")
