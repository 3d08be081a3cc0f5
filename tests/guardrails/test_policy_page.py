"""Curators set a project's guardrail thresholds on its page; the change is audited and holds
for settled traces' red flags too."""

import pytest

from metrics.models import GuardrailPolicy
from metrics.redflags import red_flags_detect
from reviews.models import AuditEvent
from tests.factories import ProjectFactory, ToolSpanFactory, TraceFactory

pytestmark = pytest.mark.django_db
URL = "/judges/guardrails/"


@pytest.fixture
def project():
    return ProjectFactory(slug="support", name="Support")


def _save(client, project, **fields):
    data = {"loop_repeats": 4, "max_steps": 12, "tool_prerequisites": "", **fields}
    return client.post(f"{URL}?project={project.slug}", data)


def test_curator_sets_thresholds_and_the_change_is_audited(client, curator, project):
    client.force_login(curator)
    # when
    response = _save(
        client, project, tool_prerequisites="issue_refund: verify_identity, get_order\n\n"
    )
    # then
    assert response.status_code == 302
    policy = GuardrailPolicy.objects.get(project=project)
    assert (policy.loop_repeats, policy.max_steps) == (4, 12)
    assert policy.tool_prerequisites == {"issue_refund": ["verify_identity", "get_order"]}
    event = AuditEvent.objects.get(action="guardrail_policy_set")
    assert event.actor == curator and event.before is None
    assert event.after["max_steps"] == 12
    # and a second change keeps what was before
    _save(client, project, max_steps=20)
    latest = AuditEvent.objects.filter(action="guardrail_policy_set").latest("pk")
    assert latest.before["max_steps"] == 12 and latest.after["max_steps"] == 20
    page = client.get(f"{URL}?project=support").content.decode()
    assert "issue_refund: verify_identity, get_order" in page


def test_bad_prerequisite_line_is_refused_with_its_number(client, curator, project):
    client.force_login(curator)
    response = _save(client, project, tool_prerequisites="issue_refund: verify\nno colon here")
    assert response.status_code == 200
    assert "Line 2" in response.content.decode()
    assert not GuardrailPolicy.objects.exists()


def test_out_of_range_threshold_is_refused(client, curator, project):
    client.force_login(curator)
    assert _save(client, project, loop_repeats=1).status_code == 200
    assert not GuardrailPolicy.objects.exists()


def test_annotator_sees_thresholds_but_cannot_change_them(client, annotator, project):
    GuardrailPolicy.objects.create(project=project, loop_repeats=5)
    client.force_login(annotator)
    page = client.get(f"{URL}?project=support").content.decode()
    assert "5 calls" in page and 'id="guardrail-form"' not in page
    assert _save(client, project).status_code == 403
    assert GuardrailPolicy.objects.get(project=project).loop_repeats == 5


def test_policy_applies_to_settled_traces_red_flags(project):
    # given a project whose loop threshold is 2
    GuardrailPolicy.objects.create(project=project, loop_repeats=2)
    trace = TraceFactory(project=project, task="Order A1042", final_answer="Sorry, no luck.")
    for position in (1, 2):
        ToolSpanFactory(
            trace=trace, name="get_order", input={"order_id": "A1042"}, position=position
        )
    # when / then two identical calls are a loop here
    assert [h.kind for h in red_flags_detect(trace)] == ["loop"]
