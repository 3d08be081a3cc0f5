"""The simulated judge (a demo device) reads the prompt as a model would: it never fails a
correct trace for a reason the prompt contradicts, and on the demo's known-good and known-bad
traces it leans the right way, disagreeing honestly where only a red flag can tell."""

import json

import pytest

from demo.scenarios import SCENARIOS_FILE, scenarios
from demo.simulator.scoring import score_prompt
from judges.models import Rubric
from judges.prompts import prompt_render
from tests.factories import ProjectFactory
from tests.judges import seed_article_agent
from tests.judges.test_judge_reads import _memory_spans, send_otlp
from traces.ingest.services import ingest_span_tree

pytestmark = pytest.mark.django_db
KNOWN_GOOD = {"support-cancel-ok", "travel-book-ok", "coding-fix-ok", "calendar-ok"}
KNOWN_GOOD |= {"calendar-no-tool-needed"}
# The prompt shows these failures; the others (a skipped prerequisite, a wrong date, text aimed
# at the judge) need knowledge the simulated judge does not have: red flags route them.
SEEN_BAD = {
    "support-cancel-hallucinated-id",
    "support-status-loop",
    "support-policy-after-error",
    "coding-max-steps",
}
READING_RUBRICS = ("General trace judge", "Tool-call decision accuracy", "Outcome 1-5")


def _verdicts(trace) -> set[bool]:
    return {
        score_prompt(
            prompt_render(Rubric.objects.get(name=name).latest_version(), trace).user
        ).passed
        for name in READING_RUBRICS
    }


def test_on_the_demo_it_passes_the_good_and_fails_the_bad_it_can_see():
    project = ProjectFactory()
    data = json.loads(SCENARIOS_FILE.read_text(encoding="utf-8"))
    keys = [spec["key"] for spec in data["traces"]]
    verdicts = {}
    for key, payload in zip(keys, scenarios(), strict=True):
        verdicts[key] = _verdicts(ingest_span_tree(project, payload))
    assert all(verdicts[key] == {True} for key in KNOWN_GOOD), verdicts
    assert all(verdicts[key] == {False} for key in SEEN_BAD), verdicts
    bad = set(keys) - KNOWN_GOOD
    # leans the right way, with the honest disagreement that shows routing
    assert 0 < len([k for k in bad if verdicts[k] == {True}]) < len(bad) / 2


def test_the_seed_article_trace_passes_and_a_made_up_order_id_in_it_fails(api_client_for):
    from accounts.roles import ANNOTATOR
    from tests.factories import UserFactory

    agent = api_client_for(UserFactory(roles=[ANNOTATOR]))
    # given the correct seed-article trace: A-1042 comes from the user's request
    right = send_otlp(agent, _memory_spans(seed_article_agent.seed_article_run), as_json=False)
    assert _verdicts(right) == {True}
    # when the first call's id appears nowhere earlier
    right.spans.filter(tool_name="get_order_status").update(input={"order_id": "A-7719"})
    assert _verdicts(right) == {False}


def test_a_run_the_prompt_says_was_truncated_is_not_passed(api_client_for):
    from accounts.roles import ANNOTATOR
    from tests.factories import UserFactory

    agent = api_client_for(UserFactory(roles=[ANNOTATOR]))
    trace = send_otlp(
        agent,
        _memory_spans(lambda t: seed_article_agent.seed_article_run(t, stop_reason="max_tokens")),
        as_json=False,
    )
    assert _verdicts(trace) == {False}
