"""The tool catalogue: a default effect from name and definition, a curator's choice kept and
audited, and scoring that follows it."""

import pytest
from evalsite_checks.effects import tool_definitions, tool_effect_default
from evalsite_checks.scoring import trajectory_score
from evalsite_checks.steps import ToolStep

from core.errors import ApplicationError
from metrics.effects import tool_catalogue_ensure, tool_effect_set
from metrics.models import ToolEffect
from reviews.models import AuditEvent
from tests.factories import ProjectFactory, SpanFactory, TraceFactory, UserFactory
from traces.models import SpanKind
from traces.signals import trace_completed


@pytest.mark.parametrize(
    ("name", "effect"),
    [
        ("get_order", "read"),
        ("listReservations", "read"),
        ("search_flights", "read"),
        ("calculate", "read"),
        ("think", "read"),
        ("cancel_reservation", "write"),
        ("book_flight", "write"),
        ("send_email", "write"),
        ("transfer_funds", "write"),
        ("update-address", "write"),
        # no verb we know: checked strictly until a curator says otherwise
        ("frobnicate", "write"),
    ],
)
def test_the_default_comes_from_the_verb_in_the_name(name, effect):
    assert tool_effect_default(name) == effect


def test_the_definition_s_own_hints_win_over_the_name():
    assert tool_effect_default("get_or_create_user", {"effect": "write"}) == "write"
    assert tool_effect_default("frobnicate", {"annotations": {"readOnlyHint": True}}) == "read"
    assert tool_effect_default("get_session", {"annotations": {"destructiveHint": True}}) == "write"


def test_definitions_are_read_in_both_common_shapes():
    context = {
        "available_tools": [
            {"name": "get_order", "returns": "order"},
            {"type": "function", "function": {"name": "cancel_order", "parameters": {}}},
            "not a definition",
        ]
    }
    assert sorted(tool_definitions(context)) == ["cancel_order", "get_order"]


@pytest.mark.django_db
def test_a_curator_s_choice_is_kept_audited_and_scored_by():
    project = ProjectFactory()
    curator = UserFactory(username="cora", roles=["curator"])
    # given the catalogue guessed that send_receipt writes
    assert tool_catalogue_ensure(project, {}, ["get_order", "send_receipt"]) == {
        "get_order": "read",
        "send_receipt": "write",
    }
    reference = [{"step": 1, "tool": "get_order", "inputs": {"order_id": "O-1"}}]
    run = [ToolStep("get_order", {"order_id": "O-1"}), ToolStep("send_receipt", {"to": "a@b.c"})]
    guessed = tool_catalogue_ensure(project, {}, [])
    assert not trajectory_score(reference, run, effects=guessed).matched
    # when a curator says it only logs, and the catalogue is refreshed
    tool_effect_set(project=project, tool="send_receipt", effect="read", user=curator)
    effects = tool_catalogue_ensure(project, {"send_receipt": {"effect": "write"}}, ["x_tool"])
    # then the choice holds, is audited with who and what it was before, and scoring follows it
    assert effects["send_receipt"] == "read" and effects["x_tool"] == "write"
    row = ToolEffect.objects.get(project=project, tool="send_receipt")
    assert (row.source, row.updated_by) == (ToolEffect.Source.CURATOR, curator)
    event = AuditEvent.objects.get(action="tool_effect_set")
    assert event.actor == curator
    assert event.before == {"effect": "write", "source": "default"}
    assert event.after["effect"] == "read"
    assert trajectory_score(reference, run, effects=effects).matched


@pytest.mark.django_db
def test_bad_input_names_the_field():
    project = ProjectFactory()
    with pytest.raises(ApplicationError) as bad:
        tool_effect_set(project=project, tool="get_order", effect="delete")
    assert bad.value.field == "effect"
    with pytest.raises(ApplicationError) as unnamed:
        tool_effect_set(project=project, tool="  ", effect="read")
    assert unnamed.value.field == "tool"
    assert not ToolEffect.objects.exists()


@pytest.mark.django_db
def test_a_settled_trace_catalogues_its_tools_and_definitions():
    trace = TraceFactory(
        context={"available_tools": [{"name": "lookup_fare", "description": "Fare rules."}]}
    )
    SpanFactory(trace=trace, kind=SpanKind.TOOL, name="cancel", tool_name="cancel_booking")
    trace_completed.send(sender=type(trace), trace=trace)
    rows = dict(ToolEffect.objects.filter(project=trace.project).values_list("tool", "effect"))
    assert rows == {"cancel_booking": "write", "lookup_fare": "read"}
    fare = ToolEffect.objects.get(tool="lookup_fare")
    assert fare.definition == {"name": "lookup_fare", "description": "Fare rules."}
