import os
import signal
import socket
import subprocess
import sys
import threading
import time

from celery.beat import EmbeddedService
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from evalsite.celery import app as celery_app
from evalsite.celery import worker_command


def _behind_the_web() -> None:
    # They start while the web server does, on few cores: the page answers first.
    os.nice(5)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _watch(processes, stopping: threading.Event, died: list[str]) -> None:
    """Stop everything when the worker or the simulator exits on its own: serving pages
    without a worker would queue judging that never runs."""
    while not stopping.wait(0.5):
        for name, process in processes:
            if process.poll() is not None and not stopping.is_set():
                code = process.returncode
                how = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
                died.append(f"the {name} stopped on its own ({how})")
                # SIGTERM, whose handler this command sets: it works even where SIGINT is
                # ignored, as in a shell's background job.
                os.kill(os.getpid(), signal.SIGTERM)
                return


# How long the demo agent waits for the web server to listen before it gives up.
DEMO_AGENT_WAIT_SECONDS = 120


def _listening(host: str, port: int, stopping: threading.Event) -> bool:
    deadline = time.monotonic() + DEMO_AGENT_WAIT_SECONDS
    while time.monotonic() < deadline and not stopping.is_set():
        try:
            with socket.create_connection((host, port), timeout=1):
                return True
        except OSError:
            stopping.wait(0.2)
    return False


def _demo_agent(addr: str, stopping: threading.Event, stdout) -> None:
    """Run the demo agent against this very server once it listens: its tool worlds are served
    here, so the demo's tool-world runs are there a few seconds after the first page."""
    from django.db import connections

    host, _, port = addr.rpartition(":")
    host = "127.0.0.1" if host in ("", "0.0.0.0", "[::]") else host  # noqa: S104
    url = f"http://{host}:{port}"
    # The simulated judge says whether the agent behaved as each fault variant expects.
    judge = [("127.0.0.1", settings.SIMULATED_JUDGE_PORT)] if settings.JUDGE_SIMULATED else []
    try:
        if all(_listening(*where, stopping) for where in [(host.strip("[]"), int(port)), *judge]):
            call_command("demo_agent", url=url, stdout=stdout)
    except Exception as exc:  # noqa: BLE001 - the server keeps serving; the line says how to retry
        stdout.write(
            f"The demo agent stopped: {exc!r}. `python manage.py demo_agent --url {url}` "
            "runs it again while the server runs."
        )
    finally:
        connections.close_all()


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
        parser.add_argument(
            "--demo",
            action="store_true",
            help="Migrate and load the demo before starting.",
        )

    def handle(self, *args, addr, concurrency, demo=False, **options):
        python = sys.executable
        commands = []
        if settings.JUDGE_SIMULATED:
            commands.append(
                (
                    "simulated judge",
                    [
                        python,
                        "-m",
                        "demo.simulator",
                        "--port",
                        str(settings.SIMULATED_JUDGE_PORT),
                    ],
                )
            )
        commands.append(("worker", worker_command("threads", concurrency)))
        if demo:
            # First, in this process: it compiles the byte code the worker and the simulator
            # then find ready (on a fresh install, starting them alongside compiled it thrice).
            self.stdout.write("Migrating the database and loading the demo...")
            call_command("migrate", interactive=False, verbosity=0)
            call_command("load_demo", stdout=self.stdout)
        # The other two start niced, the web server in this very process: Django is set up
        # already, so the page answers without a second start-up competing with theirs.
        processes = [
            (name, subprocess.Popen(cmd, preexec_fn=_behind_the_web)) for name, cmd in commands
        ]
        # The periodic schedule runs as a thread here, not as a beat process forked from the
        # worker: one Python process fewer.
        beat = EmbeddedService(
            celery_app,
            thread=True,
            schedule_filename=str(settings.VAR_DIR / "celerybeat-schedule"),
        )
        beat.start()
        stopping = threading.Event()
        died: list[str] = []
        watcher = threading.Thread(target=_watch, args=(processes, stopping, died))
        watcher.daemon = True
        # Set, not inherited: a process started with SIGINT ignored (nohup, a script's
        # background job) would otherwise never stop on Ctrl-C.
        signal.signal(signal.SIGINT, _interrupt)
        signal.signal(signal.SIGTERM, _interrupt)
        watcher.start()
        if demo:
            agent = threading.Thread(
                target=_demo_agent, args=(addr, stopping, self.stdout), name="demo-agent"
            )
            agent.daemon = True
            agent.start()
        mode = "simulated judge" if settings.JUDGE_SIMULATED else f"judge {settings.JUDGE_MODEL}"
        self.stdout.write(f"evalsite is running at http://{addr}/ ({mode}). Ctrl-C stops it.")
        try:
            # `make run` has just migrated, and migrate ran the system checks.
            call_command("runserver", addr, use_reloader=False, skip_checks=True)
        except (KeyboardInterrupt, SystemExit):  # runserver exits on the interrupt itself
            pass
        finally:
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
        if died:
            raise CommandError(
                f"Stopped everything: {died[0]}. Its output is above; start again with "
                "`make run` once the cause is fixed."
            )
        self.stdout.write("Stopped.")
