"""Built-in rubrics turned into rules that judge live traffic, for the online judging tests."""

from judges.calibration import judge_calibration_update
from judges.models import Rubric
from judges.services import judge_config_default

# Judge and human labels that agree: enough for a judge version to pass calibration.
AGREEING = [(1, 1), (0, 0)] * 15


def rule_live(name, rate=1.0, *, task_type="", project=None, calibrated=True) -> Rubric:
    """The built-in rubric `name` set to judge new traces; `calibrated`, its latest version has
    passed calibration against people, which live traffic waits for."""
    rubric = Rubric.objects.get(name=name)
    rubric.judge_new_traces, rubric.sample_rate = True, rate
    rubric.task_type, rubric.project = task_type, project
    rubric.save()
    if calibrated:
        judge_calibration_update(rubric.latest_version(), judge_config_default(), AGREEING)
    return rubric
