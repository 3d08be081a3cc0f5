"""The pytest side: where the golden examples come from (an exported dataset file, or the
evalsite server), and the fixtures a test asks for.

    def test_cancels_the_most_recent_order(tool_world):
        world = tool_world("cancel-recent-order")
        answer = my_agent.run(world.example["task"], tools=world.functions())
        world.assert_trajectory()
"""

from __future__ import annotations

import os

import pytest

from evalsite_pytest.examples import (
    ExamplesUnavailable,
    GoldenExamples,
    examples_from_file,
    examples_from_server,
)
from evalsite_pytest.world import ToolWorld

# option, environment variable, help
OPTIONS = (
    ("--evalsite-dataset", "EVALSITE_DATASET", "a dataset version exported as JSONL (offline)"),
    ("--evalsite-url", "EVALSITE_URL", "the evalsite server to fetch the examples from"),
    ("--evalsite-token", "EVALSITE_TOKEN", "an API token of that server (annotator or above)"),
    ("--evalsite-version", "EVALSITE_DATASET_VERSION", "the dataset version's name or id"),
)


def pytest_addoption(parser):
    group = parser.getgroup("evalsite", "golden examples and tool worlds from evalsite")
    for option, variable, text in OPTIONS:
        group.addoption(option, default=None, help=f"{text} (or ${variable})")


def _setting(config, option: str, variable: str) -> str:
    return config.getoption(option) or os.environ.get(variable, "")


def golden_examples_load(config) -> GoldenExamples:
    """The examples the options name: the dataset file when given, else the server."""
    values = {option: _setting(config, option, variable) for option, variable, _ in OPTIONS}
    if values["--evalsite-dataset"]:
        return examples_from_file(values["--evalsite-dataset"])
    missing = [
        o for o in ("--evalsite-url", "--evalsite-token", "--evalsite-version") if not values[o]
    ]
    if missing:
        raise ExamplesUnavailable(
            "no golden examples: give --evalsite-dataset FILE (an exported dataset version), or "
            f"the server's --evalsite-url, --evalsite-token and --evalsite-version "
            f"(missing: {', '.join(missing)})"
        )
    return examples_from_server(
        values["--evalsite-url"], values["--evalsite-token"], values["--evalsite-version"]
    )


@pytest.fixture(scope="session")
def golden_examples(pytestconfig) -> GoldenExamples:
    """The dataset version's examples by key, read once a session."""
    try:
        return golden_examples_load(pytestconfig)
    except ExamplesUnavailable as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture
def tool_world(golden_examples):
    """`tool_world(key, variant="")`: a fresh tool world of that example for this test."""

    def make(key: str, variant: str = "", *, sleep_on_timeout: bool = False) -> ToolWorld:
        return ToolWorld(golden_examples.get(key), variant, sleep_on_timeout=sleep_on_timeout)

    return make
