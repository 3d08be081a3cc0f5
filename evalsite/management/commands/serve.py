import os
import signal
import subprocess
import sys
import threading
import time

from celery.beat import EmbeddedService
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from evalsite.celery import app as celery_app


class Command(BaseCommand):
    help = (
        "Run the web server (with the periodic schedule) and a Celery worker together, and the "
        "simulated judge when no ANTHROPIC_API_KEY is set. Ctrl-C stops them all."
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
                    "--pool",
                    "threads",
                    "--concurrency",
                    str(concurrency),
                    "--loglevel",
                    "INFO",
                ],
            )
        )
        processes = [(name, subprocess.Popen(cmd)) for name, cmd in commands]
        # The schedule runs as a thread here, and this process serves the web itself: two
        # fewer Python processes (a beat process forked from the worker, a parent that waited).
        beat = EmbeddedService(
            celery_app,
            thread=True,
            schedule_filename=str(settings.VAR_DIR / "celerybeat-schedule"),
        )
        beat.start()
        # SIGTERM stops like Ctrl-C: runserver returns and the children are stopped below.
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        stopping = threading.Event()
        watcher = threading.Thread(
            target=_stop_when_one_exits, args=(processes, stopping), daemon=True
        )
        watcher.start()
        mode = "simulated judge" if settings.JUDGE_SIMULATED else f"judge {settings.JUDGE_MODEL}"
        self.stdout.write(f"evalsite is running at http://{addr}/ ({mode}). Ctrl-C stops it.")
        try:
            call_command("runserver", addr, use_reloader=False)
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            # A second Ctrl-C (a terminal signals every child too) must not cut the cleanup.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            stopping.set()
            beat.stop()
            for _, process in processes:
                if process.poll() is None:
                    process.terminate()
            for _, process in processes:
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
        self.stdout.write("Stopped.")


def _stop_when_one_exits(processes, stopping: threading.Event) -> None:
    """A child that dies stops everything, as Ctrl-C would (not while stopping already)."""
    while not stopping.is_set():
        for name, process in processes:
            if process.poll() is not None and not stopping.is_set():
                sys.stderr.write(f"{name} exited ({process.returncode}); stopping.\n")
                os.kill(os.getpid(), signal.SIGINT)
                return
        time.sleep(0.5)
