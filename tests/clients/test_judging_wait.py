"""The client's wait for judging: progress shown, done when every judge run is, bounded."""

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "evalsite-gate" / "src"))

from evalsite_gate import cli  # noqa: E402
from evalsite_gate.api import EvalsiteError  # noqa: E402


class JudgingSite:
    """Answers like evalsite's judge-run endpoint, one more pass finished per poll."""

    def __init__(self, total: int, finish: bool = True):
        self.total, self.done, self.finish = total, 0, finish

    def eval_run_judge(self, run_id, config):
        return [11]

    def judge_run(self, pk):
        if self.finish:
            self.done = min(self.total, self.done + 1)
        status = "done" if self.done == self.total else "running"
        return {
            "status": status,
            "progress": {"passes": {"total": self.total}, "finished_passes": self.done},
        }


def _args(timeout=60.0):
    return SimpleNamespace(judge_config="default", timeout=timeout, poll_seconds=0)


def test_waits_until_every_pass_finished_showing_progress(capsys):
    site = JudgingSite(total=3)
    cli._judging_wait(site, 7, _args())
    lines = capsys.readouterr().err.splitlines()
    assert lines[-1].endswith("3/3 judge passes") and len(lines) == 3
    assert "1/3" in lines[0]


def test_gives_up_after_the_timeout():
    with pytest.raises(EvalsiteError, match="did not finish"):
        cli._judging_wait(JudgingSite(total=3, finish=False), 7, _args(timeout=-1))
