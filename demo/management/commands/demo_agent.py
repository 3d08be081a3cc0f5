import urllib.error
import urllib.request

from django.core.management.base import BaseCommand, CommandError

from demo.world_runs import demo_world_gate_lines, demo_world_runs, demo_world_runs_ensure


def _listening(url: str) -> str | None:
    """None when the evalsite at `url` answers, else why not."""
    try:
        with urllib.request.urlopen(f"{url.rstrip('/')}/login/", timeout=10):  # noqa: S310
            return None
    except (urllib.error.URLError, OSError) as exc:
        return str(getattr(exc, "reason", exc))


class Command(BaseCommand):
    help = (
        "Run the demo's scripted support agent (1.4.0, then 1.5.0) over MCP against the tool "
        "world of the demo's cancel example, served by the evalsite at --url; score both runs "
        "and print the gate's report. Once: later calls print the stored runs' report."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--url", default="http://127.0.0.1:8000", help="The running evalsite (its root URL)."
        )

    def handle(self, *args, url, **options):
        if not demo_world_runs():
            problem = _listening(url)
            if problem:
                raise CommandError(
                    f"The demo agent could not reach {url} ({problem}): start it with "
                    "`manage.py serve` and give its address with --url."
                )
            self.stdout.write(f"Demo agent: running its tool-world trials over MCP at {url} ...")
        baseline, candidate = demo_world_runs_ensure(url)
        self.stdout.write(
            f"Demo agent: eval runs {baseline.name} ({baseline.agent_version}) and "
            f"{candidate.name} ({candidate.agent_version}); compare them at "
            f"{url.rstrip('/')}/golden/evals/compare/?baseline={baseline.pk}"
            f"&candidate={candidate.pk}"
        )
        for line in demo_world_gate_lines(baseline, candidate):
            self.stdout.write(line)
