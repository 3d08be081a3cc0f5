"""Judging health: the per-rule table, and the alert when a live rule judged nothing while
traces came."""

from datetime import timedelta

import pytest
from django.utils import timezone

from insights.judging_health import rule_health_rows, silent_rules_check
from insights.models import SilentRuleAlert
from judges.models import OnlineOutcome, OnlineRuleHour
from tests.factories import ProjectFactory, RubricFactory
from webhooks.models import Webhook, WebhookDelivery

pytestmark = pytest.mark.django_db


@pytest.fixture
def hook():
    return Webhook.objects.create(url="https://hooks.example.com/h", events=["judging.rule_silent"])


def _rule(rate=0.1, live=True, task_type=""):
    return RubricFactory(judge_new_traces=live, sample_rate=rate, task_type=task_type)


def _hours(rubric, project, counts: dict, hours_ago: int = 0):
    hour = (timezone.now() - timedelta(hours=hours_ago)).replace(minute=0, second=0, microsecond=0)
    for outcome, count in counts.items():
        OnlineRuleHour.objects.create(
            rubric=rubric, project=project, hour=hour, outcome=outcome, count=count
        )


def test_a_live_rule_that_judged_nothing_while_traces_came_raises_one_alert(
    hook, django_capture_on_commit_callbacks
):
    rubric, project = _rule(rate=0.1), ProjectFactory()
    # 40 traces at 10%: four expected, none judged, most not calibrated.
    _hours(rubric, project, {OnlineOutcome.NOT_CALIBRATED: 30, OnlineOutcome.NOT_SAMPLED: 10})

    with django_capture_on_commit_callbacks(execute=True):
        [alert] = silent_rules_check()
    with django_capture_on_commit_callbacks(execute=True):
        again = silent_rules_check()

    assert again == []  # raised once while it lasts
    assert (alert.decisions, alert.top_reason) == (40, OnlineOutcome.NOT_CALIBRATED)
    [delivery] = WebhookDelivery.objects.filter(webhook=hook)
    assert delivery.payload["data"]["rubric"] == rubric.name
    assert delivery.payload["data"]["top_reason"] == "not_calibrated"


def test_the_alert_clears_once_the_rule_judges_again(hook):
    rubric, project = _rule(rate=0.5), ProjectFactory()
    _hours(rubric, project, {OnlineOutcome.PROVIDER_FAILING: 12})
    silent_rules_check()

    _hours(rubric, project, {OnlineOutcome.JUDGED: 1}, hours_ago=0)
    silent_rules_check()

    alert = SilentRuleAlert.objects.get()
    assert alert.cleared_at is not None


@pytest.mark.parametrize(
    "counts, rate, live",
    [
        ({OnlineOutcome.JUDGED: 1, OnlineOutcome.NOT_SAMPLED: 99}, 0.01, True),  # it judges
        ({OnlineOutcome.NOT_SAMPLED: 20}, 0.1, True),  # two expected: not enough to tell
        ({OnlineOutcome.OTHER_TASK_TYPE: 500}, 1.0, True),  # no traffic of its type
        ({OnlineOutcome.NOTHING_TO_JUDGE: 500}, 1.0, True),  # no agent's work in the traces
        ({OnlineOutcome.NOT_CALIBRATED: 500}, 1.0, False),  # no longer live
    ],
)
def test_no_alert_when_silence_is_expected(hook, counts, rate, live):
    rubric, project = _rule(rate=rate, live=live), ProjectFactory()
    _hours(rubric, project, counts)

    assert silent_rules_check() == []
    assert not WebhookDelivery.objects.exists()


def test_decisions_older_than_the_silent_window_do_not_count(settings, hook):
    settings.JUDGING_SILENT_MINUTES = 60
    rubric, project = _rule(rate=1.0), ProjectFactory()
    _hours(rubric, project, {OnlineOutcome.NOT_CALIBRATED: 50}, hours_ago=3)

    assert silent_rules_check() == []


def test_the_table_counts_each_reason_and_the_traces_waiting_to_settle():
    rubric, project = _rule(rate=0.5), ProjectFactory()
    _hours(rubric, project, {OnlineOutcome.JUDGED: 3, OnlineOutcome.NOT_SAMPLED: 4})
    _hours(rubric, project, {OnlineOutcome.OVER_LIMIT: 2}, hours_ago=2)
    _hours(rubric, project, {OnlineOutcome.NOT_SAMPLED: 100}, hours_ago=30)  # outside 24 h
    _hours(rubric, project, {OnlineOutcome.NOT_SETTLED: 1})

    [row] = rule_health_rows(24)

    skipped = dict(zip(OnlineOutcome.values[1:], row["skipped"], strict=True))
    assert row["judged"] == 3
    assert skipped[OnlineOutcome.NOT_SAMPLED] == 4
    assert skipped[OnlineOutcome.OVER_LIMIT] == 2
    assert skipped[OnlineOutcome.NOT_SETTLED] == 1
    assert row["skipped_total"] == 7


def test_the_overview_and_the_health_page_show_the_alert(client, annotator):
    rubric, project = _rule(rate=1.0), ProjectFactory(name="<b>Shop</b>")
    _hours(rubric, project, {OnlineOutcome.PROVIDER_FAILING: 9})
    silent_rules_check()
    client.force_login(annotator)

    overview = client.get("/").content.decode()
    health = client.get("/insights/judging/").content.decode()

    for html in (overview, health):
        assert 'class="banner alert-silent"' in html
        assert "Provider failing" in html
        assert "&lt;b&gt;Shop&lt;/b&gt;" in html and "<b>Shop</b>" not in html
    assert 'id="judging-health"' in health
