"""The LLM tier of trajectory metrics, through the real SDK against a scripted Messages server.

The seed's prompts ask for a bare number (parameters), JSON (path, expected behaviour); every
one is read by the judge's own parser, and a reply nobody can read goes to a person."""

import copy
import json
import threading
from http.server import ThreadingHTTPServer

import pytest

from golden.evals.scoring import ScoringOptions, eval_run_score
from golden.evals.services import eval_run_create
from golden.models import EvalTrial
from golden.services import dataset_version_create
from judges.trajectory_llm import behavior_judge_llm, parameter_judge_llm, path_judge_llm
from reviews.models import ReviewItem, ReviewReason
from tests.evals.golden_set import EXAMPLES, agent_payload, trace_from_payload
from tests.factories import GoldenExampleFactory, TraceFactory
from tests.json_http import JsonHandler

pytestmark = pytest.mark.django_db


class _Scripted(JsonHandler):
    """Answers every Messages request with the next scripted text."""

    replies: list[str] = []
    requests: list[dict] = []

    def do_POST(self):  # noqa: N802 - the http.server hook name
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        type(self).requests.append(body)
        text = type(self).replies.pop(0)
        payload = {
            "id": "msg_scripted",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 40, "output_tokens": 3},
        }
        self.send_json(200, payload)


@pytest.fixture
def judge_replies(settings):
    """Set the replies the judge will give, in order; the server lives on loopback only."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Scripted)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    settings.ANTHROPIC_BASE_URL = f"http://127.0.0.1:{server.server_port}"
    settings.JUDGE_TIMEOUT_SECONDS = 5.0
    _Scripted.replies, _Scripted.requests = [], []
    yield _Scripted
    server.shutdown()
    server.server_close()


def test_the_parameter_rubric_s_bare_number_is_read_and_prose_is_not(judge_replies):
    judge_replies.replies = ["They look the same to me.", "1.0", "0.5\n", "0.4"]
    ask = ("reason", "placed by mistake", "ordered it by accident", "Cancel my order.")
    assert parameter_judge_llm(*ask) is None
    assert parameter_judge_llm(*ask) == 1.0
    assert parameter_judge_llm(*ask) == 0.5
    # off the 1.0 / 0.5 / 0.0 scale is not guessed either
    assert parameter_judge_llm(*ask) is None
    # the seeded rubric's own instructions were sent
    assert "bare number" in str(judge_replies.requests[0]["system"])


def test_the_path_judge_reads_a_score_line_and_json(judge_replies):
    judge_replies.replies = [
        "Not sure.",
        "Shorter but complete.\nScore: 1",
        '{"score": 0.0, "reason": "skipped the check"}',
    ]
    steps = [{"tool": "get_order"}], [{"tool": "get_order"}, {"tool": "think"}], "Where is it?"
    assert path_judge_llm(*steps)[0] is None
    assert path_judge_llm(*steps)[0] == 1.0
    assert path_judge_llm(*steps)[0] == 0.0


def test_the_expected_behaviour_rubric_is_seeded_and_read(judge_replies):
    trace = TraceFactory(task="Cancel my order.", final_answer="Which of your two orders?")
    judge_replies.replies = ["yes", '{"score": 1, "reason": "it asked which order"}']
    unreadable = behavior_judge_llm(trace, "Ask which order before cancelling.")
    assert unreadable[0] is None and "unreadable" in unreadable[1]
    assert behavior_judge_llm(trace, "Ask which order before cancelling.") == (
        1.0,
        "it asked which order",
    )
    assert "Ask which order" in judge_replies.requests[1]["messages"][0]["content"]


def test_an_unreadable_parameter_verdict_sends_the_trial_to_review_not_to_zero(judge_replies):
    # given a free-text reason that only the judge can compare
    example = copy.deepcopy(EXAMPLES[0])
    example["reference_trajectory"][1]["inputs"]["reason"] = "placed by mistake"
    GoldenExampleFactory(**example)
    dataset = dataset_version_create(name="llm-tier")
    run = eval_run_create(name="llm-1", agent_version="1.4.0", dataset_version=dataset)
    payload = agent_payload("1.4.0", example["key"], "llm-1", 0)
    payload["children"][1]["input"]["reason"] = "customer ordered it by accident"
    trace_from_payload(payload)
    # when the judge answers in prose
    judge_replies.replies = ["Both say it was a mistake, so I would call them equivalent."] * 2
    eval_run_score(run, ScoringOptions(parameter_judge=parameter_judge_llm))
    # then the trial is undecided and a person gets it, instead of a 0 nobody sees
    trial = EvalTrial.objects.get(eval_run=run)
    assert trial.metrics["fail_reasons"] == [] and trial.metrics["judge_unreadable"] is True
    assert trial.passed is None
    reasons = [p["method"] for s in trial.metrics["steps"] for p in s["parameters"]]
    assert "unreadable" in reasons
    assert ReviewItem.objects.get(trace=trial.trace).reason == ReviewReason.UNPARSEABLE
