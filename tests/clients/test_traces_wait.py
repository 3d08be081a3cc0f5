"""`finish` waits for the run's traces to arrive and settle before scoring, bounded."""

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "evalsite-gate" / "src"))

from evalsite_gate import cli  # noqa: E402
from evalsite_gate.api import EvalsiteError  # noqa: E402

RUN = {"id": 7, "name": "cand"}


class TracesSite:
    """Answers like /api/eval-runs/<id>/traces/ from a list of states, one per poll."""

    def __init__(self, *states):
        self.states, self.polls = list(states), 0

    def eval_run_traces(self, run_id):
        state = self.states[min(self.polls, len(self.states) - 1)]
        self.polls += 1
        return dict(zip(("expected", "received", "complete"), state, strict=True))


def _args(timeout=60.0):
    return SimpleNamespace(traces_timeout=timeout, poll_seconds=0)


def test_waits_until_every_expected_trace_arrived_and_settled(capsys):
    site = TracesSite((3, 1, 0), (3, 3, 1), (3, 3, 3))

    cli._traces_wait(site, RUN, _args())

    assert site.polls == 3
    lines = capsys.readouterr().err.splitlines()
    assert lines[-1] == "Traces of cand: 3/3 arrived, 3 complete."


def test_traces_still_receiving_spans_at_the_timeout_stop_the_gate_saying_so():
    site = TracesSite((2, 2, 1))

    with pytest.raises(EvalsiteError, match="1 of cand's traces were still receiving spans"):
        cli._traces_wait(site, RUN, _args(timeout=-1))


def test_missing_traces_at_the_timeout_are_scored_as_missing_with_a_warning(capsys):
    site = TracesSite((4, 2, 2))

    cli._traces_wait(site, RUN, _args(timeout=-1))

    assert "Only 2 of 4 expected traces arrived" in capsys.readouterr().err


def test_finish_scores_only_after_the_wait(monkeypatch):
    calls = []
    site = TracesSite((1, 1, 0), (1, 1, 1))
    site.eval_run = lambda name: RUN
    site.eval_run_score = lambda *a, **k: calls.append(("score", site.polls))
    site.gate = lambda **k: {"decision": "pass"}
    monkeypatch.setattr(cli, "report_text", lambda report: "PASS")
    monkeypatch.setattr(cli, "_baseline", lambda *a: "1")
    args = SimpleNamespace(
        traces_timeout=60,
        poll_seconds=0,
        no_judge=True,
        no_llm=True,
        matcher="auto",
        baseline="1",
        mode="auto",
        fixed_drop=0.1,
        k=2.5,
        require_people_confirmation=False,
        confirmation_share=0.5,
        json_path=None,
        junit_path=None,
        summary=None,
    )
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)

    assert cli.command_finish(site, args, "cand") == cli.PASS
    assert calls == [("score", 2)]  # scored once both polls said the trace was complete
