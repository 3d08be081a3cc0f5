"""A tool world is example content: validated by path, captured on promotion, versioned,
exported and imported like the rest of the example."""

import json

import pytest

from golden.content import example_content
from golden.example_schema import CONTENT_FIELDS, ExampleInvalid, example_data_clean
from golden.jsonl import dataset_import_jsonl, dataset_version_export_lines
from golden.models import DatasetVersion, GoldenExample
from golden.services import (
    dataset_version_create,
    golden_example_promote,
    golden_example_update,
)
from metrics.models import RedFlag
from tests.factories import ToolSpanFactory
from tests.golden.builders import cancel_order_trace, example, red_flag, resolved_item
from tests.golden.world_builders import support_world, world_example
from traces.models import SpanStatus

pytestmark = pytest.mark.django_db


def _errors(world) -> dict:
    with pytest.raises(ExampleInvalid) as caught:
        example_data_clean({"task": "Cancel my order", "tool_world": world})
    return caught.value.errors


def test_world_rules_name_the_path_that_broke():
    world = support_world()
    world["recordings"].append({"tool": "refund_order", "arguments": {}, "result": None})
    world["variants"][0]["faults"].append({"tool": "cancel_order", "kind": "explode"})
    world["variants"][1]["faults"][0]["status"] = 200
    world["variants"][2]["faults"][0]["seconds"] = 90
    world["variants"][3]["faults"][0]["malformed"] = "xml"
    world["variants"][4]["faults"][0]["contradicts"] = "nobody"
    world["variants"].append({"name": "no_orders", "expected_behavior": "", "faults": []})
    errors = _errors(world)
    assert errors == {
        "tool_world.recordings[4].tool": "no tool named 'refund_order' in tool_world.tools",
        "tool_world.variants[0].faults[1].kind": (
            "must be one of error, empty, malformed, timeout, contradictory"
        ),
        "tool_world.variants[1].faults[0].status": "must be an HTTP error status, 400 to 599",
        "tool_world.variants[2].faults[0].seconds": "must be a number of seconds, 0 to 30",
        "tool_world.variants[3].faults[0].malformed": (
            "must be one of truncated_json, wrong_types, extra_field"
        ),
        "tool_world.variants[4].faults[0].contradicts": (
            "no tool named 'nobody' in tool_world.tools"
        ),
        "tool_world.variants[5].name": "repeats the variant 'no_orders'",
        "tool_world.variants[5].expected_behavior": (
            "must say what the agent should do (retry, report the failure, ask the user)"
        ),
        "tool_world.variants[5].faults": "must be a non-empty list of faults",
    }
    assert _errors([]) == {
        "tool_world": "must be a JSON object (empty when the example has no world)"
    }
    both = support_world()
    both["variants"][1]["faults"][0]["arguments"] = {"customer_id": "C-77"}
    assert _errors(both) == {
        "tool_world.variants[1].faults[0]": "give at_call or arguments, not both"
    }


def test_an_example_without_a_world_hashes_as_before(curator):
    # the content (and so the hash) of an example without a world has the fields it always had
    plain = example(task="Fix the flaky date test", task_type="code_fix")
    assert set(example_content(plain)) == set(CONTENT_FIELDS) - {"tool_world"}
    assert example_content(world_example(curator))["tool_world"]["tools"]


def test_promotion_captures_the_world_from_the_trace(curator):
    # given a support trace whose tools were offered with schemas, with a failed retry
    trace = cancel_order_trace(
        context={
            "available_tools": [
                {
                    "type": "function",
                    "function": {
                        "name": "get_recent_orders",
                        "description": "Recent orders of a customer.",
                        "parameters": {
                            "type": "object",
                            "properties": {"customer_id": {"type": "string"}},
                        },
                    },
                },
                {"name": "cancel_order", "description": "Cancel one order."},
            ]
        }
    )
    ToolSpanFactory(
        trace=trace,
        name="cancel_order",
        input={"order_id": "A0999"},
        output="order already delivered",
        status=SpanStatus.ERROR,
        position=4,
    )
    red_flag(trace, kind=RedFlag.Kind.LOOP, detail="retried")
    item = resolved_item(trace, score=1.0, explanation="Fine.")
    # when it is promoted
    promoted = golden_example_promote(item=item, annotation=item.annotations.get(), user=curator)
    world = promoted.tool_world
    # then the tools come with their schemas, and each successful call is a recording
    assert [t["name"] for t in world["tools"]] == ["get_recent_orders", "cancel_order"]
    assert world["tools"][0]["input_schema"]["properties"] == {"customer_id": {"type": "string"}}
    assert world["tools"][0]["description"] == "Recent orders of a customer."
    assert [(r["tool"], r["arguments"]) for r in world["recordings"]] == [
        ("get_recent_orders", {"customer_id": "C-77", "limit": 5}),
        ("cancel_order", {"order_id": "A1042", "reason": "ordered by mistake", "notify": True}),
    ]
    assert world["recordings"][1]["result"] == {"cancelled": True, "refund_eta_days": 5}
    assert world["unrecorded"]["kind"] == "error" and world["variants"] == []


def test_world_edits_make_a_new_version_and_travel_in_the_export(curator):
    created = world_example(curator)
    first = dataset_version_create(name="w1", user=curator)
    world = support_world()
    world["variants"] = world["variants"][:1]
    golden_example_update(example=created, data={"tool_world": world}, user=curator)
    second = dataset_version_create(name="w2", user=curator)
    assert first.content_hash != second.content_hash
    old = first.entries.get().content["tool_world"]
    assert (
        len(old["variants"]) == 5
        and len(second.entries.get().content["tool_world"]["variants"]) == 1
    )
    # export, wipe, import: the world comes back and the version hashes the same
    lines = list(dataset_version_export_lines(curator, second, "open"))
    assert json.loads(lines[0])["tool_world"]["variants"][0]["name"] == "no_orders"
    GoldenExample.objects.all().delete()
    result = dataset_import_jsonl(sources=[("open", lines)], user=curator, version_name="w2-again")
    assert result.version.content_hash == second.content_hash
    assert GoldenExample.objects.get().tool_world == second.entries.get().content["tool_world"]
    assert DatasetVersion.objects.count() == 3
