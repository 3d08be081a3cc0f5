"""evalsite-pytest, the plugin an agent's own unit tests use, run by pytester: offline on a
dataset version the server exported, and against a live server. The developer's test file is
pytest_plugin_agents.py; here we check what passes, what fails, and what a failure reads like.
"""

import shutil
import sys
from pathlib import Path

# pytester forgets the modules an inner run imported, and NumPy's extension cannot load twice
# in a process: the matchers' NumPy and SciPy are loaded here, before any inner run pairs calls.
import numpy  # noqa: F401
import pytest
import scipy.optimize  # noqa: F401

from accounts.models import ApiToken
from accounts.roles import CURATOR
from golden.jsonl import dataset_version_export_lines
from golden.models import ToolWorldCall
from golden.services import dataset_version_create
from golden.worlds.serving import tool_world_call
from tests.factories import UserFactory
from tests.golden.world_builders import handout, support_world, world_example, world_run

CLIENTS = Path(__file__).resolve().parents[2] / "clients"
sys.path.insert(0, str(CLIENTS / "evalsite-pytest" / "src"))

from evalsite_pytest.world import ToolWorld  # noqa: E402

pytest_plugins = ["pytester"]
AGENTS = Path(__file__).with_name("pytest_plugin_agents.py")
KEY = "cancel-recent-order"
VERSION = "worlds-v1"


def example_create(user):
    """The support example with its world, one more recording (a different order's
    cancellation, so a wrong write succeeds) and the red flag an invented id trips."""
    world = support_world()
    world["recordings"].append(
        {"tool": "cancel_order", "arguments": {"order_id": "A2000"}, "result": {"cancelled": True}}
    )
    example = world_example(
        user,
        world=world,
        red_flags=[
            {
                "text": "Cancels an order the lookup never returned.",
                "rule": {
                    "rule": "param_from_output",
                    "tool": "cancel_order",
                    "param": "order_id",
                    "source_tool": "get_recent_orders",
                },
            }
        ],
    )
    example.key = KEY
    example.save(update_fields=["key"])
    return example


@pytest.fixture
def curator(db):
    return UserFactory(username="dev", roles=[CURATOR])


@pytest.fixture
def exported(curator, tmp_path):
    """The dataset version as the server exports it, written to a file."""
    example_create(curator)
    version = dataset_version_create(name=VERSION, user=curator)
    path = tmp_path / "worlds-v1-open.jsonl"
    path.write_text("".join(dataset_version_export_lines(curator, version, "open")))
    return path


@pytest.fixture
def developer_tests(pytester, monkeypatch):
    """The developer's test file in pytester's folder; only this plugin loads in the inner run
    (not pytest-django or this suite's others), as in a project that installed it alone."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    for variable in ("EVALSITE_DATASET", "EVALSITE_URL", "EVALSITE_TOKEN"):
        monkeypatch.delenv(variable, raising=False)
    shutil.copy(AGENTS, pytester.path / "test_agent.py")
    return pytester


def _run(pytester, *args):
    return pytester.runpytest("-p", "evalsite_pytest.plugin", "-p", "no:cacheprovider", *args)


FAILING = [
    "test_a_wrong_order_cancelled_fails_with_a_diff",
    "test_an_order_id_invented_after_an_empty_result_fails",
    "test_claiming_success_after_an_injected_timeout_fails",
]


def test_offline_the_right_agent_passes_and_the_wrong_ones_fail_with_a_diff(
    developer_tests, exported
):
    result = _run(developer_tests, "--evalsite-dataset", str(exported), "-rf")

    result.assert_outcomes(passed=7, failed=3)
    failed = {r.nodeid.split("::")[1] for r in result.reprec.getreports() if r.failed}
    assert failed == set(FAILING)
    # The wrong write: reference and agent aligned, the differing parameter named with the
    # rule that decided, and the matcher's reason.
    result.stdout.fnmatch_lines(
        [
            "*trajectory of golden example 'cancel-recent-order' does not pass (matcher: state)",
            "*path: cancel_order written with other arguments",
            "*reference*|*agent",
            '*= 1. get_recent_orders(customer_id="<from_context>")*'
            '| 1. get_recent_orders(customer_id="C-77")',
            '*~ 2. cancel_order(order_id="<from_step_1_output>")*'
            '| 2. cancel_order(order_id="A2000")',
            '*order_id: expected "<from_step_1_output>", got "A2000" (placeholder, score 0)',
            "*matcher: cancel_order written with other arguments",
        ]
    )
    # The invented id after the injected empty result: the example's red-flag rule fires.
    result.stdout.fnmatch_lines(
        [
            "*trajectory of golden example 'cancel-recent-order@no_orders' does not pass*",
            "*red flag hallucinated_parameter: cancel_order(order_id='A1043') is not in any "
            "earlier get_recent_orders output.",
            '*+ *| 2. cancel_order(order_id="A1043")  [[]failed]',
            "*red flag hallucinated_parameter: cancel_order(order_id='A1043')*",
            "*red flag invented_after_fault: cancel_order was called with 'A1043', found nowhere "
            "the agent read, after the injected empty of get_recent_orders.",
        ]
    )
    # A success claimed after an injected timeout: the rule that knows what was injected.
    result.stdout.fnmatch_lines(
        [
            "*trajectory of golden example 'cancel-recent-order@cancel_timeout' does not pass*",
            "*red flag success_after_fault: cancel_order met an injected timeout and never "
            "answered again, yet the final answer admits no problem and asks nothing.",
        ]
    )


def test_against_a_live_server_the_examples_are_fetched_with_a_token(
    developer_tests, curator, live_server, transactional_db
):
    example_create(curator)
    dataset_version_create(name=VERSION, user=curator)
    token = ApiToken.generate(curator, "unit tests")[1]

    result = _run(
        developer_tests,
        "--evalsite-url",
        live_server.url,
        "--evalsite-token",
        token,
        "--evalsite-version",
        VERSION,
        "-k",
        "careful or unknown_tool",
    )

    result.assert_outcomes(passed=3)


def test_without_a_source_every_test_that_asks_fails_saying_what_to_give(developer_tests):
    result = _run(developer_tests, "-k", "careful_agent_passes")

    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*no golden examples: give --evalsite-dataset FILE*(missing: --evalsite-url, "
         "--evalsite-token, --evalsite-version)"]
    )  # fmt: skip


def test_a_wrong_token_or_version_is_named(developer_tests, curator, live_server, transactional_db):
    example_create(curator)
    dataset_version_create(name=VERSION, user=curator)
    token = ApiToken.generate(curator, "unit tests")[1]
    server = ["--evalsite-url", live_server.url, "-k", "careful_agent_passes"]

    wrong_token = _run(developer_tests, *server, "--evalsite-token", "x", "--evalsite-version", "1")
    wrong_version = _run(
        developer_tests, *server, "--evalsite-token", token, "--evalsite-version", "worlds-v9"
    )

    wrong_token.stdout.fnmatch_lines(
        ["*GET */api/golden/versions/1/export/?part=open answered 401*"]
    )
    wrong_version.stdout.fnmatch_lines(
        ["*no dataset version 'worlds-v9' on *; there are: 'worlds-v1'"]
    )


def test_a_key_or_variant_not_in_the_dataset_is_named(exported, tmp_path):
    from evalsite_pytest.examples import examples_from_file

    examples = examples_from_file(exported)

    with pytest.raises(LookupError, match="did you mean 'cancel-recent-order'"):
        examples.get("cancel-recent-orders")
    with pytest.raises(ValueError, match="no variant 'down'; it has no_orders, lookup_down"):
        ToolWorld(examples.get(KEY), "down")
    broken = tmp_path / "broken.jsonl"
    broken.write_text(exported.read_text() + "{not json\n")
    with pytest.raises(Exception, match="broken.jsonl line 2: not JSON"):
        examples_from_file(broken)


CALLS = [
    ("get_recent_orders", {"customer_id": "c-77 "}),
    ("get_recent_orders", {"customer_id": "C-77", "limit": "2"}),
    ("get_recent_orders", {"limit": 2}),
    ("get_order_status", {"order_id": "A1042"}),
    ("cancel_order", {"order_id": "A1042"}),
    ("cancel_order", {"order_id": "Z1"}),
    ("refund", {}),
]


@pytest.mark.parametrize(
    "variant", ["", "no_orders", "lookup_down", "garbled_orders", "status_disagrees"]
)
def test_the_plugin_answers_every_call_as_the_server_does(curator, variant):
    run, handouts = world_run(curator)
    trial = run.trials.get(pk=handout(handouts, variant)["trial_id"])
    served = [
        tool_world_call(trial, tool, args, transport=ToolWorldCall.Transport.HTTP)
        for tool, args in CALLS
    ]
    world = ToolWorld({"key": KEY, **trial.entry.content}, variant)

    local = [world.call(tool, args) for tool, args in CALLS]

    assert [(c.status, c.text, c.recording, c.fault) for c in local] == [
        (
            s.status,
            s.text,
            s.recording,
            {k: v for k, v in (s.fault or {}).items() if k != "variant"} or None,
        )
        for s in served
    ]
    assert any(c.fault for c in local) == bool(variant)


def test_the_diff_shows_a_retried_try_a_free_read_and_a_step_never_made():
    from evalsite_pytest.checks import trajectory_check

    example = {
        "key": "notify",
        "context": {"customer_id": "C-77"},
        "reference_trajectory": [
            {"tool": "get_recent_orders", "inputs": {"customer_id": "<from_context>"}},
            {"tool": "cancel_order", "inputs": {"order_id": "<from_step_1_output>"}},
            {"tool": "notify_customer", "inputs": {"customer_id": "C-77"}},
        ],
    }
    lookup = {"tool": "get_recent_orders", "inputs": {"customer_id": "C-77"}}
    calls = [
        {**lookup, "output": {"error": "busy"}, "failed": True},
        {**lookup, "output": {"orders": [{"order_id": "A1"}]}},
        {"tool": "search_web", "inputs": {"q": "refunds"}},
        {"tool": "cancel_order", "inputs": {"order_id": "A1"}, "output": {"cancelled": True}},
    ]

    check = trajectory_check(calls, example)

    assert not check.passed
    lines = check.diff().splitlines()
    # Two columns: the reference step (after its mark) and the agent's call, side by side.
    rows = [tuple(part.strip() for part in line.split("|")) for line in lines[2:-1]]
    assert lines[1] == "  path: missing write notify_customer"
    assert len({line.index("|") for line in lines[2:-1]}) == 1
    assert rows == [
        ("reference", "agent"),
        ("(a failed try, retried)", '1. get_recent_orders(customer_id="C-77")  [failed]'),
        (
            '= 1. get_recent_orders(customer_id="<from_context>")',
            '2. get_recent_orders(customer_id="C-77")',
        ),
        ("+", '3. search_web(q="refunds")  (not counted)'),
        ('= 2. cancel_order(order_id="<from_step_1_output>")', '4. cancel_order(order_id="A1")'),
        ('- 3. notify_customer(customer_id="C-77")', ""),
    ]
    assert lines[-1] == "  matcher: missing write notify_customer"
