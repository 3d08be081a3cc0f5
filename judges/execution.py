"""One judge pass, end to end: claim, render, ask (or reuse an identical answer), store, reconcile.

Idempotent through state: a pass is claimed by a conditional update, so a redelivered or
duplicated task finds it taken or finished and returns; a pass whose worker died is taken over
once its lease runs out.
"""

import random
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from judges.citations import citations_resolve
from judges.costs import call_cost_usd
from judges.models import (
    JudgeRunStatus,
    Judgment,
    JudgmentStatus,
    ParseStatus,
    RubricVersion,
)
from judges.pairwise import pairwise_prompt_render, pairwise_reply_parse
from judges.pairwise_verdicts import pair_passes_locked, pairwise_reconcile
from judges.parsing import reply_parse
from judges.pass_rows import (
    cached_reply_text,
    judge_run_finish_if_done,
    judgment_claim_and_load,
    judgment_store,
    passes_locked,
    trace_spans_ordered,
)
from judges.prompts import prompt_render
from judges.providers import (
    provider_call,
    provider_identity,
    rate_limit_scope,
    request_params,
)
from judges.providers.common import ProviderReply, request_hash
from judges.providers.errors import (
    ProviderError,
    ProviderPermanentError,
    ProviderTransientError,
)
from judges.ratelimit import RateLimited, rate_limit_acquire
from judges.reconcile import judgment_reconcile
from judges.request_leases import (
    REQUEST_SHARE_WAIT_SECONDS,
    request_lease_release,
    request_lease_take,
)
from judges.session_prompts import session_prompt_render, session_span_ids_and_names
from judges.template_sandbox import TemplateBoundExceeded
from traces.models import Span, Trace
from traces.reading import citation_names, traces_merged_members

CHARS_PER_TOKEN = 4
VERSIONS_KEPT = 256
versions_loaded: dict[int, RubricVersion] = {}
UNFINISHED_STATES = (JudgmentStatus.PENDING, JudgmentStatus.RUNNING)


@dataclass(frozen=True)
class PassOutcome:
    state: str  # skipped | done | failed | cancelled | retry
    retry_in: float | None = None


def _lease() -> timedelta:
    return timedelta(seconds=settings.JUDGE_CLAIM_LEASE_SECONDS)


def rubric_version_of(version_id: int) -> RubricVersion:
    """A rubric version with its rubric, loaded once per worker process: a version never
    changes once saved (editing a rubric saves the next version)."""
    version = versions_loaded.get(version_id)
    if version is None:
        version = RubricVersion.objects.select_related("rubric").get(pk=version_id)
        if len(versions_loaded) >= VERSIONS_KEPT:
            versions_loaded.clear()
        versions_loaded[version_id] = version
    return version


def retry_delay(attempt: int, exc: Exception | None = None) -> float:
    """Exponential backoff with jitter, capped; never sooner than the provider's retry-after."""
    ceiling = min(settings.JUDGE_RETRY_MAX_SECONDS, settings.JUDGE_RETRY_BASE_SECONDS * 2**attempt)
    delay = random.uniform(ceiling / 2, ceiling)
    hint = exc.retry_after if isinstance(exc, ProviderError) else None
    if hint:
        delay = max(delay, min(hint, settings.JUDGE_RETRY_MAX_SECONDS))
    return delay


def _locked_passes(judgment: Judgment) -> list[Judgment]:
    # The trace and version rows are the caller's.
    passes = passes_locked(judgment.trace_id, judgment.run_id)
    for locked in passes:
        locked.trace = judgment.trace
        locked.rubric_version = judgment.rubric_version
    return passes


def _finish(judgment: Judgment, spans: list[Span] | None = None, **fields) -> bool:
    """Store the final state of a running pass and reconcile its trace (or its pair), in one
    transaction. `spans`, the trace's spans as this pass loaded them, save loading them again
    for the red-flag check."""
    paired = judgment.pair_trace_id is not None
    with transaction.atomic():
        passes = pair_passes_locked(judgment) if paired else _locked_passes(judgment)
        current = next((p for p in passes if p.pk == judgment.pk), None)
        if current is None or current.status != JudgmentStatus.RUNNING:
            return False
        fields.setdefault("completed_at", timezone.now())
        fields["lease_until"] = None
        for name, value in fields.items():
            setattr(current, name, value)
        judgment_store(current, list(fields))
        if paired:
            verdict = pairwise_reconcile(passes, judgment.run, judgment.config)
        else:
            verdict = judgment_reconcile(passes, judgment.run, judgment.config, spans=spans)
    if verdict is not None:
        # Only the last pass of a trace can be the last pass of the run.
        judge_run_finish_if_done(judgment.run_id)
    return True


def judgment_complete(
    judgment: Judgment,
    reply: ProviderReply,
    digest: str,
    *,
    served_from_cache: bool = False,
    batch: bool = False,
    span_names: list[str] | None = None,
    spans: list[Span] | None = None,
) -> PassOutcome:
    """Parse a reply, store it with its usage and cost, and reconcile. `spans` (a trace's) or
    `span_names` (a session's), from the request's render, save loading them again."""
    cost = (
        0
        if served_from_cache
        else call_cost_usd(
            judgment.config.model,
            input_tokens=reply.input_tokens,
            output_tokens=reply.output_tokens,
            cache_read_tokens=reply.cache_read_tokens,
            cache_write_tokens=reply.cache_write_tokens,
            batch=batch,
        )
    )
    usage = {
        "raw_response": reply.text,
        "input_tokens": reply.input_tokens,
        "output_tokens": reply.output_tokens,
        "cache_read_tokens": reply.cache_read_tokens,
        "cache_write_tokens": reply.cache_write_tokens,
        "cost_usd": cost,
        "latency_ms": reply.latency_ms,
        "request_hash": digest,
        "served_from_cache": served_from_cache,
    }
    if judgment.pair_trace_id is not None:
        paired = pairwise_reply_parse(reply.text, judgment.rubric_version, judgment.pass_index)
        stored = _finish(
            judgment,
            status=JudgmentStatus.DONE,
            score=paired.score,
            explanation=paired.explanation,
            criteria_results=paired.answers,
            parse_status=paired.status,
            error=paired.error,
            **usage,
        )
        return PassOutcome("done" if stored else "skipped")
    if spans is None and judgment.session_id:
        span_refs = session_span_ids_and_names(judgment.session_id)
    else:
        loaded = (
            spans if spans is not None else list(judgment.trace.spans.order_by("position", "pk"))
        )
        span_refs = citation_names(loaded, traces_merged_members([judgment.trace]))
    if span_names is None:
        span_names = [name for _, name in span_refs]
    parsed = reply_parse(reply.text, judgment.rubric_version, span_names)
    settling = [r["span"] for r in parsed.criteria_results if r.get("span")]
    cited = citations_resolve(parsed.explanation, settling, span_refs)
    stored = _finish(
        judgment,
        spans,
        status=JudgmentStatus.DONE,
        score=parsed.score,
        explanation=parsed.explanation,
        cited_spans=cited,
        criteria_results=parsed.criteria_results,
        parse_status=parsed.status,
        error=parsed.error,
        **usage,
    )
    return PassOutcome("done" if stored else "skipped")


def judgment_fail(judgment: Judgment, error: str, digest: str = "") -> PassOutcome:
    """Give up on a pass: it is stored as a failed call and its trace goes to review."""
    stored = _finish(
        judgment,
        status=JudgmentStatus.FAILED,
        parse_status=ParseStatus.CALL_FAILED,
        error=error[:2000],
        attempts=judgment.attempts + 1,
        request_hash=digest,
    )
    return PassOutcome("failed" if stored else "skipped")


def judgment_retry_or_fail(
    judgment: Judgment, exc: ProviderTransientError, digest: str
) -> PassOutcome:
    """A transient error: release the pass for a later attempt, or fail it past the cap."""
    attempts = judgment.attempts + 1
    error = str(exc)  # the SDK's name for it, then its message
    if attempts > settings.JUDGE_MAX_RETRIES:
        return judgment_fail(judgment, f"gave up after {attempts} attempts; last: {error}", digest)
    delay = retry_delay(attempts, exc)
    Judgment.objects.filter(pk=judgment.pk, status=JudgmentStatus.RUNNING).update(
        status=JudgmentStatus.PENDING,
        attempts=attempts,
        error=error[:2000],
        # The stale sweep leaves it alone until the retry has had its chance.
        lease_until=timezone.now() + timedelta(seconds=delay) + _lease(),
    )
    return PassOutcome("retry", retry_in=delay)


def cached_reply(digest: str, judgment_id: int) -> ProviderReply | None:
    """An identical earlier request's reply, reused without a call (and without its cost)."""
    text = cached_reply_text(digest, judgment_id)
    return None if text is None else ProviderReply(text, 0, 0, 0, 0, 0)


@dataclass(frozen=True)
class PassRequest:
    """A pass's request body and its hash, with what the render loaded that the reply needs:
    the names of the spans it showed (the parser cites spans by name) and, for a trace, the
    spans themselves (citations resolve to their ids; the red-flag check reads them)."""

    params: dict
    digest: str
    span_names: list[str]
    spans: list[Span] | None


def judgment_request(judgment: Judgment) -> PassRequest:
    """The request of one pass, rendered from its rubric version and trace (or session)."""
    spans = None
    if judgment.pair_trace_id is not None:
        spans = trace_spans_ordered(judgment.trace)
        pair = Trace.objects.get(pk=judgment.pair_trace_id)
        prompt = pairwise_prompt_render(
            judgment.rubric_version,
            judgment.trace,
            pair,
            judgment.pass_index,
            spans=spans,
            pair_spans=trace_spans_ordered(pair),
        )
        spans = None
    elif judgment.session_id:
        prompt = session_prompt_render(judgment.rubric_version, judgment.session)
    else:
        spans = trace_spans_ordered(judgment.trace)
        prompt = prompt_render(judgment.rubric_version, judgment.trace, spans=spans)
    params = request_params(prompt, judgment.config)
    digest = request_hash(
        params, provider=provider_identity(judgment.config), pass_index=judgment.pass_index
    )
    return PassRequest(params, digest, list(prompt.span_names), spans)


def judgment_execute(judgment_id: int) -> PassOutcome:
    """Run one pass. Returns what happened; `retry` carries the delay before the next try."""
    judgment = judgment_claim_and_load(judgment_id)
    if judgment is None:
        return PassOutcome("skipped")
    judgment.rubric_version = rubric_version_of(judgment.rubric_version_id)
    try:
        request = judgment_request(judgment)
    except TemplateBoundExceeded as exc:
        return judgment_fail(judgment, f"The rubric template hit its bound on this trace: {exc}")
    except Exception as exc:  # noqa: BLE001 - a template that fails here fails on every retry
        return judgment_fail(judgment, f"The rubric template failed on this trace: {exc}")
    digest = request.digest
    if not request_lease_take(digest, judgment.pk):
        # An identical request is being asked right now: wait for its answer, reused below.
        return _pass_wait(judgment, REQUEST_SHARE_WAIT_SECONDS + random.uniform(0, 1))
    try:
        # Looked up under the lease: a holder stores its answer before it releases the lease,
        # so an answer stored between a look-up and taking the lease is not asked for again.
        cached = cached_reply(digest, judgment.pk)
        if cached is not None:
            return judgment_complete(
                judgment,
                cached,
                digest,
                served_from_cache=True,
                span_names=request.span_names,
                spans=request.spans,
            )
        return _provider_ask(judgment, request)
    finally:
        request_lease_release(digest, judgment.pk)


def _pass_wait(judgment: Judgment, seconds: float) -> PassOutcome:
    """Give the pass back for a later try without counting an attempt."""
    Judgment.objects.filter(pk=judgment.pk, status=JudgmentStatus.RUNNING).update(
        status=JudgmentStatus.PENDING,
        lease_until=timezone.now() + timedelta(seconds=seconds) + _lease(),
    )
    return PassOutcome("retry", retry_in=seconds)


def _provider_ask(judgment: Judgment, request: PassRequest) -> PassOutcome:
    params, digest = request.params, request.digest
    estimated_tokens = sum(len(str(part)) for part in params.values()) // CHARS_PER_TOKEN
    if getattr(connection, "pool", None) is not None and not connection.in_atomic_block:
        # Back to the pool while the limiter waits and the provider answers; the next query
        # reopens. A pass holds a connection only while it queries, so a pool of a few
        # connections serves a worker with a thousand passes in flight.
        connection.close()
    try:
        rate_limit_acquire(
            rate_limit_scope(judgment.config), estimated_tokens + judgment.config.max_tokens
        )
    except RateLimited as exc:
        # Our own limit, not a provider error: no attempt is counted.
        return _pass_wait(judgment, exc.wait_seconds + random.uniform(0, 5))
    try:
        reply = provider_call(judgment.config, params)
    except ProviderTransientError as exc:
        return judgment_retry_or_fail(judgment, exc, digest)
    except ProviderPermanentError as exc:
        # Bad request, auth, not found: the same call would fail again.
        return judgment_fail(judgment, str(exc), digest)
    return judgment_complete(
        judgment, reply, digest, span_names=request.span_names, spans=request.spans
    )


def judgments_stale(limit: int = 1000) -> list[int]:
    """Passes whose worker died or whose message was lost, released to be enqueued again."""
    now = timezone.now()
    lease = _lease()
    stale = (
        Judgment.objects.filter(
            status__in=UNFINISHED_STATES,
            run__status=JudgeRunStatus.RUNNING,
            provider_batch_id="",
        )
        .filter(Q(lease_until__lt=now) | Q(lease_until__isnull=True, created_at__lt=now - lease))
        .values_list("pk", flat=True)
        .order_by("pk")[:limit]
    )
    ids = list(stale)
    released = []
    for judgment_id in ids:
        # Conditional per row: a pass finished meanwhile is not touched.
        if (
            Judgment.objects.filter(pk=judgment_id, status__in=UNFINISHED_STATES)
            .filter(Q(lease_until__lt=now) | Q(lease_until__isnull=True))
            .update(status=JudgmentStatus.PENDING, lease_until=now + lease)
        ):
            released.append(judgment_id)
    return released
