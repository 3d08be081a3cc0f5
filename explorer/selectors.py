"""Reads that feed the trace list and the trace page: a trace with what judges and people said.

These pages are composed from every stage, so they live above the pipeline and read judges'
and reviews' models directly; traces/selectors.py keeps what is a trace's own.
"""

from __future__ import annotations

from django.db.models import Prefetch

from judges.models import Verdict
from reviews.blind import trace_ids_blind_for
from reviews.models import ReviewItem
from traces.filters import TraceFilter
from traces.models import Span, Trace, TraceTag
from traces.selectors import span_citations, trace_rows, traces_visible


def trace_list(user, params):
    """The filtered trace list (a TraceFilter; `.qs` is the queryset), with what rows show."""
    return TraceFilter(params, queryset=traces_visible(user, trace_list_rows(user)))


def trace_list_rows(user=None):
    """Traces with their project, open review items and verdicts, in constant queries.

    Open items and verdicts are prefetched for the listed page only: a count annotated per row
    would run for every matching trace before the sort could stop at one page.
    A trace the user is labelling blind lists no verdict (see `trace_ids_blind_for`)."""
    return trace_rows().prefetch_related(
        Prefetch("tags", queryset=TraceTag.objects.only("trace_id", "name"), to_attr="tag_list"),
        Prefetch(
            "review_items",
            queryset=ReviewItem.objects.filter(status="open").only("pk", "trace_id"),
            to_attr="open_review_item_list",
        ),
        Prefetch(
            "verdicts",
            # A session verdict is listed with its session, not on its last trace.
            queryset=Verdict.objects.exclude(trace_id__in=trace_ids_blind_for(user))
            .filter(session__isnull=True)
            .only("pk", "trace_id", "status", "score")
            .order_by("-created_at"),
            to_attr="verdict_list",
        ),
    )


# What the trace page shows of judging when the view is blind: nothing.
TRACE_JUDGING_BLIND = {
    "judgments": [],
    "verdicts": [],
    "review_items": [],
    "red_flags": [],
    "guardrail_blocks": [],
}


def trace_judging(trace: Trace) -> dict:
    """Judgments, verdicts and review items pointing at a trace, through its reverse relations."""
    return {
        # A pairwise pass is about two traces: the pair's review item shows it, not one trace.
        "judgments": list(
            trace.judgments.filter(pair_trace__isnull=True)
            .select_related("rubric_version__rubric", "config", "run")
            .prefetch_related("rubric_version__calibrations")
            .order_by("run_id", "rubric_version_id", "pass_index")
        ),
        "verdicts": list(
            trace.verdicts.select_related("rubric_version__rubric", "config").order_by(
                "-created_at"
            )
        ),
        "review_items": list(
            trace.review_items.select_related("queue", "claimed_by").order_by("-created_at")
        ),
        "red_flags": list(trace.red_flags.select_related("span").order_by("created_at", "pk")),
        # Recorded at runtime under the id the agent exports under, maybe before the trace.
        "guardrail_blocks": list(
            trace.project.guardrail_decisions.filter(
                trace_external_id=trace.external_id, decision="block"
            ).order_by("created_at", "pk")
        ),
    }


def trace_judge_versions(judgments) -> list[dict]:
    """Each judge version (rubric version under a config) that judged the trace, and whether
    its agreement with people has been measured and cleared (calibration status "approved")."""
    versions: dict[tuple[int, int], dict] = {}
    for judgment in judgments:
        key = (judgment.rubric_version_id, judgment.config_id)
        if key in versions:
            continue
        calibration = next(
            (c for c in judgment.rubric_version.calibrations.all() if c.config_id == key[1]), None
        )
        versions[key] = {
            "rubric_version": judgment.rubric_version,
            "config": judgment.config,
            "online": judgment.run.online,
            "calibrated": calibration is not None and calibration.status == "approved",
        }
    return list(versions.values())


def trace_judgment_rows(judgments, spans: list[Span]) -> list[tuple]:
    """(judgment, its citations) for the trace page's judging table."""
    return [(judgment, span_citations(judgment.cited_spans, spans)) for judgment in judgments]


def trace_cited_span_ids(judgments, red_flags=(), spans: list[Span] = ()) -> set[str]:
    """Span ids the judges cited or a red flag fired on, to highlight them in the tree."""
    cited: set[str] = {flag.span.span_id for flag in red_flags if flag.span_id}
    for judgment in judgments:
        cited.update(c["span_id"] for c in span_citations(judgment.cited_spans, spans))
    cited.discard("")
    return cited
