"""Reconciliation: when the last pass of a trace lands, write its Verdict.

Called inside the transaction that holds every pass row of (trace, run) locked, so two passes
finishing at once cannot both write a verdict, and the review hand-off is sent in the same
transaction as the verdict it is about.
"""

import logging

from judges.models import (
    JudgeConfig,
    JudgeRun,
    Judgment,
    JudgmentStatus,
    ParseStatus,
    Verdict,
    VerdictStatus,
)
from judges.pass_rows import verdict_written_id
from judges.signals import verdict_needs_review, verdict_written
from judges.verdict_reasons import VerdictReason
from metrics.models import RedFlag
from traces.models import Trace

logger = logging.getLogger(__name__)

UNFINISHED = (JudgmentStatus.PENDING, JudgmentStatus.RUNNING)


def _criteria_flipped(passes: list[Judgment]) -> list[str]:
    """Questions answered `met` by one pass and not by another."""
    answers: dict[str, set[bool]] = {}
    for judgment in passes:
        for result in judgment.criteria_results or []:
            answers.setdefault(result.get("question", ""), set()).add(bool(result.get("met")))
    return [question for question, seen in answers.items() if len(seen) > 1]


ALWAYS_REVIEWED = (RedFlag.Kind.JUDGE_INJECTION, RedFlag.Kind.UNCLEAN_STOP)


def _red_flags(trace, spans=None) -> list:
    from metrics.redflag_store import red_flags_ensure

    try:
        return red_flags_ensure(trace, spans)
    except Exception:
        # A broken check must not block the verdict; the verdict is written without it.
        logger.exception("red flag check failed for trace %s", trace.pk)
        return []


def _red_flags_of(judgment: Judgment, spans=None) -> list:
    """The red flags of the judged trace, or of every trace of the judged session."""
    if not judgment.session_id:
        return _red_flags(judgment.trace, spans)
    traces = Trace.objects.filter(session_id=judgment.session_id)
    return [flag for trace in traces.order_by("started_at", "pk") for flag in _red_flags(trace)]


def _disputes(finished: list[Judgment], usable: list[Judgment], tolerance: float):
    """The reasons people must look at a trace's passes, each with its detail lines: calls
    that failed, replies that were unusable, criteria that flipped, scores too far apart."""
    reasons: list[str] = []
    details: list[str] = []
    failed = [p for p in finished if p.status == JudgmentStatus.FAILED]
    unusable = [
        p
        for p in finished
        if p.status == JudgmentStatus.DONE
        and p.parse_status in (ParseStatus.UNPARSEABLE, ParseStatus.OUT_OF_RANGE)
    ]
    if failed:
        reasons.append(VerdictReason.CALL_FAILED)
        details += [f"pass {p.pass_index + 1} call failed: {p.error}" for p in failed]
    if unusable:
        reasons.append(VerdictReason.UNPARSEABLE)
        details += [f"pass {p.pass_index + 1} {p.parse_status}: {p.error}" for p in unusable]
    flipped = _criteria_flipped(usable)
    if flipped:
        reasons.append(VerdictReason.CRITERION_FLIP)
        details += [f"criterion flipped: {question}" for question in flipped]
    elif len(usable) >= 2:
        scores = [p.score for p in usable]
        if max(scores) - min(scores) > tolerance + 1e-9:
            reasons.append(VerdictReason.PASSES_DISAGREE)
            details.append("pass scores " + ", ".join(f"{s:g}" for s in scores))
    return reasons, details


def _flags_against(score: float, first: Judgment, spans=None) -> list:
    """The red flags that contradict an agreed score and so send the trace to people."""
    flags = _red_flags_of(first, spans)
    if not first.rubric_version.score_passes(score):
        # A failing score agrees with most flags; an attempt to steer the judge, or a run
        # cut short (failed maybe for the cut alone), still needs a person.
        flags = [flag for flag in flags if flag.kind in ALWAYS_REVIEWED]
    return flags


def judgment_reconcile(
    passes: list[Judgment],
    run: JudgeRun,
    config: JudgeConfig | None = None,
    spans: list | None = None,
) -> Verdict | None:
    """Write the verdict for one trace of a run once all its passes have finished.

    `passes` are every pass row of (trace, run), locked by the caller; `config` is the run's
    and `spans` the trace's (in trace order), when the caller has them loaded. Returns the
    verdict (an existing one when already written), or None while a pass is still
    outstanding.
    """
    if not passes or any(p.status in UNFINISHED for p in passes):
        return None
    if any(p.status == JudgmentStatus.CANCELLED for p in passes):
        # A cancelled run leaves traces half judged; one pass is not a verdict.
        return None
    first = passes[0]
    written = verdict_written_id(first.trace_id, run.pk)
    if written is not None:
        return Verdict.objects.get(pk=written)

    usable = [p for p in passes if p.status == JudgmentStatus.DONE and p.score is not None]
    config = config or run.config
    reasons, details = _disputes(passes, usable, config.tolerance)
    if not usable:
        status, score = VerdictStatus.FAILED, None
    elif reasons:
        status, score = VerdictStatus.DISPUTED, None
    else:
        status = VerdictStatus.AGREED
        score = sum(p.score for p in usable) / len(usable)
        if flags := _flags_against(score, first, spans):
            reasons.append(VerdictReason.RED_FLAG)
            details += [f"red flag {flag.kind}: {flag.detail}" for flag in flags]

    detail = "\n".join(details)
    # The related rows go in as objects, so the hand-offs below read them without a query.
    verdict = Verdict.objects.create(
        trace=first.trace,
        session_id=first.session_id,
        rubric_version=first.rubric_version,
        config=config,
        run=run,
        status=status,
        score=score,
        reason=detail,
    )
    if reasons:
        verdict_needs_review.send(sender=Verdict, verdict=verdict, reasons=reasons, detail=detail)
    # Last before commit: its receivers may lock rows shared by every verdict of the version.
    verdict_written.send(sender=Verdict, verdict=verdict)
    return verdict
