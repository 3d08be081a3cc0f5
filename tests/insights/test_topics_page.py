"""The topics page and its actions: open as a trace list, send a sample to review, add drafts
to the golden set; trace text on the page is escaped."""

import json
from html import unescape

import pytest

from golden.models import GoldenExample
from insights.models import TraceTopic
from insights.topic_actions import REVIEW_SAMPLE_SIZE
from insights.topics import placer, topics_build
from insights.topics_page import LABEL_LINE_CHARS, legend_name, plot_label_lines
from reviews.models import ReviewItem, ReviewReason
from tests.insights.topic_world import topic_world

pytestmark = pytest.mark.django_db
HOSTILE = '<script>alert("x")</script><a href="javascript:1">'


@pytest.fixture
def built():
    placer.forget()
    project, traces = topic_world(per_kind=12, failures=8)
    for planted in traces["planted"]:  # whichever are the examples, they carry it
        planted.task = f"{HOSTILE} {planted.task}"
        planted.save(update_fields=["task"])
    build = topics_build(project)
    topic = TraceTopic.objects.get(trace=traces["planted"][0]).topic
    return build, topic, traces


def _figures(html: str) -> dict:
    start = html.index('<script id="overview-figures" type="application/json">')
    return json.loads(html[start:].split(">", 1)[1].split("</script>", 1)[0])


def test_the_page_shows_every_topic_with_escaped_trace_text(client, annotator, built):
    build, topic, _ = built
    client.force_login(annotator)

    response = client.get("/insights/topics/", {"project": build.project.slug})

    html = response.content.decode()
    assert response.status_code == 200
    assert html.count('id="topic-') == build.topics.count()
    assert HOSTILE not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    assert "cancel_order called before get_recent_orders" in html
    assert f'href="/traces/?topic={topic.pk}"' in html
    figures = _figures(html)
    treemap = figures["topics_map"]["data"][0]
    root, *sizes = treemap["values"]
    assert sorted(sizes, reverse=True) == sizes
    assert root == sum(sizes) == build.trace_count
    assert all("<script>" not in label for label in treemap["labels"])
    assert sum(sum(bar["y"]) for bar in figures["topics_over_time"]["data"]) == build.trace_count
    assert all(len(bar["name"]) <= 40 for bar in figures["topics_over_time"]["data"])
    # Curators' actions are not offered to an annotator.
    assert 'value="golden_drafts"' not in html


def test_a_long_topic_name_is_a_treemap_label_of_short_escaped_lines():
    label = plot_label_lines(f"{HOSTILE} cancel_order called before get_recent_orders twice")

    lines = [unescape(line) for line in label.split("<br>")]
    assert len(lines) > 1
    assert all(len(line) <= LABEL_LINE_CHARS or " " not in line for line in lines)
    assert " ".join(lines) == f"{HOSTILE} cancel_order called before get_recent_orders twice"
    assert "<script>" not in label and "<a " not in label


def test_a_legend_name_is_cut_at_a_word_and_marked():
    assert legend_name("get_order, type customer_support, check_refund_policy") == (
        "get_order, type customer_support, …"
    )
    assert legend_name("a" * 50) == "a" * 39 + "…"
    assert legend_name("run_tests, read_file") == "run_tests, read_file"


def test_the_page_without_topics_says_how_they_come(client, annotator):
    client.force_login(annotator)

    response = client.get("/insights/topics/")

    assert response.status_code == 200
    assert 'id="topics-empty"' in response.content.decode()
    assert 'id="topics-project"' not in response.content.decode()  # no empty project picker


def test_open_as_trace_list_lists_the_topic_s_traces(client, annotator, built):
    _, topic, traces = built
    client.force_login(annotator)

    response = client.get("/traces/", {"topic": topic.pk, "per_page": 100})

    listed = {trace.pk for trace in response.context["page"]}
    assert listed == {trace.pk for trace in traces["planted"]}


def test_a_sample_goes_to_review_once(client, annotator, built):
    _, topic, _ = built
    client.force_login(annotator)

    client.post(f"/insights/topics/{topic.pk}/action/", {"action": "review_sample"})
    client.post(f"/insights/topics/{topic.pk}/action/", {"action": "review_sample"})

    items = ReviewItem.objects.filter(reason=ReviewReason.FLAGGED)
    assert items.count() == min(REVIEW_SAMPLE_SIZE, topic.size)
    assert {item.trace_id for item in items} <= set(
        topic.members.values_list("trace_id", flat=True)
    )
    assert all(item.detail == f"Topic: {topic.name}" for item in items)


def test_a_curator_adds_the_topic_s_failures_as_golden_drafts(client, curator, built):
    _, topic, traces = built
    client.force_login(curator)

    response = client.post(f"/insights/topics/{topic.pk}/action/", {"action": "golden_drafts"})

    assert response.status_code == 302
    drafts = GoldenExample.objects.filter(draft=True)
    assert {d.source_trace_id for d in drafts} == {t.pk for t in traces["planted"]}


def test_an_annotator_cannot_add_golden_drafts(client, annotator, built):
    _, topic, _ = built
    client.force_login(annotator)

    response = client.post(
        f"/insights/topics/{topic.pk}/action/", {"action": "golden_drafts"}, follow=True
    )

    assert not GoldenExample.objects.exists()
    assert "curator role" in response.content.decode()


def test_an_unknown_action_is_refused_by_name(client, annotator, built):
    _, topic, _ = built
    client.force_login(annotator)

    response = client.post(f"/insights/topics/{topic.pk}/action/", {"action": "x"}, follow=True)

    assert "Choose an action: review_sample or golden_drafts." in response.content.decode()
    assert not ReviewItem.objects.exists()
