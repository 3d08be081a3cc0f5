import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand


def _behind_the_web() -> None:
    # The three start at once on a few cores: the page answers first, the worker catches up.
    os.nice(5)


class Command(BaseCommand):
    help = (
        "Run the web server and a Celery worker together (and the simulated judge when no "
        "ANTHROPIC_API_KEY is set). Ctrl-C stops them all."
    )

    def add_arguments(self, parser):
        parser.add_argument("--addr", default="127.0.0.1:8000")
        parser.add_argument(
            "--concurrency",
            type=int,
            default=16,
            help="Judge calls a worker makes at once (thread pool).",
        )

    def handle(self, *args, addr, concurrency, **options):
        python = sys.executable
        commands = []
        if settings.JUDGE_SIMULATED:
            commands.append(
                (
                    "simulated judge",
                    [
                        python,
                        "-m",
                        "judges.simulator",
                        "--port",
                        str(settings.SIMULATED_JUDGE_PORT),
                    ],
                )
            )
        commands.append(
            (
                "worker",
                [
                    python,
                    "-m",
                    "celery",
                    "-A",
                    "evalsite",
                    "worker",
                    "--beat",
                    "--schedule",
                    str(settings.VAR_DIR / "celerybeat-schedule"),
                    "--pool",
                    "threads",
                    "--concurrency",
                    str(concurrency),
                    "--loglevel",
                    "INFO",
                ],
            )
        )
        # `make run` has just migrated, and migrate ran the system checks.
        web = [python, "manage.py", "runserver", addr, "--noreload", "--skip-checks"]
        processes = [("web", subprocess.Popen(web))]
        processes += [
            (name, subprocess.Popen(cmd, preexec_fn=_behind_the_web)) for name, cmd in commands
        ]
        stopping = False

        def stop(signum=None, frame=None):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        mode = "simulated judge" if settings.JUDGE_SIMULATED else f"judge {settings.JUDGE_MODEL}"
        self.stdout.write(f"evalsite is running at http://{addr}/ ({mode}). Ctrl-C stops it.")
        try:
            while not stopping:
                for name, process in processes:
                    if process.poll() is not None:
                        self.stderr.write(f"{name} exited ({process.returncode}); stopping.")
                        stopping = True
                time.sleep(0.5)
        finally:
            for _, process in processes:
                if process.poll() is None:
                    process.terminate()
            for _, process in processes:
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
        self.stdout.write("Stopped.")
