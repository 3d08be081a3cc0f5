"""Topic names from the judge model (the simulated judge through the real SDK), and topics
grouped by embeddings from an OpenAI-compatible server (a local fake through the `openai`
SDK), each falling back when its provider fails."""

import math
import random

import pytest
from django.utils import timezone

from bench.fake_embeddings import FakeEmbeddings
from demo.simulator import topic_names as simulated_names
from insights.models import Topic, TopicBuild, TraceTopic
from insights.topic_names import NAME_MARKER, NAME_MAX_CHARS, name_from_reply
from insights.topics import topics_build, trace_topic_arrive, trace_topic_assign
from tests.insights.topic_world import cancel_without_lookup, topic_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def judge(simulator, settings):
    settings.JUDGE_TIMEOUT_SECONDS = 5.0
    settings.TOPICS_NAMES_FROM_JUDGE = True
    return simulator


@pytest.fixture
def embeddings(settings):
    fake = FakeEmbeddings.start()
    settings.TOPICS_EMBEDDING_MODEL = "text-embedding-3-small"
    settings.TOPICS_EMBEDDING_BASE_URL = fake.base_url
    settings.TOPICS_EMBEDDING_BATCH = 10
    yield fake
    fake.stop()


def _topic_of(trace) -> Topic:
    return TraceTopic.objects.select_related("topic").get(trace=trace).topic


def test_the_judge_names_each_new_topic_once_and_a_rebuild_asks_again_only_for_changes(judge):
    project, traces = topic_world()

    first = topics_build(project)

    topics = list(first.topics.all())
    assert first.names_asked == len(topics) == judge.request_count
    assert {topic.name_source for topic in topics} == {"judge"}
    # The simulated judge names the group from the terms it was given.
    planted = _topic_of(traces["planted"][0])
    assert planted.name.startswith("Cancel order, red flag: ")
    assert planted.name != ", ".join(planted.terms[:3])

    second = topics_build(project)

    assert second.names_asked == 0
    assert judge.request_count == len(topics)
    assert sorted(second.topics.values_list("name", flat=True)) == sorted(t.name for t in topics)
    assert set(second.topics.values_list("name_source", flat=True)) == {"judge"}


def test_without_a_judge_to_ask_topics_keep_their_top_terms_and_the_build_says_why(settings):
    settings.TOPICS_NAMES_FROM_JUDGE = True
    settings.JUDGE_TIMEOUT_SECONDS = 2.0
    settings.ANTHROPIC_BASE_URL = "http://127.0.0.1:9"  # nothing listens there
    project, _ = topic_world()

    build = topics_build(project)

    assert build.names_asked == 0
    assert build.naming_note.startswith("the judge could not be asked: APIConnectionError")
    assert set(build.topics.values_list("name_source", flat=True)) == {"terms"}
    assert all(", " in name for name in build.topics.values_list("name", flat=True))


def test_a_judge_reply_becomes_a_short_plain_name():
    long_reply = '{"name": "' + "cancel " * 40 + '"}'
    assert len(name_from_reply(long_reply)) == NAME_MAX_CHARS
    assert name_from_reply('Sure! {"name": "Refunds\\n\\u0000 without lookup"}') == (
        "Refunds without lookup"
    )
    assert name_from_reply("Orders cancelled blind.\nBecause...") == "Orders cancelled blind"
    # HTML stays text here; every page escapes it.
    assert name_from_reply('{"name": "<img src=x onerror=alert(1)>"}') == (
        "<img src=x onerror=alert(1)>"
    )


def test_the_simulator_answers_the_prompt_the_build_sends():
    assert simulated_names.NAME_MARKER == NAME_MARKER


def test_a_judge_name_is_escaped_on_the_page_and_the_page_says_who_named(client, annotator):
    project, _ = topic_world()
    build = topics_build(project)
    topic = build.topics.order_by("number").first()
    Topic.objects.filter(pk=topic.pk).update(
        name="<img src=x onerror=alert(1)>", name_source="judge"
    )
    client.force_login(annotator)

    html = client.get("/insights/topics/", {"project": project.slug}).content.decode()

    assert "<img src=x onerror=alert(1)>" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert 'data-name-source="judge"' in html
    assert "1 of " in html and "names are the simulated judge" in html


def test_embeddings_group_the_traces_in_batches_and_the_planted_failure_stands_alone(
    embeddings,
):
    project, traces = topic_world()
    total = sum(len(kind) for kind in traces.values())

    build = topics_build(project)

    assert (build.method, build.embedding_model) == ("embeddings-kmeans", "text-embedding-3-small")
    assert build.representation_note == ""
    assert embeddings.texts == total
    assert embeddings.requests == math.ceil(total / 10)
    assert max(embeddings.batch_sizes) == 10
    planted = {_topic_of(trace).pk for trace in traces["planted"]}
    assert len(planted) == 1
    topic = Topic.objects.get(pk=planted.pop())
    assert topic.size == len(traces["planted"])
    assert len(topic.embedding_centroid) == 256
    # Its terms are still TF-IDF's, for its name and the page.
    assert "first:cancel_order" in topic.terms


def test_an_arrival_of_an_embeddings_build_is_placed_by_its_embedding_in_a_task(
    embeddings, django_capture_on_commit_callbacks
):
    project, traces = topic_world()
    topics_build(project)
    planted = _topic_of(traces["planted"][0])
    late = cancel_without_lookup(project, random.Random(5), timezone.now())
    asked = embeddings.texts

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert trace_topic_arrive(late) is None  # not on the caller's path
    assert len(callbacks) == 1
    assert embeddings.texts == asked

    membership = trace_topic_assign(late)

    assert embeddings.texts == asked + 1
    assert membership.topic_id == planted.pk


def test_failing_embeddings_fall_back_to_tfidf_and_are_recorded(embeddings):
    project, traces = topic_world()
    embeddings.fail_status = 500

    build = topics_build(project)

    assert (build.method, build.embedding_model) == ("tfidf-kmeans", "")
    assert "InternalServerError" in build.representation_note
    assert "grouped by TF-IDF" in build.representation_note
    planted = {_topic_of(trace).pk for trace in traces["planted"]}
    assert len(planted) == 1


def test_an_arrival_whose_embedding_fails_is_placed_by_its_terms_and_counted(embeddings):
    project, traces = topic_world()
    build = topics_build(project)
    planted = _topic_of(traces["planted"][0])
    embeddings.fail_status = 503

    membership = trace_topic_assign(
        cancel_without_lookup(project, random.Random(6), timezone.now())
    )

    assert membership.topic_id == planted.pk
    assert TopicBuild.objects.get(pk=build.pk).arrivals_fallback == 1


def test_the_judging_health_page_lists_what_failed_in_the_newest_topic_build(
    client, annotator, embeddings
):
    project, _ = topic_world()
    embeddings.fail_status = 500
    topics_build(project)
    client.force_login(annotator)

    html = client.get("/insights/judging/").content.decode()

    assert 'id="topic-builds-health"' in html
    assert "grouped by TF-IDF" in html
    assert "top terms: naming by the judge is off" in html
