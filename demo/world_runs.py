"""The demo's tool-world eval runs: the demo agent meets the cancel example's world over MCP.

The steps are a CI job's (`evalsite-gate start --tool-worlds`, the agent, `finish`): create the
run and start its worlds, run the agent on every handed-out trial against the server that
serves them, send its traces, close the worlds, score, and gate 1.5.0 against 1.4.0. The
server must be listening at `base_url`, so this runs once it is (`serve --demo` does it in the
background; `manage.py demo_agent` by hand). No transaction wraps it: the server reads the
trials this process creates.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from evalsite_gate.reports import fault_kind_lines, trial_label

from demo.evals import DEMO_EVAL_PROJECT, DEMO_MATCHER
from demo.golden import DEMO_EXAMPLES
from demo.world_agent import AGENT, demo_agent_trial
from golden.evals.gate import gate_evaluate
from golden.evals.scoring import ScoringOptions, eval_run_score
from golden.evals.services import eval_run_create
from golden.models import DatasetVersion, EvalRun, GoldenExample
from golden.services import dataset_version_create
from golden.worlds.runs import eval_run_tool_worlds_finish, eval_run_tool_worlds_start
from judges.trajectory_llm import behavior_judge_llm
from traces.ingest.services import ingest_span_tree
from traces.models import Project

DEMO_WORLD_VERSION = "demo-worlds-v1"
# (run, agent version, whether it guesses an order id after an empty lookup)
DEMO_WORLD_RUNS = (
    ("demo-worlds-baseline", "1.4.0", False),
    ("demo-worlds-candidate", "1.5.0", True),
)
WORLD_TASK = DEMO_EXAMPLES[0]["task"]


def _world_version(user) -> DatasetVersion:
    found = DatasetVersion.objects.filter(name=DEMO_WORLD_VERSION).first()
    if found:
        return found
    examples = GoldenExample.objects.filter(task=WORLD_TASK, held_out=False)
    return dataset_version_create(
        name=DEMO_WORLD_VERSION,
        note="The demo example with a tool world and two fault variants; the demo agent runs "
        "it over MCP.",
        user=user,
        examples=examples,
    )


def demo_world_runs() -> list[EvalRun]:
    """The demo's scored tool-world runs, baseline first; empty until the agent has run."""
    names = [name for name, _, _ in DEMO_WORLD_RUNS]
    runs = {r.name: r for r in EvalRun.objects.filter(name__in=names).exclude(metrics={})}
    return [runs[name] for name in names] if len(runs) == len(names) else []


def _run_once(name: str, version: str, guesses: bool, *, dataset, user, base_url, project):
    run = eval_run_create(
        name=name, agent_name=AGENT, agent_version=version, dataset_version=dataset, user=user
    )
    for handout in eval_run_tool_worlds_start(run, user=user, base_url=base_url):
        ingest_span_tree(project, demo_agent_trial(handout, version=version, guesses=guesses))
    eval_run_tool_worlds_finish(run)
    # The variants' expected behaviour is the judge's to say; the simulated judge answers it
    # deterministically and for free, a real model is not called behind the user's back.
    judge = behavior_judge_llm if settings.JUDGE_SIMULATED else None
    eval_run_score(run, ScoringOptions(matcher=DEMO_MATCHER, behavior_judge=judge))
    return run


def demo_world_runs_ensure(base_url: str) -> list[EvalRun]:
    """Run both agent versions against the server at `base_url` once; later calls return the
    stored runs. A run an earlier attempt left unscored (the server stopped mid-way) is
    started over."""
    done = demo_world_runs()
    if done:
        return done
    EvalRun.objects.filter(name__in=[name for name, _, _ in DEMO_WORLD_RUNS]).delete()
    user = get_user_model().objects.filter(username="cora").first()
    slug, title = DEMO_EVAL_PROJECT
    project, _ = Project.objects.get_or_create(slug=slug, defaults={"name": title})
    dataset = _world_version(user)
    return [
        _run_once(
            name, version, guesses, dataset=dataset, user=user, base_url=base_url, project=project
        )
        for name, version, guesses in DEMO_WORLD_RUNS
    ]


def demo_world_gate_lines(baseline: EvalRun, candidate: EvalRun) -> list[str]:
    """The gate's decision on the two runs as CI prints it: metrics, fault kinds, failures."""
    report = gate_evaluate(baseline, candidate)
    lines = [f"{report['decision'].upper()}: {report['summary']}"]
    lines += [f"  BLOCK {row['reason']}" for row in report["metrics"] if row["blocked"]]
    lines += fault_kind_lines(report)
    lines += [
        f"  FAIL  {trial_label(trial)}: {'; '.join(trial['reasons'])}"
        for trial in report["candidate_trials"]["failed"]
    ]
    return lines
