"""Join a trial to its trace through its calls, when the trace came without the trial's tags.

An instrumented agent sends a W3C `traceparent` header with each tool call; the world records
its trace id (golden/worlds/traceparent.py). A trial no tagged trace reached takes the trace
its calls name, when they name exactly one and no other trial of the run holds it.
"""

from __future__ import annotations

from golden.models import EvalRun, EvalTrial, ToolWorldCall
from traces.models import Trace


def trials_join_by_traceparent(run: EvalRun) -> int:
    """Attach traces named by the calls' traceparent; returns how many trials were joined."""
    named: dict[int, set[str]] = {}
    for trial_id, trace_id in (
        ToolWorldCall.objects.filter(trial__eval_run=run, trial__trace__isnull=True)
        .exclude(trace_id="")
        .values_list("trial_id", "trace_id")
    ):
        named.setdefault(trial_id, set()).add(trace_id)
    single = {trial_id: ids.pop() for trial_id, ids in named.items() if len(ids) == 1}
    if not single:
        return 0
    found: dict[str, list[int]] = {}
    for pk, external_id in Trace.objects.filter(external_id__in=set(single.values())).values_list(
        "pk", "external_id"
    ):
        found.setdefault(external_id, []).append(pk)
    # The same trace id in two projects names neither for sure.
    traces = {external_id: pks[0] for external_id, pks in found.items() if len(pks) == 1}
    held = set(EvalTrial.objects.filter(eval_run=run).values_list("trace_id", flat=True))
    joined = 0
    for trial_id, external_id in sorted(single.items()):
        trace_pk = traces.get(external_id)
        if trace_pk is None or trace_pk in held:
            continue
        EvalTrial.objects.filter(pk=trial_id, trace__isnull=True).update(trace_id=trace_pk)
        held.add(trace_pk)
        joined += 1
    return joined
