"""The overview benchmark's data: traces of three agents with tool spans, two judge passes
each under six judge versions over twelve weeks, red flags, reviewed items and eval runs."""

import datetime as dt
import random
import time
from decimal import Decimal

from benchdb import bench_rubric_version

BATCH = 5000

TASKS = [
    (
        "travel_booking",
        "Book the cheapest nonstop flight from Lisbon to Berlin on 14 March.",
        ["search_flights", "get_fare_rules", "book_flight"],
    ),
    (
        "customer_support",
        "Order A1042 arrived damaged; refund it to the card on file.",
        ["get_order", "check_refund_policy", "issue_refund"],
    ),
    (
        "coding_agent",
        "Fix the failing test test_parse_dates in utils/test_dates.py.",
        ["run_tests", "read_file", "edit_file"],
    ),
]
FLAG_KINDS = ["prerequisite", "hallucinated_parameter", "loop", "confident_after_failure"]
# How often the second person answers one step away from the first.
SECOND_DISAGREES = 0.12


def fill(n_traces: int, seed: int = 1, first_index: int = 0, recent: bool = False) -> None:
    """Write the data set with bulk inserts; one judged trace gives two judgments.

    `first_index` > 0 adds traces numbered from there to the existing data (no truncation, no new
    eval runs); `recent` stamps them within the last half hour, as a minute of new traffic."""
    from django.contrib.auth.models import User
    from django.db import connection

    from golden.models import DatasetVersion, EvalRun
    from judges.models import JudgeConfig, JudgeRun, Judgment, Verdict
    from metrics.models import RedFlag
    from reviews.models import Annotation, Queue, ReviewItem
    from reviews.services import task_excerpt_of
    from tests.factories import UserFactory
    from traces.models import Project, Session, Span, Trace
    from traces.session_totals import sessions_totals_recount

    rng = random.Random(seed)
    # The agent dashboard's figures draw from a stream of their own: judging data stay the same.
    agent_rng = random.Random(seed + 1)
    # So do the second annotator's disagreements: about one answer in eight.
    second_rng = random.Random(seed + 2)
    models = ["claude-sonnet-4-5", "claude-sonnet-4-5", "claude-haiku-4-5", "gpt-4o"]
    since_id = Trace.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1"
            if first_index
            else "TRUNCATE traces_trace, traces_session, judges_judgerun, "
            "reviews_reviewitem, golden_evalrun, golden_datasetversion CASCADE"
        )
    now = dt.datetime.now(dt.UTC)
    project, _ = Project.objects.get_or_create(slug="bench", defaults={"name": "Bench agents"})
    versions = [
        bench_rubric_version(name, "Judge the trajectory.", score_type, low, high)
        for name, score_type, low, high in [
            ("Bench tool-call accuracy", "binary", 0, 1),
            ("Bench outcome 1-5", "range", 1, 5),
            ("Bench refund policy", "binary", 0, 1),
        ]
    ]
    configs = [
        JudgeConfig.objects.get_or_create(name=f"bench {m}", defaults={"model": m})[0]
        for m in ("claude-sonnet-4-5", "claude-haiku-4-5")
    ]
    runs = [
        JudgeRun.objects.get_or_create(rubric_version=v, config=c)[0]
        for v in versions
        for c in configs
    ]
    queue, _ = Queue.objects.get_or_create(name="Default")
    people = [
        User.objects.filter(username=f"bench-annotator-{i}").first()
        or UserFactory(username=f"bench-annotator-{i}", roles=["annotator"])
        for i in range(6)
    ]

    started = time.perf_counter()
    session_ids = []
    span_minutes = 30 if recent else 12 * 7 * 24 * 60
    for offset in range(first_index, first_index + n_traces, BATCH):
        size = min(BATCH, first_index + n_traces - offset)
        # Conversations of five traces each (batches hold whole conversations).
        sessions = Session.objects.bulk_create(
            [
                Session(project=project, external_id=f"bench-session-{k:07d}")
                for k in range(offset // 5, (offset + size + 4) // 5)
            ]
        )
        traces = []
        for i in range(offset, offset + size):
            task_type, task, _ = TASKS[i % 3]
            if i % 5 == 0 or i == offset:
                conversation_at = now - dt.timedelta(minutes=rng.randrange(0, span_minutes))
            at = min(now, conversation_at + dt.timedelta(minutes=3 * (i % 5)))
            traces.append(
                Trace(
                    project=project,
                    external_id=f"{i:032x}",
                    task=task,
                    task_type=task_type,
                    agent_name="bench-agent",
                    agent_version=f"1.{i % 4}.0",
                    source_format="span_tree",
                    started_at=at,
                    ended_at=at + dt.timedelta(seconds=agent_rng.lognormvariate(2.5, 0.6)),
                    span_count=3,
                    model=models[i % len(models)],
                    input_tokens=(tokens := agent_rng.randint(800, 9000)),
                    output_tokens=tokens // 8,
                    cost_usd=round(tokens * 3e-6 + tokens / 8 * 15e-6, 6),
                    error_count=int(agent_rng.random() < 0.08 + 0.04 * (i % 4)),
                    session=sessions[i // 5 - offset // 5],
                )
            )
        Trace.objects.bulk_create(traces, batch_size=BATCH)
        session_ids += [session.pk for session in sessions]
        spans, judgments, verdicts, flagged = [], [], [], []
        for index, trace in enumerate(traces):
            i = offset + index
            _, _, tools = TASKS[i % 3]
            n_steps = 1 + min(int(rng.expovariate(0.45)), 9)
            for step in range(min(n_steps, 3)):
                tool = tools[step]
                spans.append(
                    Span(
                        trace=trace,
                        span_id=f"{i:012x}{step:04x}",
                        name=tool,
                        kind="tool",
                        tool_name=tool,
                        component=f"tool:{tool}",
                        status="error" if rng.random() < 0.04 else "ok",
                        started_at=trace.started_at,
                        position=step,
                    )
                )
            run = runs[i % len(runs)]
            version = run.rubric_version
            top = 5.0 if version.score_type == "range" else 1.0
            low = 1.0 if version.score_type == "range" else 0.0
            first = float(rng.randint(int(low), int(top)))
            flip = rng.random() < 0.12
            second = (low if first == top else first + 1) if flip else first
            completed = trace.started_at + dt.timedelta(minutes=2)
            # What the two passes and their verdict all belong to.
            judged = dict(trace=trace, rubric_version=version, config=run.config, run=run)
            for pass_index, score in enumerate((first, second)):
                judgments.append(
                    Judgment(
                        **judged,
                        pass_index=pass_index,
                        status="done",
                        score=score,
                        parse_status="ok",
                        input_tokens=2400,
                        output_tokens=180,
                        cache_read_tokens=2000 if pass_index else 0,
                        cost_usd=Decimal("0.009900"),
                        served_from_cache=rng.random() < 0.03,
                        completed_at=completed,
                    )
                )
            verdicts.append(
                Verdict(
                    **judged,
                    status="disputed" if flip else "agreed",
                    score=None if flip else first,
                )
            )
            if rng.random() < 0.1:
                flagged.append(trace)
        Span.objects.bulk_create(spans, batch_size=BATCH)
        Judgment.objects.bulk_create(judgments, batch_size=BATCH)
        Verdict.objects.bulk_create(verdicts, batch_size=BATCH)
        spans_by_trace = {s.trace_id: s for s in spans if s.position == 1}
        RedFlag.objects.bulk_create(
            [
                RedFlag(trace=t, span=spans_by_trace.get(t.pk), kind=rng.choice(FLAG_KINDS))
                for t in flagged
            ],
            batch_size=BATCH,
        )
        # Backdate verdicts and judgments to their trace so weekly charts span twelve weeks.
        items, annotations = [], []
        trace_by_id = {trace.pk: trace for trace in traces}
        for verdict in verdicts:
            if rng.random() < 0.06:
                human = verdict.score if verdict.score is not None else 1.0
                if rng.random() < 0.15:
                    human = 0.0 if human else 1.0
                items.append(
                    ReviewItem(
                        queue=queue,
                        trace_id=verdict.trace_id,
                        verdict=verdict,
                        rubric_version=verdict.rubric_version,
                        reason="passes_disagree" if verdict.score is None else "audit_sample",
                        status="resolved" if rng.random() < 0.8 else "open",
                        resolved_score=human,
                        task_excerpt=task_excerpt_of(trace_by_id[verdict.trace_id]),
                    )
                )
        ReviewItem.objects.bulk_create(items, batch_size=BATCH)
        for item in items:
            if item.status == "resolved":
                first, second = rng.sample(people, 2)
                score = item.resolved_score
                annotations.append(Annotation(item=item, annotator=first, score=score))
                if second_rng.random() < SECOND_DISAGREES:
                    low = 1.0 if item.rubric_version.score_type == "range" else 0.0
                    score = score - 1 if score > low else score + 1
                annotations.append(Annotation(item=item, annotator=second, score=score))
        Annotation.objects.bulk_create(annotations, batch_size=BATCH)
        print(f"  {offset + size:,} traces written", end="\r", flush=True)
    with connection.cursor() as cursor:
        # A trace is written as it arrives, so its row is as old as its end.
        cursor.execute(
            "UPDATE traces_trace SET created_at = ended_at WHERE id > %s AND ended_at < now()",
            [since_id],
        )
        cursor.execute(
            "UPDATE judges_verdict v SET created_at = t.started_at + interval '2 minutes' "
            "FROM traces_trace t WHERE t.id = v.trace_id AND t.id > %s",
            [since_id],
        )
        cursor.execute(
            "UPDATE reviews_reviewitem r SET created_at = t.started_at + interval '5 minutes', "
            "resolved_at = CASE WHEN r.status = 'resolved' "
            "THEN t.started_at + interval '7 hours' END "
            "FROM traces_trace t WHERE t.id = r.trace_id AND t.id > %s",
            [since_id],
        )
    # Bulk inserts skip the totals ingest keeps; the session pages list sessions by them.
    for start in range(0, len(session_ids), BATCH):
        sessions_totals_recount(session_ids[start : start + BATCH])
    # The runs finished judging what they hold, as a run's last pass would have said.
    for run in runs:
        JudgeRun.objects.filter(pk=run.pk).update(
            trace_count=Verdict.objects.filter(run=run).count(), status="done", finished_at=now
        )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    if first_index:
        return
    dataset = DatasetVersion.objects.create(name="bench v1", content_hash="0" * 64)
    for index in range(60):
        noop = index % 3 == 0
        outcome = 0.78 + rng.gauss(0, 0.01) + (0 if noop else 0.002 * index)
        EvalRun.objects.create(
            name=f"bench run {index}",
            agent_version=f"1.{index // 15}.0",
            dataset_version=dataset,
            is_noop=noop,
            metrics={
                "overall": {
                    "outcome_score": outcome,
                    "tool_selection_accuracy": min(1.0, outcome + 0.1),
                    "parameter_accuracy": outcome + 0.05,
                    "pass_hat_k": outcome - 0.25,
                }
            },
        )
    print(f"\nfilled in {time.perf_counter() - started:.0f} s")
