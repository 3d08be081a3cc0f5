"""History for `bench/screenshots.py --fill`: the overview's data set (bench/overview_data.py),
golden examples promoted from its traces, some held out, and the topics the periodic build
would have made by now."""

import random

from overview_data import TASKS
from overview_data import fill as overview_fill

# One trace in this many becomes a golden example; one example in HELD_OUT_EVERY is held out.
EXAMPLE_EVERY = 50
HELD_OUT_EVERY = 5
FAILURE_TAGS = ["wrong_tool", "hallucinated_parameter", "premature_termination", "wrong_date"]
# Tags a trace of the history carries (none, one or two), as agents label their runs.
RUN_TAGS = ["production", "canary", "experiment-b", "eu-west", "batch-import"]


def history_fill(n_traces: int, seed: int = 3) -> None:
    from golden.held_out_traces import example_traces, traces_held_out_sync
    from golden.models import ExampleOrigin, GoldenExample
    from insights.topics import topics_build_all
    from traces.models import Trace, TraceTag

    overview_fill(n_traces)
    rng = random.Random(seed)
    tools_of = {task_type: tools for task_type, _, tools in TASKS}
    sources = Trace.objects.filter(project__slug="bench").order_by("pk")[::EXAMPLE_EVERY]
    examples = GoldenExample.objects.bulk_create(
        [
            GoldenExample(
                origin=ExampleOrigin.PROMOTED,
                task=f"{trace.task} (case {index})",
                task_type=trace.task_type,
                reference_trajectory=[
                    {"step": step, "tool": tool, "inputs": {}}
                    for step, tool in enumerate(tools_of[trace.task_type], start=1)
                ],
                expected_outcome="The request is done and the user is told so.",
                failure_tags=rng.sample(FAILURE_TAGS, rng.randint(0, 2)),
                source_trace=trace,
                held_out=index % HELD_OUT_EVERY == 0,
            )
            for index, trace in enumerate(sources)
        ]
    )
    # Bulk inserts send no signals: hold out the traces the held-out examples stand for.
    traces_held_out_sync(example_traces(examples))
    print(f"{len(examples):,} golden examples")
    tags = [
        TraceTag(trace_id=trace_id, name=name)
        for trace_id in Trace.objects.filter(project__slug="bench").values_list("pk", flat=True)
        for name in rng.sample(RUN_TAGS, rng.randint(0, 2))
    ]
    TraceTag.objects.bulk_create(tags, batch_size=5000)
    print(f"{len(tags):,} trace tags")
    topics_build_all()
