"""A completed trace reaches the topics through traces' hand-off (trace_completed): placed when
its project has topics, and without loading the topics' libraries when it has none."""

import random
import sys

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from insights.models import TraceTopic
from insights.topics import topics_build
from tests.factories import TraceFactory
from tests.insights.topic_world import cancel_without_lookup, topic_world
from traces.models import Trace
from traces.signals import trace_completed

pytestmark = pytest.mark.django_db


def test_a_completed_trace_of_a_project_with_topics_is_placed_on_arrival():
    project, _ = topic_world()
    topics_build(project)
    late = cancel_without_lookup(project, random.Random(7), timezone.now())

    trace_completed.send(sender=Trace, trace=late)

    assert TraceTopic.objects.get(trace=late).on_arrival is True


def test_an_arrival_looks_up_its_projects_newest_build_once():
    project, _ = topic_world()
    topics_build(project)
    rng, now = random.Random(7), timezone.now()
    trace_completed.send(sender=Trace, trace=cancel_without_lookup(project, rng, now))
    late = cancel_without_lookup(project, rng, now)

    with CaptureQueriesContext(connection) as queries:
        trace_completed.send(sender=Trace, trace=late)

    build_reads = [q for q in queries if 'FROM "insights_topicbuild"' in q["sql"]]
    assert len(build_reads) == 1
    assert TraceTopic.objects.get(trace=late).on_arrival is True


def test_a_completed_trace_of_a_project_without_topics_loads_no_topics_code(monkeypatch):
    # As in a fresh web process: the topics module (scikit-learn and SciPy) not loaded yet.
    monkeypatch.delitem(sys.modules, "insights.topics")
    trace = TraceFactory()

    trace_completed.send(sender=Trace, trace=trace)

    assert "insights.topics" not in sys.modules
    assert not TraceTopic.objects.filter(trace=trace).exists()
