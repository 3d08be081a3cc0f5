"""Golden red-flag rules evaluated against the agent's calls."""

from evalsite_checks.rules import golden_rules_check
from evalsite_checks.steps import ToolStep


def _calls(*specs):
    return [
        ToolStep(tool=t, inputs=i, output=o, span_id=f"s{n}")
        for n, (t, i, o) in enumerate(specs, 1)
    ]


ORDERS = {"orders": [{"order_id": "A1042"}]}


def test_called_before_fires_on_the_early_call():
    steps = _calls(("cancel_order", {"order_id": "A1042"}, {}), ("get_recent_orders", {}, ORDERS))
    hits = golden_rules_check(
        [
            {
                "text": "must look up first",
                "rule": {
                    "rule": "called_before",
                    "tool": "cancel_order",
                    "prerequisite": "get_recent_orders",
                },
            }
        ],
        steps,
    )
    assert [(h.kind, h.span_id) for h in hits] == [("prerequisite", "s1")]


def test_param_from_output_fires_only_for_an_id_not_in_the_source_output():
    rule = {
        "text": "id must come from the lookup",
        "rule": {
            "rule": "param_from_output",
            "tool": "cancel_order",
            "param": "order_id",
            "source_tool": "get_recent_orders",
        },
    }
    good = _calls(("get_recent_orders", {}, ORDERS), ("cancel_order", {"order_id": "a1042"}, {}))
    bad = _calls(("get_recent_orders", {}, ORDERS), ("cancel_order", {"order_id": "A1049"}, {}))
    assert golden_rules_check([rule], good) == []
    assert [(h.kind, h.span_id) for h in golden_rules_check([rule], bad)] == [
        ("hallucinated_parameter", "s2")
    ]


def test_never_called_and_max_calls():
    steps = _calls(
        *[("search_flights", {"origin": "LHR"}, {"flights": []})] * 3, ("delete_account", {}, {})
    )
    hits = golden_rules_check(
        [
            {"text": "no deletes", "rule": {"rule": "never_called", "tool": "delete_account"}},
            {
                "text": "search at most twice",
                "rule": {"rule": "max_calls", "tool": "search_flights", "limit": 2},
            },
            {"text": "a sentence only", "rule": None},
        ],
        steps,
    )
    assert sorted((h.kind, h.span_id) for h in hits) == [("forbidden_call", "s4"), ("loop", "s3")]
