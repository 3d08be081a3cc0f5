"""A curator edits an example's tool world on its page: adds a fault variant, meets a rule's
error by its path, and sees the world on the example page. Screenshots at 1400x900."""

import json
import os
from pathlib import Path

import pytest

from golden.models import GoldenExample
from tests.e2e.conftest import login_as
from tests.golden.world_builders import support_world, world_example

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
SHOTS = Path(os.environ.get("SCREENSHOT_DIR", "var/screenshots"))


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))
    page.screenshot(path=str(SHOTS / f"{name}.full.png"), full_page=True)


def test_curator_adds_a_fault_variant_to_the_world(new_page, curator):
    # given an example with a world of one tool and no variant
    world = support_world()
    world["tools"] = world["tools"][:1]
    world["recordings"] = world["recordings"][:1]
    world["variants"] = []
    example = world_example(curator, world=world)
    page = new_page()
    page.set_viewport_size({"width": 1400, "height": 900})
    login_as(page, curator)
    page.goto(f"/golden/examples/{example.pk}/")
    assert "No fault variants" in page.locator("#tool-world").inner_text()
    _shot(page, "golden-example-world-small")

    # when the curator adds a variant whose fault names a tool the world does not have
    page.goto(f"/golden/examples/{example.pk}/edit/")
    textarea = page.locator("#id_tool_world")
    edited = json.loads(textarea.input_value())
    edited["variants"] = [
        {
            "name": "no_orders",
            "expected_behavior": "Say no order was found; never invent an order id.",
            "faults": [{"tool": "get_orders", "kind": "empty"}],
        }
    ]
    textarea.fill(json.dumps(edited, indent=2))
    page.click("button[type=submit].primary")
    # then the form says which path broke, and nothing is saved
    error = page.locator(".field-tool_world .field-error").inner_text()
    assert "variants[0].faults[0].tool" in error and "no tool named 'get_orders'" in error
    assert GoldenExample.objects.get(pk=example.pk).tool_world["variants"] == []
    page.locator(".field-tool_world .field-error").scroll_into_view_if_needed()
    _shot(page, "golden-example-world-error")
    # the refused form answers 400, which the browser logs; later steps must log nothing
    page.console_errors.clear()

    # when the fault names the real tool and the curator saves
    edited["variants"][0]["faults"][0]["tool"] = "get_recent_orders"
    page.locator("#id_tool_world").fill(json.dumps(edited, indent=2))
    page.click("button[type=submit].primary")
    page.wait_for_url(f"**/golden/examples/{example.pk}/")
    # then the example page shows the variant, and the world is stored as written
    variant = page.locator("#tool-world .variant[data-variant=no_orders]")
    assert "never invent an order id" in variant.inner_text()
    assert "on every call" in variant.inner_text()
    stored = GoldenExample.objects.get(pk=example.pk).tool_world
    assert stored["variants"][0]["faults"] == [{"tool": "get_recent_orders", "kind": "empty"}]
    assert not page.console_errors


def test_a_large_world_reads_on_the_example_page(new_page, curator):
    world = support_world()
    for number in range(12):
        world["tools"].append(
            {
                "name": f"lookup_{number}",
                "description": f"Lookup number {number}, with a longer description " * 2,
                "input_schema": {
                    "type": "object",
                    "properties": {f"p{i}": {"type": "string"} for i in range(6)},
                    "required": ["p0"],
                },
            }
        )
    example = world_example(curator, world=world)
    page = new_page()
    page.set_viewport_size({"width": 1400, "height": 900})
    login_as(page, curator)
    page.goto(f"/golden/examples/{example.pk}/")
    assert page.locator("#tool-world .tool-world-tools tbody tr").count() == 16
    assert page.locator("#tool-world .variant").count() == 5
    page.locator("#tool-world").scroll_into_view_if_needed()
    _shot(page, "golden-example-world-large")
    page.goto(f"/golden/examples/{example.pk}/edit/")
    page.locator("#id_tool_world").scroll_into_view_if_needed()
    _shot(page, "golden-example-world-edit")
    assert not page.console_errors
