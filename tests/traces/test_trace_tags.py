"""Trace tags: read from real instrumentations and span trees, gathered over a trace's spans and
requests, filtered on and shown on the list, the trace page and the API."""

import pytest

from accounts.roles import ANNOTATOR
from tests.conformance.harness import (
    PROJECT,
    capturing_provider,
    export_to_evalsite,
    spans_export,
)
from tests.factories import TraceFactory, UserFactory
from traces.ingest.span_tree import span_tree_records
from traces.models import Trace, TraceTag
from traces.tags import MAX_TAG_CHARS, tags_read

pytestmark = pytest.mark.django_db


@pytest.fixture
def agent_api(api_client_for):
    return api_client_for(UserFactory(roles=[ANNOTATOR]))


def tags_of(trace: Trace) -> list[str]:
    return list(trace.tags.values_list("name", flat=True))


def test_openinference_using_tags_tags_the_trace(agent_api):
    from openinference.instrumentation import using_tags

    from tests.conformance.test_frameworks import smolagents_support_run

    provider, exporter = capturing_provider("support")
    with using_tags(["checkout", "beta"]):
        smolagents_support_run(provider)
    trace = export_to_evalsite(agent_api, exporter)

    assert tags_of(trace) == ["beta", "checkout"]
    assert any("tag.tags" in span.attributes for span in trace.spans.all())


def test_langfuse_tags_on_any_span_gather_over_requests(agent_api):
    provider, exporter = capturing_provider("support")
    tracer = provider.get_tracer("app")
    with tracer.start_as_current_span("invoke_agent support") as root:
        with tracer.start_as_current_span("chat", attributes={"langfuse.trace.tags": ["eu"]}):
            pass
        spans_export(agent_api, exporter)  # the child arrives first, alone
        root.set_attribute("langfuse.trace.tags", ["prod", "eu", " ", "x" * (MAX_TAG_CHARS + 1)])
    spans_export(agent_api, exporter)

    trace = Trace.objects.get(project__slug=PROJECT)
    assert tags_of(trace) == ["eu", "prod"]
    # the values that are not tags are still there, on the span that sent them
    root_span = trace.spans.get(parent_span_id="")
    assert len(root_span.attributes["langfuse.trace.tags"]) == 4


def test_a_span_tree_names_its_tags_and_a_wrong_value_is_refused_naming_the_field(agent_api):
    tree = {"name": "agent", "trace_id": "a" * 32, "tags": ["checkout", "checkout", "v2"]}
    assert agent_api.post("/api/traces/", tree, format="json").status_code == 201
    assert tags_of(Trace.objects.get()) == ["checkout", "v2"]

    refused = agent_api.post("/api/traces/", {**tree, "tags": "checkout"}, format="json")
    assert refused.status_code == 400
    assert "tags" in refused.json()["error"]["fields"]
    _, extras, _ = span_tree_records({"name": "agent", "tags": []})
    assert extras.tags == []


@pytest.mark.parametrize(
    ("value", "tags"),
    [
        (["a", "b"], ["a", "b"]),
        ('["a", "b"]', ["a", "b"]),
        ("solo", ["solo"]),
        (["", 3, None, " x "], ["x"]),
        ({"a": 1}, []),
    ],
)
def test_tag_values_as_senders_write_them(value, tags):
    assert tags_read(value) == tags


def test_the_list_page_and_api_filter_by_tag_and_show_the_tags(client, annotator, agent_api):
    tagged = TraceFactory(task="Tagged run")
    TraceTag.objects.create(trace=tagged, name="checkout")
    TraceTag.objects.create(trace=tagged, name="beta")
    TraceFactory(task="Untagged run")
    client.force_login(annotator)

    page = client.get("/traces/", {"tag": "checkout"}).content.decode()
    assert "Tagged run" in page and "Untagged run" not in page
    # the tag field offers every tag the traces carry, once each, in order
    assert 'list="known-tags"' in page
    assert '<option value="beta"><option value="checkout"></datalist>' in page
    assert 'class="tag" href="?tag=beta"' in page
    detail = client.get(f"/traces/{tagged.pk}/").content.decode()
    assert 'id="trace-tags"' in detail and "?tag=checkout" in detail

    listed = agent_api.get("/api/traces/", {"tag": "checkout"}).json()["results"]
    assert [(t["id"], t["tags"]) for t in listed] == [(tagged.pk, ["beta", "checkout"])]
    one = agent_api.get(f"/api/traces/{tagged.pk}/").json()
    assert one["tags"] == ["beta", "checkout"]


def test_a_tag_is_masked_like_any_text(agent_api, curator):
    from traces.masking.rules import rule_create
    from traces.models import Project

    project = Project.objects.create(slug="masked", name="Masked")
    rule_create(project, {"kind": "detector", "detector": "email"}, curator)
    tree = {"name": "agent", "project": "masked", "tags": ["for ann@example.com"]}
    assert agent_api.post("/api/traces/", tree, format="json").status_code == 201
    (tag,) = tags_of(Trace.objects.get(project=project))
    assert "ann@example.com" not in tag and tag.startswith("for ")


def test_known_tags_are_each_tag_once_in_order_up_to_the_offer(monkeypatch):
    from traces import tags

    for name in ("b", "a", "c", "a"):
        TraceTag.objects.create(trace=TraceFactory(), name=name)
    assert tags.tags_known() == ["a", "b", "c"]
    monkeypatch.setattr(tags, "KNOWN_TAGS_OFFERED", 2)
    assert tags.tags_known() == ["a", "b"]
