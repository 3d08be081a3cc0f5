"""What a web process loads: the site's code, not the libraries that only some requests or the
workers need. Each of these costs every gunicorn worker tens of MiB and its start up to two
seconds: the `anthropic` SDK (about 70 MiB), the MCP SDK (55), NumPy with SciPy's optimizer
(90), the `openai` SDK and the topics' scikit-learn. Checked in a fresh interpreter after the
WSGI application is made, every URL's view is loaded, as the first request does, and the task
modules are imported, as starting a judge run does to publish its passes."""

from tests.fresh_python import python_report

HEAVY = ("anthropic", "openai", "mcp", "numpy", "scipy", "sklearn")

WEB_START = """
import json, sys
from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

application = get_wsgi_application()

def views(patterns):
    for pattern in patterns:
        if hasattr(pattern, "url_patterns"):
            yield from views(pattern.url_patterns)
        else:
            yield pattern.callback

loaded = sum(1 for _ in views(get_resolver().url_patterns))
# What starting a judge run or a topics build imports to publish its tasks.
import judges.tasks, insights.tasks, reviews.tasks, webhooks.tasks
heavy = sys.argv[1:]
print(json.dumps({"views": loaded, "heavy": sorted(m for m in heavy if m in sys.modules)}))
"""

CALLS_PAIRED = """
import json, sys
import django
django.setup()
from evalsite_checks.matchers import assignment_pairs

pairs = assignment_pairs([0, 1], [0, 1], lambda r, a: 1.0 if r == a else 0.0)
print(json.dumps({"pairs": [list(p) for p in pairs], "scipy": "scipy" in sys.modules}))
"""


def test_a_web_process_serving_every_url_and_publishing_tasks_loads_no_provider_sdk_or_scipy():
    report = python_report(WEB_START, *HEAVY)

    assert report["views"] > 300
    assert report["heavy"] == []


def test_the_optimizer_loads_when_calls_are_first_paired():
    report = python_report(CALLS_PAIRED)

    assert report == {"pairs": [[0, 0], [1, 1]], "scipy": True}
