"""The list-page benchmark's data: 1x is 22,000 traces with 220,000 small spans in 4,400
sessions, written with INSERT ... SELECT over generate_series (see bench/list_pages.py)."""

import time

TRACES_1X = 22_000
SPANS_PER_TRACE = 10
CHUNK = 50_000


def fixtures_ensure(conn) -> None:
    """Projects, a rubric version, a judge config, a queue, a dataset version and a user."""
    if conn.execute("SELECT 1 FROM traces_project WHERE slug = 'bench-1'").fetchone():
        return
    conn.execute(
        "INSERT INTO traces_project (name, slug, created_at, tool_error_text_detection, "
        "tool_error_markers, route_thumbs_down_to_review, masking_key, log_records_unjoined) "
        "SELECT 'Bench ' || n, 'bench-' || n, now(), true, '[]', false, "
        "md5(random()::text) || md5(random()::text), 0 FROM generate_series(1, 3) n"
    )
    conn.execute(
        "INSERT INTO judges_rubric (name, description, task_type, created_at, judge_new_traces, "
        "sample_rate, judge_idle_sessions, sessions_swept_through_id) "
        "VALUES ('Bench outcome', '', '', now(), false, 0, false, 0)"
    )
    conn.execute(
        "INSERT INTO judges_rubricversion (rubric_id, number, system_prompt, user_template, "
        "evaluation_steps, rubric_text, criteria, score_type, score_min, score_max, "
        "output_format, trace_format, status, note, created_at) SELECT id, 1, 'Judge.', "
        "'{{ trace }}', '[]', '', '[]', 'binary', 0, 1, 'evaluation_summary', 'json', "
        "'approved', '', now() FROM judges_rubric WHERE name = 'Bench outcome'"
    )
    conn.execute(
        "INSERT INTO judges_judgeconfig (name, provider, model, temperature, max_tokens, "
        "passes, tolerance, use_batch_api, base_url) VALUES "
        "('bench', 'anthropic', 'claude-sonnet-4-5', 0, 1024, 2, 0, false, '')"
    )
    conn.execute(
        "INSERT INTO reviews_queue (name, priority, blind, annotators_per_item, "
        "audit_sample_rate, created_at, kind, judge_answers_confirm_gate, judge_assist) "
        "VALUES ('Bench default', 0, false, 1, 0, now(), 'single', false, 'off')"
    )
    conn.execute(
        "INSERT INTO golden_datasetversion (name, note, content_hash, example_count, "
        "created_at, held_out_count) VALUES ('bench v1', '', repeat('0', 64), 0, now(), 0)"
    )


def span_indexes_drop(conn) -> list[str]:
    """Drop the span table's indexes and unique constraints but its key; return how to rebuild."""
    constraints = conn.execute(
        "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE conrelid = 'traces_span'::regclass AND contype = 'u'"
    ).fetchall()
    indexes = conn.execute(
        "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'traces_span' "
        "AND indexname NOT IN (SELECT conname FROM pg_constraint "
        "WHERE conrelid = 'traces_span'::regclass)"
    ).fetchall()
    for name, _ in constraints:
        conn.execute(f'ALTER TABLE traces_span DROP CONSTRAINT "{name}"')
    for name, _ in indexes:
        conn.execute(f'DROP INDEX "{name}"')
    return [f'ALTER TABLE traces_span ADD CONSTRAINT "{n}" {d}' for n, d in constraints] + [
        d for _, d in indexes
    ]


# Sessions group traces of one project by id / 15: about five traces each, with their totals
# written as ingest keeps them; a group split over two chunks adds the second part.
SESSION_KEY = "'bench-' || (t.id / 15) || '-' || t.project_id"


def sessions_write(conn, low: int, high: int) -> None:
    """Sessions for the traces with ids low..high, their totals, and the traces' session ids."""
    conn.execute(
        "INSERT INTO traces_session AS s (project_id, external_id, created_at, trace_count, "
        "error_count, input_tokens, output_tokens, cost_usd, first_started_at, last_trace_at, "
        "first_task, held_out_trace_count, last_received_at) SELECT t.project_id, "
        f"{SESSION_KEY}, now(), count(*), sum(t.error_count), sum(t.input_tokens), "
        "sum(t.output_tokens), sum(t.cost_usd), min(t.started_at), "
        "max(coalesce(t.ended_at, t.started_at)), left((array_agg(t.task ORDER BY "
        "t.started_at NULLS LAST, t.id))[1], 200), count(*) FILTER (WHERE t.held_out), now() "
        "FROM traces_trace t WHERE t.id BETWEEN %s AND %s GROUP BY t.project_id, t.id / 15 "
        "ON CONFLICT (project_id, external_id) DO UPDATE SET "
        "trace_count = s.trace_count + EXCLUDED.trace_count, "
        "error_count = s.error_count + EXCLUDED.error_count, "
        "input_tokens = s.input_tokens + EXCLUDED.input_tokens, "
        "output_tokens = s.output_tokens + EXCLUDED.output_tokens, "
        "cost_usd = s.cost_usd + EXCLUDED.cost_usd, "
        "held_out_trace_count = s.held_out_trace_count + EXCLUDED.held_out_trace_count, "
        "first_started_at = LEAST(s.first_started_at, EXCLUDED.first_started_at), "
        "last_trace_at = GREATEST(s.last_trace_at, EXCLUDED.last_trace_at)",
        [low, high],
    )
    conn.execute(
        "UPDATE traces_trace t SET session_id = s.id FROM traces_session s "
        f"WHERE t.id BETWEEN %s AND %s AND s.project_id = t.project_id "
        f"AND s.external_id = {SESSION_KEY}",
        [low, high],
    )


def grow(conn, traces_to: int) -> None:
    """Write traces (and what hangs off them) from the current count up to `traces_to`."""
    have = conn.execute("SELECT coalesce(max(id), 0), count(*) FROM traces_trace").fetchone()
    start_id, count = have
    if count >= traces_to:
        return
    ids = {
        "project": [r[0] for r in conn.execute("SELECT id FROM traces_project ORDER BY id")],
        "version": conn.execute("SELECT id FROM judges_rubricversion LIMIT 1").fetchone()[0],
        "config": conn.execute("SELECT id FROM judges_judgeconfig LIMIT 1").fetchone()[0],
        "queue": conn.execute("SELECT id FROM reviews_queue LIMIT 1").fetchone()[0],
        "dataset": conn.execute("SELECT id FROM golden_datasetversion LIMIT 1").fetchone()[0],
    }
    p1, p2, p3 = ids["project"]
    started = time.perf_counter()
    # Building the span indexes once after a big fill is far cheaper than row by row.
    rebuild = span_indexes_drop(conn) if traces_to - count > 10 * CHUNK else []
    for low in range(count, traces_to, CHUNK):
        high = min(low + CHUNK, traces_to)
        with conn.transaction():
            # Started times spread over a year; one in 500 traces never got a start time.
            conn.execute(
                "INSERT INTO traces_trace (project_id, external_id, task, final_answer, "
                "stop_reason, task_type, agent_name, agent_version, model, source_format, "
                "context, attributes, root_span_id, started_at, ended_at, span_count, "
                "error_count, input_tokens, output_tokens, cost_usd, content_hash, created_at, "
                "held_out, completed_at, spans_day) SELECT "
                "(ARRAY[%s, %s, %s])[1 + n %% 3], lpad(to_hex(n), 32, '0'), "
                "(ARRAY['Refund order A' || n || ' to the card on file.', "
                "'Book the cheapest nonstop flight, ref ' || n || '.', "
                "'Fix the failing test test_parse_dates, ticket ' || n || '.'])[1 + n %% 3], "
                "'Done.', 'end_turn', (ARRAY['customer_support', 'travel_booking', "
                "'coding_agent'])[1 + n %% 3], 'bench-agent', '1.' || (n %% 4) || '.0', "
                "'claude-sonnet-4-5', 'otlp', '{}', '{}', lpad(to_hex(n), 16, '0'), "
                "CASE WHEN n %% 500 = 7 THEN NULL ELSE "
                "now() - make_interval(secs => (hashtext(n::text) & 31535999)) END, "
                "CASE WHEN n %% 500 = 7 THEN NULL ELSE "
                "now() - make_interval(secs => (hashtext(n::text) & 31535999) - 20) END, "
                "%s, CASE WHEN n %% 25 = 0 THEN 1 ELSE 0 END, 2400, 180, 0.0099, '', now(), "
                "n %% 200 = 3, now(), (now() AT TIME ZONE 'UTC')::date "
                "FROM generate_series(%s::int, %s::int) n",
                [p1, p2, p3, SPANS_PER_TRACE, low + 1, high],
            )
            first = conn.execute(
                "SELECT min(id), max(id) FROM traces_trace WHERE id > %s", [start_id]
            ).fetchone()
            start_id = first[1]
            sessions_write(conn, first[0], first[1])
            conn.execute(
                "INSERT INTO traces_span (trace_id, span_id, parent_span_id, name, kind, "
                "started_at, attributes, status, error_message, tool_name, tool_call_id, model, "
                "input_tokens, output_tokens, cost_usd, position, component, trace_day) "
                "SELECT t.id, "
                "lpad(to_hex(s), 16, '0'), CASE WHEN s = 0 THEN '' ELSE lpad('0', 16, '0') END, "
                "'step', CASE WHEN s = 0 THEN 'agent' ELSE 'tool' END, t.started_at, '{}', 'ok', "
                "'', '', '', '', 0, 0, 0, s, '', t.spans_day FROM traces_trace t, "
                "generate_series(0, %s::int) s WHERE t.id BETWEEN %s AND %s",
                [SPANS_PER_TRACE - 1, first[0], first[1]],
            )
            conn.execute(
                "INSERT INTO judges_judgerun (rubric_version_id, config_id, status, trace_filter, "
                "sample_rate, online, scope, trace_count, created_at) SELECT %s, %s, 'done', "
                "'{}', 1, false, 'trace', 1100, now() - make_interval(hours => n) "
                "FROM generate_series(1, %s::int) n",
                [ids["version"], ids["config"], (high - low) // 1100],
            )
            run = conn.execute("SELECT max(id) FROM judges_judgerun").fetchone()[0]
            conn.execute(
                "INSERT INTO judges_verdict (trace_id, rubric_version_id, config_id, run_id, "
                "status, score, reason, stale, created_at) SELECT id, %s, %s, %s, "
                "CASE WHEN id %% 8 = 0 THEN 'disputed' ELSE 'agreed' END, "
                "CASE WHEN id %% 8 = 0 THEN NULL ELSE 1 END, '', false, now() "
                "FROM traces_trace WHERE id BETWEEN %s AND %s AND id %% 5 < 3",
                [ids["version"], ids["config"], run, first[0], first[1]],
            )
            conn.execute(
                "INSERT INTO reviews_reviewitem (queue_id, trace_id, reason, detail, status, "
                "priority, needs_curator, created_at, task_excerpt) SELECT %s, id, "
                "'passes_disagree', '', 'open', 0, false, now(), left(task, 200) "
                "FROM traces_trace WHERE id BETWEEN %s AND %s AND id %% 20 = 0",
                [ids["queue"], first[0], first[1]],
            )
            conn.execute(
                "INSERT INTO golden_goldenexample (key, origin, adversarial_kind, task, "
                "task_type, context, reference_trajectory, expected_outcome, expected_behavior, "
                "failure_tags, red_flags, held_out, draft, created_at, updated_at, "
                "source_trace_id, tool_world) "
                "SELECT md5(id::text), 'promoted', '', task, task_type, '{}', "
                '\'[{"step": 1, "tool": "get_order", "inputs": {}}]\', \'Refunded.\', \'\', '
                "'[\"wrong_tool\"]', '[]', held_out, false, "
                "now() - make_interval(mins => (id %% 100000)::int), now(), id, '{}' "
                "FROM traces_trace WHERE id BETWEEN %s AND %s AND id %% 100 = 3",
                [first[0], first[1]],
            )
            conn.execute(
                "INSERT INTO golden_evalrun (name, agent_name, agent_version, dataset_version_id, "
                "trials_per_task, is_noop, metrics, created_at) SELECT 'bench run ' || n || '-' "
                "|| %s, 'bench-agent', '1.' || (n %% 4) || '.0', %s, 3, n %% 3 = 0, "
                '\'{"overall": {"outcome_score": 0.8, "tool_selection_accuracy": 0.9, '
                '"parameter_accuracy": 0.85, "pass_hat_k": 0.6, "red_flag_rate": 0.1}}\', '
                "now() - make_interval(hours => n) FROM generate_series(1, %s::int) n",
                [high, ids["dataset"], (high - low) // 1100],
            )
        print(f"  {high:,} traces written", end="\r", flush=True)
    for statement in rebuild:
        conn.execute(statement)
    conn.execute("VACUUM ANALYZE")
    print(f"  grew to {traces_to:,} traces in {time.perf_counter() - started:.0f} s")
