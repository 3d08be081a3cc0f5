"""Parameter equivalence: deterministic rules first, the LLM rubric only when they cannot decide."""

import pytest
from evalsite_checks.parameters import parameter_score, step_parameter_scores, values_equivalent


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        ("2026-03-14", 1773446400),  # ISO date vs unix seconds at midnight UTC
        ("2026-03-14", 1773480600),  # ... and later that day
        ("2026-03-14T09:30:00Z", 1773480600),
        ("2026-03-14T10:30:00+01:00", "1773480600000"),  # unix milliseconds, as a string
        (42, "42"),
        ("49.90", 49.9),
        ("1,200", 1200),
        ("A1042", " a1042 "),
        ("New  York", "new york"),
        (True, "true"),
        (["LHR", "JFK"], ["jfk", "lhr"]),
        ({"city": "Paris", "nights": 3}, {"nights": "3", "city": "PARIS"}),
    ],
)
def test_equivalent_values(expected, actual):
    assert values_equivalent(expected, actual) is True


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        ("2026-03-14", 1773532800),  # the next day
        ("A1042", "A1049"),
        (42, "43"),
        (True, "no"),
        (["LHR"], ["LHR", "JFK"]),
        ({"city": "Paris"}, {"city": "Paris", "nights": 3}),
        ("A1042", None),
    ],
)
def test_different_values(expected, actual):
    assert values_equivalent(expected, actual) is False


def test_case_sensitive_tool_keeps_case():
    assert values_equivalent("AbC123", "abc123", case_sensitive=True) is False


def test_free_text_is_undecided():
    assert values_equivalent("customer changed their mind", "no longer wants the item") is None


def test_free_text_with_other_numbers_is_not_the_same():
    # an address with another house number is another address, whatever the wording
    assert values_equivalent("12 Mill Lane, Leeds LS1 4AB", "15 Mill Lane, Leeds LS1 4AB") is False
    assert values_equivalent("12 Mill Lane, Leeds LS1 4AB", "12, Mill Ln, Leeds LS1 4AB") is None


def test_from_context_resolves_against_context_and_task():
    ok = parameter_score("customer_id", "<from_context>", "c-77", context={"customer_id": "C-77"})
    from_task = parameter_score(
        "order_id", "<from_context>", "A1042", task="Cancel order #A1042 please"
    )
    wrong = parameter_score(
        "customer_id", "<from_context>", "C-78", context={"customer_id": "C-77"}
    )
    assert (ok.score, ok.method) == (1.0, "placeholder")
    assert from_task.score == 1.0
    assert wrong.score == 0.0


def test_from_step_output_resolves_against_that_steps_output_only():
    outputs = {
        1: {"orders": [{"order_id": "A1042", "placed": "2026-03-01"}, {"order_id": "A0999"}]}
    }
    assert (
        parameter_score("order_id", "<from_step_1_output>", "A0999", step_outputs=outputs).score
        == 1.0
    )
    assert (
        parameter_score("order_id", "<from_step_1_output>", "A1049", step_outputs=outputs).score
        == 0.0
    )
    # a step that has not happened yet resolves nothing
    assert (
        parameter_score("order_id", "<from_step_2_output>", "A1042", step_outputs=outputs).score
        == 0.0
    )


def test_llm_is_asked_only_when_rules_cannot_decide():
    # given a judge that records what it is asked
    asked = []

    def judge(name, expected, actual, task):
        asked.append(name)
        return 0.5

    # when one decidable and one free-text parameter are scored
    scores = step_parameter_scores(
        {"tool": "cancel_order", "inputs": {"order_id": "A1042", "reason": "placed by mistake"}},
        {"order_id": "a1042", "reason": "customer ordered it accidentally"},
        judge=judge,
    )
    # then only the free-text one reached the judge
    assert asked == ["reason"]
    assert [(s.name, s.score, s.method) for s in scores] == [
        ("order_id", 1.0, "deterministic"),
        ("reason", 0.5, "llm"),
    ]


def test_missing_parameter_scores_zero_and_extra_inputs_are_ignored():
    scores = step_parameter_scores(
        {"tool": "search_flights", "inputs": {"origin": "LHR", "date": "2026-03-14"}},
        {"origin": "lhr", "cabin": "economy"},
    )
    assert [(s.name, s.score, s.method) for s in scores] == [
        ("origin", 1.0, "deterministic"),
        ("date", 0.0, "missing"),
    ]


def test_tool_definition_says_which_parameters_keep_their_case():
    # given a repository tool whose branch names are case sensitive, and a search that is not
    context = {
        "available_tools": [
            {"name": "checkout_branch", "case_sensitive_params": ["branch"]},
            {"name": "search_flights"},
        ]
    }
    branch = step_parameter_scores(
        {"tool": "checkout_branch", "inputs": {"branch": "Fix/Parse-Duration", "remote": "Origin"}},
        {"branch": "fix/parse-duration", "remote": "origin"},
        context=context,
    )
    search = step_parameter_scores(
        {"tool": "search_flights", "inputs": {"origin": "LHR"}}, {"origin": "lhr"}, context=context
    )
    # then only the case-sensitive parameter fails
    assert [(s.name, s.score) for s in branch] == [("branch", 0.0), ("remote", 1.0)]
    assert search[0].score == 1.0


def test_whole_tool_marked_case_sensitive():
    context = {"available_tools": [{"name": "read_file", "case_sensitive": True}]}
    scores = step_parameter_scores(
        {"tool": "read_file", "inputs": {"path": "src/TimeUtil.py"}},
        {"path": "src/timeutil.py"},
        context=context,
    )
    assert scores[0].score == 0.0
