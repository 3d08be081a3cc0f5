"""Backfills through the Message Batches API: half price, results when they are ready.

A run whose config says `use_batch_api` submits its pending passes in batches; each batch is
polled until it has ended, then every result is stored and reconciled like a live call. An
errored batch request falls back to a live call for that pass.
"""

from datetime import timedelta

from django.db.models import Q
from django.utils import timezone

from judges.execution import cached_reply, judgment_complete, judgment_request
from judges.models import JudgeRunStatus, Judgment, JudgmentStatus

BATCH_SIZE = 500
# A batch may take up to a day; its passes must not look abandoned meanwhile.
BATCH_LEASE = timedelta(hours=25)


def judge_run_batch_submit(run_id: int) -> tuple[str | None, bool]:
    """Submit up to BATCH_SIZE pending passes of a run. Returns (batch id, more pending)."""
    now = timezone.now()
    candidates = list(
        Judgment.objects.filter(
            run_id=run_id,
            run__status=JudgeRunStatus.RUNNING,
            status=JudgmentStatus.PENDING,
            provider_batch_id="",
        )
        .select_related("trace", "rubric_version", "config", "run")
        .order_by("pk")[:BATCH_SIZE]
    )
    requests, submitted = [], []
    for judgment in candidates:
        claimed = Judgment.objects.filter(pk=judgment.pk, status=JudgmentStatus.PENDING).update(
            status=JudgmentStatus.RUNNING, lease_until=now + BATCH_LEASE
        )
        if not claimed:
            continue
        request = judgment_request(judgment)
        cached = cached_reply(request.digest, judgment.pk)
        if cached is not None:
            judgment_complete(
                judgment,
                cached,
                request.digest,
                served_from_cache=True,
                span_names=request.span_names,
                spans=request.spans,
            )
            continue
        Judgment.objects.filter(pk=judgment.pk).update(request_hash=request.digest)
        requests.append({"custom_id": str(judgment.pk), "params": request.params})
        submitted.append(judgment.pk)
    more = Judgment.objects.filter(
        run_id=run_id, status=JudgmentStatus.PENDING, provider_batch_id=""
    ).exists()
    if not requests:
        return None, more
    from judges.providers.anthropic import batch_create  # loads the SDK

    try:
        batch_id = batch_create(requests)
    except Exception:
        # Nothing was submitted: hand the passes back so the next attempt takes them.
        Judgment.objects.filter(pk__in=submitted).update(
            status=JudgmentStatus.PENDING, lease_until=None
        )
        raise
    Judgment.objects.filter(pk__in=submitted).update(provider_batch_id=batch_id)
    return batch_id, more


def judge_batch_collect(batch_id: str) -> list[int] | None:
    """Store the results of an ended batch. Returns passes to retry live, or None if not ended."""
    from judges.providers.anthropic import batch_results  # loads the SDK

    results = batch_results(batch_id)
    if results is None:
        return None
    retry_live = []
    by_id = {
        j.pk: j
        for j in Judgment.objects.filter(provider_batch_id=batch_id).select_related(
            "trace", "rubric_version", "config", "run"
        )
    }
    for custom_id, reply, error in results:
        judgment = by_id.get(int(custom_id))
        if judgment is None or judgment.status != JudgmentStatus.RUNNING:
            continue
        if reply is not None:
            judgment_complete(judgment, reply, judgment.request_hash, batch=True)
            continue
        released = Judgment.objects.filter(Q(status=JudgmentStatus.RUNNING), pk=judgment.pk).update(
            status=JudgmentStatus.PENDING,
            provider_batch_id="",
            attempts=judgment.attempts + 1,
            error=error,
            lease_until=None,
        )
        if released:
            retry_live.append(judgment.pk)
    return retry_live
