"""The per-check flip rate of eval-time LLM checks, read from the trials that asked them."""

import pytest

from golden.evals.services import eval_run_create
from golden.models import EvalTrial
from golden.services import dataset_version_create
from insights.check_flips import check_flip_chart, check_flip_rows
from tests.factories import GoldenExampleFactory, TraceFactory

pytestmark = pytest.mark.django_db


def _trials_asking(passes_per_trial, held_out=False):
    """One eval run whose trials asked these checks, one trial per list of passes."""
    GoldenExampleFactory(task=f"task {EvalTrial.objects.count()}")
    dataset = dataset_version_create(name=f"flips-{EvalTrial.objects.count()}")
    run = eval_run_create(
        name=f"run-{EvalTrial.objects.count()}", agent_version="1.0", dataset_version=dataset
    )
    entry = dataset.entries.first()
    for index, passes in enumerate(passes_per_trial):
        EvalTrial.objects.create(
            eval_run=run,
            entry=entry,
            trial_index=index,
            trace=TraceFactory(held_out=held_out),
            metrics={"llm_check_passes": passes},
        )


def test_flips_are_counted_per_check_with_an_interval():
    flip = {"check": "path", "scores": [1.0, 0.0], "flipped": True}
    same = {"check": "path", "scores": [1.0, 1.0], "flipped": False}
    param = {"check": "parameter_equivalence", "scores": [0.5, 0.5], "flipped": False}
    unreadable = {"check": "expected_behavior", "scores": [None, 1.0], "flipped": False}
    _trials_asking([[flip, param], [same, unreadable], [same]])
    _trials_asking([[flip]], held_out=True)  # statistics never read held-out traces

    rows = {row["check"]: row for row in check_flip_rows()}

    assert set(rows) == {"path", "parameter_equivalence"}
    assert (rows["path"]["asked"], rows["path"]["flipped"]) == (3, 1)
    assert rows["path"]["flip_rate"] == pytest.approx(0.3333, abs=1e-4)
    assert rows["path"]["low_95"] < 0.3333 < rows["path"]["high_95"]
    assert rows["parameter_equivalence"]["flipped"] == 0
    chart = check_flip_chart()
    assert chart.figure["data"][0]["x"] == ["parameter equivalence", "path"]
    # A check that never flipped has no bar: its counts are written where the bar would be.
    assert chart.figure["data"][0]["text"] == ["0 of 1", "1 of 3"]
    assert chart.note.startswith("1 of 4 questions flipped")
