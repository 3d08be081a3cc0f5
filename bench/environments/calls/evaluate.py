"""Score the labelled calls with evalsite's defaults and count how often each label is met.

Each task's answer key becomes a reference trajectory through the import's own conversion
(`reference_from_answer_key`) and example validation; each labelled run is scored by
`trajectory_score` with the matcher users get without choosing, decided by the pass rule, and
checked by the generic red flags, exactly as a stored trace would be.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from evalsite_checks.pass_rule import PassCriteria, trial_decide
from evalsite_checks.scoring import trajectory_score
from evalsite_checks.steps import ToolStep

from bench.environments.calls.cases import RIGHT_KINDS, Case, Task
from golden.example_schema import example_data_clean
from golden.reference_trajectory import reference_from_answer_key
from metrics.redflags import flag_rules_build, red_flags_detect
from traces.models import SpanKind, SpanStatus


@dataclass
class _Trace:
    task: str
    final_answer: str
    context: dict
    stop_reason: str = "end_turn"
    attributes: dict = field(default_factory=dict)
    root_span_id: str = "root"


@dataclass
class _Span:
    span_id: str
    name: str
    kind: str
    input: object
    output: object
    status: str
    tool_name: str = ""
    component: str = ""
    attributes: dict = field(default_factory=dict)
    parent_span_id: str = ""
    tool_call_id: str = ""


@dataclass
class Judged:
    case: Case
    passed: bool | None
    reasons: list[str]
    flags: list[str]


def task_content(task: Task) -> dict:
    """The task as a golden example's content, through the import's conversion and checks."""
    steps, errors = reference_from_answer_key(task.answer_key)
    if errors:
        raise ValueError(f"{task.key}: {errors}")
    return example_data_clean(
        {
            "task": task.question,
            "context": {"available_tools": task.tools},
            "reference_trajectory": steps,
        }
    )


def _spans(task: Task, case: Case) -> list[_Span]:
    spans = [_Span("root", "agent", SpanKind.AGENT, task.question, case.answer, SpanStatus.OK)]
    for number, call in enumerate(case.calls, start=1):
        spans.append(
            _Span(
                f"call-{number}",
                call.tool,
                SpanKind.TOOL,
                call.args,
                call.error or call.output,
                SpanStatus.ERROR if call.error else SpanStatus.OK,
                tool_name=call.tool,
            )
        )
    return spans


def case_judge(task: Task, content: dict, case: Case) -> Judged:
    steps = [
        ToolStep(c.tool, c.args, c.error or c.output, failed=bool(c.error)) for c in case.calls
    ]
    score = trajectory_score(
        content["reference_trajectory"], steps, task=task.question, context=content["context"]
    )
    trace = _Trace(task.question, case.answer, content["context"])
    hits = red_flags_detect(trace, _spans(task, case), flag_rules_build(content["context"]))
    metrics = {**score.as_dict(), "red_flags": [], "outcome_score": None}
    decision = trial_decide(metrics, content, PassCriteria())
    return Judged(case, decision.passed, decision.reasons, sorted({h.kind for h in hits}))


def calls_judge(tasks: list[Task]) -> list[Judged]:
    judged = []
    for task in tasks:
        content = task_content(task)
        judged += [case_judge(task, content, case) for case in task.cases]
    return judged


def calls_text(judged: list[Judged], title: str) -> str:
    """Per kind: runs, share judged as labelled, share red-flagged; then the red-flag rates."""
    by_kind: dict[str, list[Judged]] = defaultdict(list)
    for row in judged:
        by_kind[row.case.kind].append(row)
    lines = [f"== {title}: {len(judged)} labelled runs"]
    lines.append(
        "default matcher (auto) and pass rule, per kind: runs, judged as labelled, flagged"
    )
    worst = {True: 1.0, False: 1.0}
    for kind in sorted(by_kind, key=lambda k: (k not in RIGHT_KINDS, k)):
        rows = by_kind[kind]
        right = kind in RIGHT_KINDS
        agreed = sum(1 for r in rows if (r.passed is True) == right) / len(rows)
        flagged = sum(1 for r in rows if r.flags) / len(rows)
        worst[right] = min(worst[right], agreed)
        label = "right" if right else "wrong"
        lines.append(
            f"  {label} {kind:22} {len(rows):4d}   judged {label} {agreed:6.1%}   "
            f"red flag {flagged:6.1%}"
        )
    successes = [r for r in judged if r.case.right]
    failures = [r for r in judged if not r.case.right]
    on_success = sum(1 for r in successes if r.flags) / max(1, len(successes))
    on_failure = sum(1 for r in failures if r.flags) / max(1, len(failures))
    fired: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in judged:
        for kind in row.flags:
            fired[kind][0] += 1
            fired[kind][1] += not row.case.right
    lines.append(
        f"lowest per kind: right calls judged right {worst[True]:.1%}, wrong calls judged wrong "
        f"{worst[False]:.1%} (target >= 95% each)"
    )
    lines.append(
        f"red flags on right runs {on_success:.1%}, on wrong runs {on_failure:.1%} "
        f"(target <= 5%, and >= 3x)"
    )
    for kind, (count, wrong) in sorted(fired.items()):
        lines.append(f"  {kind:26} {count:4d}   precision {wrong / count:6.1%}")
    misjudged = [
        f"  {r.case.task_key} {r.case.kind}: {'; '.join(r.reasons) or 'passed'}"
        for r in judged
        if (r.passed is True) != r.case.right
    ]
    if misjudged:
        lines.append("misjudged runs:")
        lines += misjudged[:15]
    return "\n".join(lines)


def calls_targets(judged: list[Judged]) -> list[str]:
    """The calls set's targets as lines: per kind >= 95% judged as labelled; red flags."""
    by_kind: dict[str, list[Judged]] = defaultdict(list)
    for row in judged:
        by_kind[row.case.kind].append(row)
    short = [
        kind
        for kind, rows in sorted(by_kind.items())
        if sum(1 for r in rows if (r.passed is True) == r.case.right) / len(rows) < 0.95
    ]
    right = [r for r in judged if r.case.right]
    wrong = [r for r in judged if not r.case.right]
    on_right = sum(1 for r in right if r.flags) / max(1, len(right))
    on_wrong = sum(1 for r in wrong if r.flags) / max(1, len(wrong))
    uncaught = sorted(
        kind
        for kind, rows in by_kind.items()
        if not rows[0].case.right and not any(r.passed is not True or r.flags for r in rows)
    )
    return [
        f"  calls: kinds below 95% judged as labelled: {', '.join(short) or 'none'}",
        f"  calls: red flags on right runs {on_right:.1%}, on wrong runs {on_wrong:.1%}",
        f"  calls: wrong kinds no signal caught: {', '.join(uncaught) or 'none'}",
    ]
