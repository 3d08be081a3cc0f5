"""What a judge worker loads at start: the tasks and judging's code with the default provider's
`anthropic` SDK (so no pass waits for its import), not the topics' scikit-learn
and SciPy (about 120 MiB), nor every view through Django's system checks (about 35 MiB), nor the
`openai` SDK (about 13 MiB) until a config speaks its API, nor the REST framework's views and
drf-spectacular's schema machinery with Django's test client under it (about 12 MiB). Checked
in a fresh interpreter, as `celery -A evalsite worker` starts one."""

from tests.fresh_python import python_report

WORKER_START = """
import json, sys
import django
django.setup()
from evalsite.celery import app
app.loader.import_default_modules()
import judges.tasks, insights.tasks
from celery import signals
before_init = "anthropic" in sys.modules
worker = type("Worker", (), {"app": app})()
signals.worker_init.send(sender=worker)  # as the worker sends it next
print(json.dumps({
    "before_init": before_init,
    "modules": sorted(
        m
        for m in (
            "sklearn", "scipy", "mcp", "openai", "django.test", "rest_framework.views",
            "judges.execution", "anthropic",
        )
        if m in sys.modules
    ),
    "skip_checks": __import__("os").environ.get("CELERY_SKIP_CHECKS"),
    "tasks": sorted(t for t in app.tasks if t.startswith(("judges.", "insights.tasks.topics"))),
}))
"""


def test_a_worker_starts_without_topics_libraries_or_system_checks():
    report = python_report(WORKER_START)

    # The default provider's SDK loads as the worker starts, not inside the first pass, and
    # not with the task modules, which a web process imports to publish passes.
    assert report["modules"] == ["anthropic", "judges.execution"]
    assert report["before_init"] is False
    assert report["skip_checks"] == "1"
    # The topics tasks are still registered; they import the topics code when they run.
    assert "insights.tasks.topics_build_task" in report["tasks"]
    assert "judges.tasks.judge_passes_task" in report["tasks"]


JUDGE_CALL = """
import json, sys
import django
django.setup()
from django.conf import settings
from evalsite.celery import app
app.loader.import_default_modules()
import judges.tasks
from judges.models import JudgeConfig
from judges.prompts import RenderedPrompt
from judges.providers import provider_call, request_params
from judges.providers.errors import ProviderError

# A closed port: the call fails at once, through the whole call path and its error sorting.
settings.ANTHROPIC_BASE_URL = settings.OPENAI_BASE_URL = "http://127.0.0.1:9"
config = JudgeConfig(name="judge", provider=sys.argv[1], model="m", max_tokens=5)
prompt = RenderedPrompt(system="s", user="u", truncated=False)
try:
    provider_call(config, request_params(prompt, config))
    raised = ""
except ProviderError as exc:
    raised = type(exc).__name__ + " " + exc.kind
print(json.dumps({"raised": raised, "openai": "openai" in sys.modules}))
"""


def test_a_worker_judging_with_anthropic_never_loads_the_openai_sdk():
    report = python_report(JUDGE_CALL, "anthropic")

    assert report == {"raised": "ProviderTransientError APIConnectionError", "openai": False}


def test_a_config_on_an_openai_compatible_server_loads_it_when_it_calls():
    report = python_report(JUDGE_CALL, "openai")

    assert report == {"raised": "ProviderTransientError APIConnectionError", "openai": True}
