import json
import re

from django.urls import reverse

from golden.models import EvalRun, EvalTrial
from golden.selectors import dataset_health
from golden.services import dataset_version_create
from tests.golden.builders import example


def _chart_data(body: str) -> dict:
    match = re.search(
        r'<script id="golden-health-data" type="application/json">(.*?)</script>', body, re.S
    )
    return json.loads(match.group(1))


def test_size_is_judged_against_the_guidance(curator):
    for n in range(49):
        example(task=f"Cancel order A{n}")
    assert dataset_health(curator)["guidance"]["level"] == "bad"
    example(task="Cancel order A49")
    assert dataset_health(curator)["guidance"]["level"] == "warn"
    for n in range(100):
        example(task=f"Book flight {n}", task_type="flight_booking")
    assert dataset_health(curator)["guidance"]["level"] == "good"


def test_never_run_and_always_passing_come_from_eval_trials(curator):
    # given three examples in a version, two of them run twice
    passing = example(task="Cancel order A1")
    flaky = example(task="Cancel order A2")
    idle = example(task="Cancel order A3")
    version = dataset_version_create(name="v1", user=curator)
    run = EvalRun.objects.create(name="nightly", agent_version="1.2.0", dataset_version=version)
    entries = {e.example_id: e for e in version.entries.all()}
    for index in range(2):
        EvalTrial.objects.create(
            eval_run=run, entry=entries[passing.pk], trial_index=index, passed=True
        )
        EvalTrial.objects.create(
            eval_run=run, entry=entries[flaky.pk], trial_index=index, passed=index == 0
        )
    # when health is read
    health = dataset_health(curator)
    # then
    assert [row["pk"] for row in health["never_run"]] == [idle.pk]
    assert [row["pk"] for row in health["always_passing"]] == [passing.pk]


def test_the_page_embeds_chart_data_and_loads_local_plotly(client, curator):
    example(task="Cancel order A1", failure_tags=["wrong_order"])
    example(
        task="Book flight",
        task_type="flight_booking",
        adversarial_kind="tool_timeout",
        held_out=True,
    )
    client.force_login(curator)
    body = client.get(reverse("golden:health")).content.decode()
    assert "/static/vendor/plotly.min.js" in body and "/static/js/golden_health.js" in body
    data = _chart_data(body)
    assert data["task_types"] == [
        {"task_type": "flight_booking", "open": 0, "held_out": 1},
        {"task_type": "order_cancellation", "open": 1, "held_out": 0},
    ]
    assert {"mode": "adversarial: tool_timeout", "count": 1} in data["failure_modes"]
    assert {"mode": "wrong_order", "count": 1} in data["failure_modes"]


def test_the_health_page_query_count_is_flat(client, curator, django_assert_max_num_queries):
    client.force_login(curator)
    example(task="Cancel order A1")
    client.get(reverse("golden:health"))
    with django_assert_max_num_queries(12) as few:
        client.get(reverse("golden:health"))
    for n in range(30):
        example(task=f"Book flight {n}", task_type=f"type{n % 4}", failure_tags=["x"])
    with django_assert_max_num_queries(len(few.captured_queries)):
        client.get(reverse("golden:health"))
