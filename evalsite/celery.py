import gc
import os
import sys

from celery import Celery
from celery.signals import worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
# Celery runs Django's system checks when a worker starts, and the URL checks import every
# view (the API schema, the MCP server): about 35 MiB a worker never uses. `manage.py check`
# runs them at deploy.
os.environ.setdefault("CELERY_SKIP_CHECKS", "1")

app = Celery("evalsite")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def worker_command(pool: str, concurrency: int, *options: str) -> list[str]:
    """The command line of a worker of this app in a process of its own: `serve` starts one,
    the integration suite starts its own with more options."""
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "evalsite",
        "worker",
        "--pool",
        pool,
        "--concurrency",
        str(concurrency),
        "--loglevel",
        "INFO",
        *options,
    ]


@worker_ready.connect(weak=False, dispatch_uid="evalsite.worker_gc")
def worker_collects_less(**kwargs):
    """As gunicorn.conf.py does for the web workers: a judge pass allocates many short-lived
    rows and SDK objects, and with the application loaded and frozen out of collection a full
    collection walks what tasks made, not all of Django; about a tenth of a worker's CPU."""
    gc.set_threshold(50_000, 20, 20)
    gc.freeze()
