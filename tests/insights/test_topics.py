"""Topics: traces grouped by what they are about and how they went, placed on arrival, and
what a person does with a group."""

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from insights.models import Topic, TopicBuild, TraceTopic
from insights.tasks import topics_build_missing_task
from insights.topics import topics_build, trace_topic_assign
from tests.factories import ProjectFactory, UserFactory
from tests.insights.topic_world import cancel_ok, cancel_without_lookup, topic_world
from webhooks.models import Webhook, WebhookDelivery

pytestmark = pytest.mark.django_db


def _topic_of(trace) -> Topic:
    return TraceTopic.objects.select_related("topic").get(trace=trace).topic


def test_the_planted_failure_forms_its_own_topic_with_a_rule_draft():
    project, traces = topic_world()

    build = topics_build(project)

    planted = {_topic_of(trace).pk for trace in traces["planted"]}
    assert len(planted) == 1
    topic = Topic.objects.get(pk=planted.pop())
    # Nothing else is in it: the careful cancellations went elsewhere.
    assert topic.size == len(traces["planted"])
    assert topic.failure_count == topic.size
    assert all(_topic_of(t) != topic for t in traces["cancel_ok"])
    assert topic.rule_draft["rule"] == {
        "rule": "called_before",
        "tool": "cancel_order",
        "prerequisite": "get_recent_orders",
    }
    assert (topic.rule_draft["fires_in_topic"], topic.rule_draft["fires_elsewhere"]) == (1.0, 0.0)
    # Every planted failure came in the last days of the window: the later half holds them all.
    assert (topic.earlier_count, topic.later_count) == (0, topic.size)
    assert topic.failure_share > build.failure_share
    assert set(topic.example_trace_ids) <= {t.pk for t in traces["planted"]}


def test_the_same_traces_give_the_same_topics():
    project, traces = topic_world()

    first = topics_build(project)
    groups_first = {t.pk: _topic_of(t).number for kind in traces.values() for t in kind}
    names_first = list(first.topics.order_by("number").values_list("name", "size"))
    second = topics_build(project)
    groups_second = {t.pk: _topic_of(t).number for kind in traces.values() for t in kind}

    assert groups_first == groups_second
    assert list(second.topics.order_by("number").values_list("name", "size")) == names_first
    # Only the build before the newest is kept beside it.
    third = topics_build(project)
    assert set(TopicBuild.objects.filter(project=project).values_list("pk", flat=True)) == {
        second.pk,
        third.pk,
    }


def test_too_few_traces_make_no_build():
    project, _ = topic_world(per_kind=1, failures=1)

    assert topics_build(project) is None
    assert not TopicBuild.objects.exists()


def test_traces_outside_the_window_are_left_out(settings):
    settings.TOPICS_WINDOW_DAYS = 7
    project, traces = topic_world()

    build = topics_build(project)

    old = [t for kind in traces.values() for t in kind if t.started_at < build.window_start]
    assert old
    assert not TraceTopic.objects.filter(trace__in=old).exists()
    assert build.trace_count == sum(len(kind) for kind in traces.values()) - len(old)


def test_a_settled_trace_joins_the_nearest_topic_without_a_rebuild():
    project, traces = topic_world()
    topics_build(project)
    planted_topic = _topic_of(traces["planted"][0])
    careful_topics = {_topic_of(trace).pk for trace in traces["cancel_ok"]}
    rng = random.Random(99)
    now = timezone.now()

    late_failure = cancel_without_lookup(project, rng, now)
    late_careful = cancel_ok(project, rng, now)
    assigned = [trace_topic_assign(late_failure), trace_topic_assign(late_careful)]

    assert assigned[0].topic_id == planted_topic.pk
    # The careful cancellation joins a topic of careful cancellations (retried or not).
    assert assigned[1].topic_id in careful_topics
    assert [a.on_arrival for a in assigned] == [True, True]
    planted_topic.refresh_from_db()
    assert (planted_topic.arrived_count, planted_topic.arrived_failures) == (1, 1)
    # Placing the same trace again changes nothing.
    trace_topic_assign(late_failure)
    planted_topic.refresh_from_db()
    assert planted_topic.arrived_count == 1
    assert TopicBuild.objects.count() == 1


def test_projects_without_topics_are_built_first_and_only_once():
    project, _ = topic_world()
    small, _ = topic_world(per_kind=1, failures=1, project=ProjectFactory(slug="small"))

    assert topics_build_missing_task() == 1
    assert topics_build_missing_task() == 0  # it has topics now: the periodic build's turn
    assert list(TopicBuild.objects.values_list("project", flat=True)) == [project.pk]


def test_a_trace_of_a_project_without_topics_is_left_alone():
    project, traces = topic_world(per_kind=1, failures=1)

    assert trace_topic_assign(traces["planted"][0]) is None


def test_a_new_topic_that_fails_more_than_usual_raises_a_webhook_event(
    django_capture_on_commit_callbacks,
):
    hook = Webhook.objects.create(url="https://hooks.example.com/t", events=["topic.emerged"])
    project, _ = topic_world(failures=0)
    with django_capture_on_commit_callbacks(execute=True):
        topics_build(project)
    # The first build is the baseline: nothing in it is new.
    assert not WebhookDelivery.objects.exists()
    rng = random.Random(5)
    for hours in range(6):
        cancel_without_lookup(project, rng, timezone.now() - timedelta(hours=hours))

    with django_capture_on_commit_callbacks(execute=True):
        build = topics_build(project)

    [delivery] = WebhookDelivery.objects.filter(webhook=hook)
    data = delivery.payload["data"]
    new = build.topics.get(is_new=True)
    assert (data["topic"], data["size"], data["failure_share"]) == (new.pk, 6, 1.0)
    assert data["rule_draft"] == "cancel_order called before get_recent_orders"


def test_a_user_without_a_role_cannot_see_topics(client):
    client.force_login(UserFactory(username="nobody"))

    assert client.get("/insights/topics/").status_code == 403
