"""Alignment proposals: a judge version learns from where people corrected it.

From a judge version's calibration labels (the labelled cases, gathered by reviews), the cases
where judge and people disagree become a draft of the next rubric version: the disagreements
summarised as criteria, and a few corrected cases as few-shot examples. The examples are never
held out: only traces anyone may see (traces.selectors.traces_visible with no user, which reads
golden's held-out predicate) are eligible. Then the judge scores every labelled item under the
old and the new version, and kappa against people is measured on both (core.stats, as the
calibration gate measures it), headline on the items the draft does not show as examples.

The draft is a draft: a curator approves it like any version, and the approved version still
has to pass the calibration gate before it judges live traffic.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from core.errors import ApplicationError
from core.stats import agreement_measure
from judges.alignment.models import AlignmentProposal, AlignmentStatus
from judges.calibration import rubric_version_scale
from judges.models import JudgeConfig, ParseStatus, RubricVersion, RubricVersionStatus
from judges.parsing import reply_parse
from judges.prompts import fence_value, prompt_render
from judges.providers import provider_call, request_params
from judges.rubrics import VERSION_FIELDS, rubric_version_create
from traces.models import SpanKind, Trace
from traces.reading import span_base_name
from traces.selectors import trace_spans_ordered, traces_visible

FEW_SHOT_LIMIT = 3
EXAMPLE_TEXT_CHARS = 300
CORRECTIONS_HEADING = "Corrections from people's labels:"
EXAMPLES_HEADING = (
    "Corrected examples (people's scores; a trajectory that calls the same tools in the same "
    "order deserves the same judgement):"
)
# Where the rubric text goes in a template; a template without it gets it appended.
RUBRIC_SLOT = "\n{% if rubric %}\nRubric:\n{{ rubric }}\n{% endif %}"


@dataclass(frozen=True)
class LabelledCase:
    """One calibration label: what the judge said and what people settled."""

    item_id: int
    trace: Trace
    judge_score: float
    human_score: float
    explanation: str = ""
    failure_tags: tuple[str, ...] = ()

    @property
    def disagrees(self) -> bool:
        return self.judge_score != self.human_score


def trace_tool_sequence(trace: Trace) -> list[str]:
    """The tools the trajectory called, in order."""
    return [span_base_name(s) for s in trace_spans_ordered(trace) if s.kind == SpanKind.TOOL]


def _number(value: float) -> str:
    return f"{value:g}"


def disagreement_criteria(version: RubricVersion, cases: list[LabelledCase]) -> list[str]:
    """The disagreements as criteria: per direction (too lenient, too strict), the failure
    modes people named, with how many labels each rests on."""
    criteria = []
    low, high = _number(version.score_min), _number(version.score_max)
    lenient = [c for c in cases if c.disagrees and c.human_score < c.judge_score]
    strict = [c for c in cases if c.disagrees and c.human_score > c.judge_score]
    for group, verb, score in ((lenient, "fail", low), (strict, "pass", high)):
        if not group:
            continue
        tags = Counter(tag for case in group for tag in case.failure_tags)
        for tag, count in tags.most_common(4):
            named = tag.replace("_", " ")
            criteria.append(
                f"Score towards {score} when the trajectory shows {named}: people did so on "
                f"{count} of the {len(group)} labels where the judge scored the other way."
            )
        sequences = Counter(" → ".join(trace_tool_sequence(c.trace)) or "no tool" for c in group)
        for sequence, count in sequences.most_common(2):
            many = "trajectory" if count == 1 else "trajectories"
            criteria.append(
                f"People failed {count} {many} calling {sequence} that the judge passed: check "
                "what each tool returned and where each argument came from before trusting "
                "the final answer."
                if verb == "fail"
                else f"People passed {count} {many} calling {sequence} that the judge failed: "
                "do not fail a trajectory for a step that did no harm."
            )
    return criteria


def few_shot_cases(cases: list[LabelledCase], limit: int = FEW_SHOT_LIMIT) -> list[LabelledCase]:
    """Corrected cases to show as examples: disagreements on traces anyone may see (never a
    held-out one), one per tool sequence, the most recent labels first. A trajectory shape
    people labelled both ways is skipped: as an example it would teach the shape, not the
    mistake, and mislead the judge on the ones people passed."""
    disagreeing = [c for c in cases if c.disagrees]
    open_ids = set(
        traces_visible(None)
        .filter(pk__in=[c.trace.pk for c in disagreeing])
        .values_list("pk", flat=True)
    )
    labels_by_shape: dict[tuple[str, ...], set[float]] = {}
    for case in cases:
        shape = tuple(trace_tool_sequence(case.trace))
        labels_by_shape.setdefault(shape, set()).add(case.human_score)
    chosen, sequences = [], set()
    for case in reversed(disagreeing):
        sequence = tuple(trace_tool_sequence(case.trace))
        if case.trace.pk not in open_ids or case.trace.held_out or sequence in sequences:
            continue
        if len(labels_by_shape[sequence]) > 1:
            continue
        chosen.append(case)
        sequences.add(sequence)
        if len(chosen) == limit:
            break
    return chosen


def few_shot_text(cases: list[LabelledCase]) -> str:
    """The examples as the prompt reads them; agent-written text is fenced."""
    blocks = []
    for index, case in enumerate(cases, start=1):
        tools = ", ".join(fence_value(name) for name in trace_tool_sequence(case.trace))
        lines = [
            f"Example {index}: people scored it {_number(case.human_score)} "
            f"(the judge had said {_number(case.judge_score)}).",
            f"Tools called, in order: {tools or '(none)'}",
            f"Task: {fence_value((case.trace.task or '')[:EXAMPLE_TEXT_CHARS])}",
        ]
        if case.explanation:
            lines.append(f"Why: {fence_value(case.explanation[:EXAMPLE_TEXT_CHARS])}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def aligned_rubric_text(version: RubricVersion, criteria: list[str], examples: str) -> str:
    parts = [version.rubric_text.strip()] if version.rubric_text.strip() else []
    if criteria:
        parts.append(CORRECTIONS_HEADING + "\n" + "\n".join(f"- {c}" for c in criteria))
    if examples:
        parts.append(EXAMPLES_HEADING + "\n\n" + examples)
    return "\n\n".join(parts)


def alignment_draft(
    *, version: RubricVersion, config: JudgeConfig, cases: list[LabelledCase], user=None
) -> AlignmentProposal:
    """Draft the revised version from the disagreements and record the proposal (scoring)."""
    if not any(c.disagrees for c in cases):
        raise ApplicationError(
            "The judge agrees with every label so far: there is nothing to learn from.",
            field="calibration",
        )
    criteria = disagreement_criteria(version, cases)
    examples = few_shot_cases(cases)
    fields = {name: getattr(version, name) for name in VERSION_FIELDS}
    fields["rubric_text"] = aligned_rubric_text(version, criteria, few_shot_text(examples))
    if "rubric" not in fields["system_prompt"] + fields["user_template"]:
        fields["system_prompt"] += RUBRIC_SLOT
    fields["status"] = RubricVersionStatus.DRAFT
    disagreeing = sum(c.disagrees for c in cases)
    fields["note"] = (
        f"Alignment proposal from v{version.number}: {disagreeing} of {len(cases)} calibration "
        f"labels disagreed; {len(examples)} corrected example(s)."
    )[:500]
    with transaction.atomic():
        proposed = rubric_version_create(rubric=version.rubric, user=user, **fields)
        return AlignmentProposal.objects.create(
            source_version=version,
            config=config,
            proposed_version=proposed,
            criteria=criteria,
            few_shot_item_ids=[c.item_id for c in examples],
            created_by=user,
        )


def judge_score(version: RubricVersion, config: JudgeConfig, trace: Trace) -> float | None:
    """One judge call of a version on a trace, outside any judge run; None if unparseable."""
    spans = trace_spans_ordered(trace)
    prompt = prompt_render(version, trace, spans=spans)
    reply = provider_call(config, request_params(prompt, config))
    parsed = reply_parse(reply.text, version, list(prompt.span_names))
    return parsed.score if parsed.status == ParseStatus.OK else None


def _kappa(version: RubricVersion, pairs: list[tuple[float, float]]) -> float | None:
    if not pairs:
        return None
    labels, ordinal = rubric_version_scale(version)
    judge, human = [p[0] for p in pairs], [p[1] for p in pairs]
    if labels is not None and not set(judge) | set(human) <= set(labels):
        labels = None
    return agreement_measure(judge, human, ordinal=ordinal, labels=labels, resamples=0).kappa


def alignment_score(proposal: AlignmentProposal, cases: list[LabelledCase]) -> AlignmentProposal:
    """Score every labelled item under the old and the proposed version; kappa before/after."""
    old, new = proposal.source_version, proposal.proposed_version
    examples = set(proposal.few_shot_item_ids)
    rows = []
    try:
        for case in cases:
            before = judge_score(old, proposal.config, case.trace)
            after = judge_score(new, proposal.config, case.trace)
            rows.append(
                {
                    "item_id": case.item_id,
                    "trace_id": case.trace.pk,
                    "task": (case.trace.task or "")[:200],
                    "human": case.human_score,
                    "recorded": case.judge_score,
                    "before": before,
                    "after": after,
                    "example": case.item_id in examples,
                    "changed": before != after,
                }
            )
    except Exception as exc:
        # Provider trouble: the proposal says what happened instead of hanging in "scoring".
        proposal.status, proposal.error = AlignmentStatus.FAILED, f"{type(exc).__name__}: {exc}"
        proposal.finished_at = timezone.now()
        proposal.save(update_fields=["status", "error", "finished_at"])
        raise
    scored = [r for r in rows if r["before"] is not None and r["after"] is not None]
    unseen = [r for r in scored if not r["example"]]
    proposal.cases = rows
    proposal.kappa_before = _kappa(old, [(r["before"], r["human"]) for r in unseen])
    proposal.kappa_after = _kappa(old, [(r["after"], r["human"]) for r in unseen])
    proposal.kappa_before_all = _kappa(old, [(r["before"], r["human"]) for r in scored])
    proposal.kappa_after_all = _kappa(old, [(r["after"], r["human"]) for r in scored])
    proposal.status, proposal.finished_at = AlignmentStatus.DONE, timezone.now()
    proposal.save()
    return proposal
