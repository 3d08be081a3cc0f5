"""The labelled function-calling set, small: every run is judged as labelled by the default
matcher and the pass rule, and red flags stay off the right runs
(bench/metric_quality.py measures it at size, with a seed held back)."""

from bench.environments.calls.cases import RIGHT_KINDS, WRONG_KINDS, tasks_draw
from bench.environments.calls.evaluate import calls_judge


def test_every_labelled_run_is_judged_as_labelled_and_right_runs_raise_no_flag():
    judged = calls_judge(tasks_draw(seed=5, per_template=2))
    assert {row.case.kind for row in judged} == set(RIGHT_KINDS) | set(WRONG_KINDS)
    wrongly = [
        (r.case.task_key, r.case.kind, r.reasons)
        for r in judged
        if (r.passed is True) != r.case.right
    ]
    assert wrongly == []
    assert [r.case.kind for r in judged if r.case.right and r.flags] == []
