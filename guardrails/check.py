"""Allow or block an agent's next step with the red-flag checks, without touching the database
beyond reading the project's policy (and the stored trace, when the agent names one)."""

from __future__ import annotations

from dataclasses import dataclass

from evalsite_checks.flag_hit import FlagHit
from evalsite_checks.steps import ToolStep

from core.errors import InvalidInput
from core.remembered import Remembered
from guardrails.trajectory import (
    ParsedTrajectory,
    pending_call_record,
    trajectory_parse,
)
from metrics.models import GuardrailPolicy, RedFlag
from metrics.policy_cache import policy_copy
from metrics.redflags import FlagRules, flag_rules_build, red_flags_detect
from metrics.steps import (
    SpanFacts,
    TraceFacts,
    calls_told,
    tool_steps_from_messages,
    tool_steps_from_spans,
    trace_spans,
)
from traces.ingest.failures import FailureRule, project_failure_rule
from traces.models import Project, SpanKind, Trace

Kind = RedFlag.Kind
# The checks that make sense while the agent runs; the answer-based one waits for the answer.
RUNTIME_KINDS = (Kind.LOOP, Kind.HALLUCINATED_PARAMETER, Kind.PREREQUISITE, Kind.MAX_STEPS)
ALLOW, BLOCK = "allow", "block"

# What the agent can say or do instead; written to be returned to the model as the tool result.
FALLBACKS = {
    Kind.LOOP: (
        "Blocked: this call repeats earlier ones with the same arguments. Do not call the tool "
        "again; answer with what you have, or tell the user what was tried and ask how to go on."
    ),
    Kind.HALLUCINATED_PARAMETER: (
        "Blocked: an argument of this call appears nowhere the user, the context or a tool "
        "gave it. Look the value up with a tool, or ask the user for it, before calling."
    ),
    Kind.PREREQUISITE: (
        "Blocked: this tool needs another to have succeeded first. Call the prerequisite tool, "
        "then retry this call with what it returned."
    ),
    Kind.MAX_STEPS: (
        "Blocked: the step limit is reached. Stop calling tools; tell the user what was done, "
        "what is left, and that a person will follow up."
    ),
}


@dataclass
class GuardrailResult:
    decision: str
    checks: list[dict]
    steps: int
    rules: FlagRules
    trace_external_id: str
    # Whether the agent named the trace, so a recorded decision can find its trace page.
    trace_named: bool
    next_tool: str = ""
    checked_span_id: str = ""
    policy_source: str = "settings"


# Projects with their policies by slug, as recently read: the check sits in an agent's loop.
project_policies: Remembered[Project | None] = policy_copy()


def project_with_policy(slug: str) -> Project | None:
    """The project and its policy, as recently read."""
    # One query for the project and its policy.
    return project_policies.get(
        slug, lambda: Project.objects.select_related("guardrail_policy").filter(slug=slug).first()
    )


def project_policy(project: Project | None) -> GuardrailPolicy | None:
    if project is None:
        return None
    try:
        return project.guardrail_policy
    except GuardrailPolicy.DoesNotExist:
        return None


def _stored_trajectory(project: Project | None, external_id: str) -> ParsedTrajectory | None:
    trace = (
        Trace.objects.filter(project=project, external_id=external_id).first() if project else None
    )
    if trace is None:
        return None
    return ParsedTrajectory(trace, trace_spans(trace), external_id, named=True)


def _steps_checked(
    history: list[SpanFacts], rule: FailureRule, pending: ToolStep | None, pending_id: str = ""
) -> list[ToolStep]:
    """The calls made so far, read as a stored trace's are (its tool spans, or in a plain loop
    the calls its model calls told), then `pending`, the call about to be made. A plain loop's
    last model call has told that call already, with no result yet: it is counted once."""
    if pending is None or any(span.kind == SpanKind.TOOL for span in history):
        steps = tool_steps_from_spans(history, rule)
    else:
        told = calls_told(history)
        steps = tool_steps_from_messages(history, rule, told)
        for index in range(len(told) - 1, -1, -1):
            call, result = told[index][1], told[index][2]
            if result is not None:
                continue
            # by its id where both have one, else by tool and arguments
            if call.id and pending_id:
                same = call.id == pending_id
            else:
                same = steps[index].call_key == pending.call_key
            if same:
                del steps[index]
                break
    return steps if pending is None else [*steps, pending]


def _check_row(hit: FlagHit, blocking: bool) -> dict:
    return {
        "check": hit.kind,
        "label": Kind(hit.kind).label,
        "span_id": hit.span_id,
        "detail": hit.detail,
        "fallback": FALLBACKS[Kind(hit.kind)],
        "blocking": blocking,
    }


def guardrail_check(
    project: Project | None,
    *,
    trajectory: dict | None = None,
    trace_id: str = "",
    next_call: dict | None = None,
) -> GuardrailResult:
    """Run the runtime checks on the trajectory so far plus the call about to be made.

    The step under check is `next_call` if given, else the last tool call sent. Checks that
    fire on it block, and so does a step limit passed; checks that fired on earlier steps are
    reported without blocking (the agent already moved past them).
    """
    failure_rule = project_failure_rule(project)
    if trajectory is not None:
        parsed = trajectory_parse(trajectory, failure_rule)
        if trace_id:
            parsed.external_id, parsed.named = trace_id, True
    else:
        found = _stored_trajectory(project, trace_id)
        if found is None:
            where = f"project {project.slug!r}" if project else "this project"
            message = f"No trace {trace_id!r} is stored in {where}; send `trajectory`."
            raise InvalidInput("trace_id", message)
        parsed = found
    facts: TraceFacts = parsed.facts
    spans: list[SpanFacts] = list(parsed.spans)
    next_tool, pending, pending_id = "", None, ""
    if next_call is not None:
        next_tool, pending_id = next_call["tool"], next_call.get("id", "")
        record = pending_call_record(
            next_tool, next_call.get("input"), pending_id, facts.root_span_id
        )
        spans.append(record)
        pending = tool_steps_from_spans([record], failure_rule)[0]
    steps = _steps_checked(list(parsed.spans), failure_rule, pending, pending_id)
    # A call told only in messages is named by the model call that decided it, as its hits are.
    checked = steps[-1].span_id if steps else ""
    policy = project_policy(project)
    rules = flag_rules_build(facts.context, policy, failure_rule)
    hits = red_flags_detect(facts, spans, rules, kinds=RUNTIME_KINDS, steps=steps)
    checks = [
        _check_row(hit, blocking=hit.span_id == checked or hit.kind == Kind.MAX_STEPS)
        for hit in hits
    ]
    checks.sort(key=lambda c: not c["blocking"])
    return GuardrailResult(
        decision=BLOCK if any(c["blocking"] for c in checks) else ALLOW,
        checks=checks,
        steps=len(steps),
        rules=rules,
        trace_external_id=parsed.external_id,
        trace_named=parsed.named,
        next_tool=next_tool,
        checked_span_id=checked,
        policy_source="project" if policy is not None else "settings",
    )
