"""A newcomer follows the README's first hour in Chromium, from a fresh database to the gate.

Fresh database, `load_demo`, log in as the curator, make a send-only token on the API tokens
page, send a trace with the README's exporter snippet exactly as printed (only the address
changed to this test's server), find it judged on its trace page, and open the gate comparison
of the demo's runs. The worker's part (settle sweep, judge passes) is done by calling the same
functions its tasks call; the judge is the simulator, over HTTP through the real SDK.
"""

import re
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.utils import timezone

from demo.simulator.server import start_simulator
from judges.execution import judgment_execute
from judges.models import Judgment, JudgmentStatus
from tests.built_in_rows import built_in_rubrics_seed
from traces.completion import trace_complete, traces_settled_ids
from traces.models import Trace

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

README = Path(__file__).resolve().parents[2] / "README.md"
NEWCOMER_TASK = "Which of my two open invoices is overdue, and by how many days?"
# The whole walk, server start to gate page, stays well under this on a loaded 2-core box.
BUDGET_SECONDS = 90


def readme_exporter_snippet() -> str:
    """The first Python block of the README that makes an OTLP exporter, as printed."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    return next(block for block in blocks if "OTLPSpanExporter(" in block)


@pytest.fixture
def fresh_demo(settings, tmp_path, transactional_db):
    settings.VAR_DIR = tmp_path
    settings.JUDGE_SIMULATED = True
    settings.JUDGE_ONLINE_BEFORE_CALIBRATION = True
    handle = start_simulator()
    settings.ANTHROPIC_BASE_URL = handle.base_url
    # An earlier transactional test's flush removes the seed rubrics the migrations made.
    built_in_rubrics_seed()
    call_command("load_demo", verbosity=0)
    yield (tmp_path / "demo-password").read_text().strip()
    handle.stop()


def _worker_catches_up() -> None:
    """What beat and the worker do: complete settled traces, then run every pending pass."""
    later = timezone.now() + timedelta(hours=1)
    for trace_id in traces_settled_ids(now=later):
        trace_complete(trace_id, now=later)
    for judgment_id in Judgment.objects.filter(status=JudgmentStatus.PENDING).values_list(
        "pk", flat=True
    ):
        judgment_execute(judgment_id)


def _send_with_readme_snippet(base_url: str, token: str) -> None:
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    snippet = readme_exporter_snippet().replace("http://127.0.0.1:8000", base_url)
    namespace = {"token": token}
    exec(snippet, namespace)  # noqa: S102 - the README's own example is what is under test
    provider = TracerProvider(resource=Resource.create({"service.name": "invoice-agent"}))
    provider.add_span_processor(SimpleSpanProcessor(namespace["exporter"]))
    tracer = provider.get_tracer("newcomer")
    with tracer.start_as_current_span("invoke_agent invoice-agent") as root:
        root.set_attribute("gen_ai.operation.name", "invoke_agent")
        root.set_attribute("agent.task", NEWCOMER_TASK)
        with tracer.start_as_current_span("execute_tool list_invoices") as tool:
            tool.set_attribute("gen_ai.operation.name", "execute_tool")
            tool.set_attribute("gen_ai.tool.name", "list_invoices")
            tool.set_attribute("gen_ai.tool.call.arguments", '{"status": "open"}')
            tool.set_attribute(
                "gen_ai.tool.call.result",
                '[{"id": "INV-7", "due": "2026-11-20"}, {"id": "INV-9", "due": "2026-12-20"}]',
            )
        root.set_attribute("agent.final_answer", "INV-7 is overdue by 13 days; INV-9 is not due.")
    provider.shutdown()


def test_a_newcomer_gets_a_trace_of_their_own_judged_and_sees_the_gate(new_page, fresh_demo):
    started = time.monotonic()
    page = new_page()
    page.set_viewport_size({"width": 1400, "height": 900})
    # Log in as the README says, with the printed password
    page.goto("/login/")
    page.fill("#id_username", "cora")
    page.fill("#id_password", fresh_demo)
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/login/" not in url)
    assert "simulated judge" in page.locator(".banner").inner_text()
    # A send-only token from the navigation's API tokens page, as the README advises
    page.click("header >> text=API tokens")
    page.fill("#token-name", "my agent")
    page.check("input[name=scope][value=send]")
    page.click("main button[type=submit]")
    token = page.locator("#new-token").inner_text().strip()
    # The README's exporter snippet sends the agent's trace
    _send_with_readme_snippet(page.url.split("/accounts/")[0], token)
    trace = Trace.objects.get(task=NEWCOMER_TASK)
    _worker_catches_up()
    # Found on the trace list, judged, with the judge version and its calibration said
    page.click("nav >> text=Traces")
    page.fill("input[name=q]", "overdue")
    page.keyboard.press("Enter")
    page.wait_for_load_state("networkidle")
    page.click(f"a[href='/traces/{trace.pk}/']")
    judged = page.locator("#trace-judge-versions").inner_text()
    assert "General trace judge v1" in judged and "online" in judged
    assert "not yet calibrated" in judged
    assert page.locator("#trace-judge").is_visible()
    assert page.locator("#trace-flag button").is_visible()
    # The gate comparison of the demo's runs, from the navigation, with the defaults as given
    page.click("nav >> text=Golden")
    page.click("text=Eval runs")
    page.click("form[action$='/evals/compare/'] button[type=submit]")
    gate = page.locator("#gate").inner_text()
    assert "Compare eval runs" in page.locator("h1").inner_text()
    assert "demo-candidate" in page.locator("main").inner_text()
    assert "block" in gate and "red_flag_rate" in gate
    assert page.console_errors == []
    assert time.monotonic() - started < BUDGET_SECONDS
