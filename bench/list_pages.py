"""List pages' server time and query count at 10x and 100x the data, this code against an
earlier commit's, in the same run, on PostgreSQL.

1x is 22,000 traces with 220,000 spans (small ones), plus per 1x: 60% of traces with a verdict,
5% with an open review item, 220 golden examples, 20 eval runs and 20 judge runs. The data are
written with INSERT ... SELECT over generate_series, so 100x (2.2 million traces, 22 million
spans, about 9 GB with indexes) takes minutes; each size grows the same database.

At each size both versions serve every page through Django's test client, each in a process of
its own, taking turns round by round so both meet the same machine load. The earlier commit's
rounds run inside a transaction that drops the indexes this code added, rolled back after each
round, so it meets the schema it had (the index this code replaced stays for both).

    .venv/bin/python bench/list_pages.py [--sizes 10,100] [--before main] [--repeat 15]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from benchdb import database_ensure  # noqa: E402

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/evalsite_scale_lists"
TARGET_MS = 100.0
TRACES_1X = 22_000
SPANS_PER_TRACE = 10
CHUNK = 50_000
# What the earlier commit's schema lacks (dropped while it is measured) and had (kept for both;
# the newer code's planner prefers its own index).
ADDED_INDEXES = (
    "trace_list_newest",
    "trace_project_newest",
    "golden_example_newest",
    "evalrun_newest",
)
REPLACED_INDEXES = (
    'CREATE INDEX IF NOT EXISTS "trace_project_started" '
    'ON "traces_trace" ("project_id", "started_at" DESC)',
)
PAGES = [
    ("traces, default (newest first)", "/traces/"),
    ("traces, one project", "/traces/?project=bench-1"),
    ("traces, page 40", "/traces/?page=40"),
    ("traces, with errors", "/traces/?status=error"),
    ("traces, disputed verdict", "/traces/?verdict=disputed"),
    ("golden examples", "/golden/"),
    ("golden examples, page 40", "/golden/?page=40"),
    ("eval runs", "/golden/evals/"),
    ("judge runs", "/judges/runs/"),
]


def tree_at(ref: str) -> Path:
    """The repository as it was at `ref`, unpacked in a temporary folder."""
    folder = Path(tempfile.mkdtemp(prefix="evalsite-before-"))
    archive = subprocess.run(["git", "archive", ref], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder


def migrate(database_url: str) -> None:
    env = {**os.environ, "DATABASE_URL": database_url, "LOG_LEVEL": "WARNING"}
    env.setdefault("SECRET_KEY", "bench-only")
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)


def fixtures_ensure(conn) -> None:
    """Projects, a rubric version, a judge config, a queue, a dataset version and a user."""
    if conn.execute("SELECT 1 FROM traces_project WHERE slug = 'bench-1'").fetchone():
        return
    conn.execute(
        "INSERT INTO traces_project (name, slug, created_at, tool_error_text_detection, "
        "tool_error_markers, route_thumbs_down_to_review) SELECT 'Bench ' || n, 'bench-' || n, "
        "now(), true, '[]', false FROM generate_series(1, 3) n"
    )
    conn.execute(
        "INSERT INTO judges_rubric (name, description, task_type, created_at, judge_new_traces, "
        "sample_rate) VALUES ('Bench outcome', '', '', now(), false, 0)"
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
        "audit_sample_rate, created_at) VALUES ('Bench default', 0, false, 1, 0, now())"
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


def grow(conn, traces_to: int) -> None:
    """Write traces (and what hangs off them) from the current count up to `traces_to`."""
    have = conn.execute("SELECT coalesce(max(id), 0), count(*) FROM traces_trace").fetchone()
    start_id, count = have
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
                "held_out, completed_at) SELECT "
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
                "n %% 200 = 3, now() FROM generate_series(%s::int, %s::int) n",
                [p1, p2, p3, SPANS_PER_TRACE, low + 1, high],
            )
            first = conn.execute(
                "SELECT min(id), max(id) FROM traces_trace WHERE id > %s", [start_id]
            ).fetchone()
            start_id = first[1]
            conn.execute(
                "INSERT INTO traces_span (trace_id, span_id, parent_span_id, name, kind, "
                "started_at, attributes, status, error_message, tool_name, tool_call_id, model, "
                "input_tokens, output_tokens, cost_usd, position, component) SELECT t.id, "
                "lpad(to_hex(s), 16, '0'), CASE WHEN s = 0 THEN '' ELSE lpad('0', 16, '0') END, "
                "'step', CASE WHEN s = 0 THEN 'agent' ELSE 'tool' END, t.started_at, '{}', 'ok', "
                "'', '', '', '', 0, 0, 0, s, '' FROM traces_trace t, "
                "generate_series(0, %s::int) s WHERE t.id BETWEEN %s AND %s",
                [SPANS_PER_TRACE - 1, first[0], first[1]],
            )
            conn.execute(
                "INSERT INTO judges_judgerun (rubric_version_id, config_id, status, trace_filter, "
                "sample_rate, online, trace_count, created_at) SELECT %s, %s, 'done', '{}', 1, "
                "false, 1100, now() - make_interval(hours => n) FROM generate_series(1, %s::int) n",
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
                "failure_tags, red_flags, held_out, created_at, updated_at, source_trace_id) "
                "SELECT md5(id::text), 'promoted', '', task, task_type, '{}', "
                '\'[{"step": 1, "tool": "get_order", "inputs": {}}]\', \'Refunded.\', \'\', '
                "'[\"wrong_tool\"]', '[]', held_out, "
                "now() - make_interval(mins => (id %% 100000)::int), now(), id "
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


def serve_rounds(code: Path, label: str, before: bool) -> None:
    """In this process: answer "round" with one timed pass over the pages, "queries" with the
    query count of each, until "exit". The earlier commit's rounds run in a transaction that
    drops the indexes it did not have, rolled back at the end of the round (DDL in PostgreSQL
    is transactional; the dropped index is locked only while the round runs)."""
    sys.path.insert(0, str(code))
    os.chdir(code)
    import django

    django.setup()
    from django.db import connection, transaction
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from tests.factories import UserFactory

    annotator = UserFactory(username=f"bench-lists-{label}", roles=["annotator"])
    client = Client()
    client.force_login(annotator)
    for command in sys.stdin:
        command = command.strip()
        if command == "exit":
            break
        result: dict = {}
        with transaction.atomic():
            if before:
                with connection.cursor() as cursor:
                    for name in ADDED_INDEXES:
                        cursor.execute(f'DROP INDEX IF EXISTS "{name}"')
            for name, url in PAGES:
                if command == "queries":
                    with CaptureQueriesContext(connection) as queries:
                        client.get(url)
                    result[name] = [len(queries), blocks_read(connection, queries)]
                else:
                    started = time.perf_counter()
                    response = client.get(url)
                    result[name] = 1000 * (time.perf_counter() - started)
                    assert response.status_code == 200, (url, response.status_code)
            transaction.set_rollback(True)
        print(json.dumps(result), flush=True)


def blocks_read(connection, queries) -> int:
    """Database pages (8 KiB blocks, cached or not) the page's SELECTs touch: a measure of the
    work the data size causes, which the machine's load does not change."""
    total = 0
    with connection.cursor() as cursor:
        for query in queries.captured_queries:
            sql = query["sql"]
            if " FOR SELECT " in sql and sql.startswith("DECLARE"):
                sql = sql[sql.index(" FOR SELECT ") + len(" FOR ") :]
            if not sql.startswith("SELECT"):
                continue
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql)
            plan = cursor.fetchone()[0][0]["Plan"]
            total += plan.get("Shared Hit Blocks", 0) + plan.get("Shared Read Blocks", 0)
    return total


class Version:
    """One version's measuring process, driven a round at a time."""

    def __init__(self, code: Path, label: str, args, before: bool):
        env = {
            **os.environ,
            "DATABASE_URL": args.database_url,
            "DJANGO_SETTINGS_MODULE": "evalsite.settings",
            "EVALSITE_VAR_DIR": tempfile.mkdtemp(prefix="evalsite-lists-var-"),
            "LOG_LEVEL": "WARNING",
            "ALLOWED_HOSTS": "testserver",
            "SECRET_KEY": os.environ.get("SECRET_KEY", "bench-only"),
        }
        env.pop("REDIS_URL", None)
        command = [sys.executable, __file__, "--serve-rounds", str(code), "--label", label]
        self.process = subprocess.Popen(
            command + (["--as-before"] if before else []),
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def ask(self, command: str) -> dict:
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the measuring process ended (exit {self.process.wait()})")
        return json.loads(line)

    def close(self) -> None:
        self.process.stdin.write("exit\n")
        self.process.stdin.close()
        self.process.wait(timeout=60)


def measure_both(before_tree: Path, size: int, args) -> tuple[dict, dict]:
    """Median server time and query count per page for both versions, rounds alternating."""
    versions = {
        "before": Version(before_tree, f"before-{size}", args, before=True),
        "now": Version(ROOT, f"now-{size}", args, before=False),
    }
    try:
        times: dict[str, dict[str, list[float]]] = {name: {} for name in versions}
        for round_index in range(args.repeat + 1):
            order = list(versions) if round_index % 2 else list(reversed(versions))
            for name in order:
                answer = versions[name].ask("round")
                if round_index == 0:
                    continue  # the first round warms connections, caches and templates
                for page, ms in answer.items():
                    times[name].setdefault(page, []).append(ms)
        results = {}
        for name, version in versions.items():
            queries = version.ask("queries")
            results[name] = {
                page: {
                    "median": statistics.median(values),
                    "queries": queries[page][0],
                    "blocks": queries[page][1],
                }
                for page, values in times[name].items()
            }
        return results["before"], results["now"]
    finally:
        for version in versions.values():
            version.close()


def report(size: int, traces: int, spans: int, before: dict, now: dict) -> None:
    load = os.getloadavg()
    print(
        f"\n{size}x: {traces:,} traces, {spans:,} spans; load average {load[0]:.1f} "
        f"{load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores"
    )
    print(
        f"  {'page':<32} {'before ms':>9} {'q':>3} {'blocks':>7} {'now ms':>8} {'q':>3} "
        f"{'blocks':>7} {'before/now':>10}"
    )
    for name, _ in PAGES:
        b, n = before[name], now[name]
        verdict = "ok" if n["median"] < TARGET_MS else "over target"
        print(
            f"  {name:<32} {b['median']:9.1f} {b['queries']:3d} {b['blocks']:7d} "
            f"{n['median']:8.1f} {n['queries']:3d} {n['blocks']:7d} "
            f"{b['median'] / n['median']:9.1f}x  {verdict}"
        )
    print("  (ms: median server time; q: queries; blocks: 8 KiB database pages the queries read)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100", help="multiples of 1x, smallest first")
    parser.add_argument("--before", default="main", help="the earlier commit to compare with")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--database-url", default=DEFAULT_DB)
    parser.add_argument("--serve-rounds", help=argparse.SUPPRESS)
    parser.add_argument("--label", help=argparse.SUPPRESS)
    parser.add_argument("--as-before", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_rounds:
        serve_rounds(Path(args.serve_rounds), args.label, args.as_before)
        return

    import psycopg

    database_ensure(args.database_url)
    migrate(args.database_url)
    before_tree = tree_at(args.before)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", args.before], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    print(f"before = {args.before} ({commit}); target < {TARGET_MS:.0f} ms server time per page")
    with psycopg.connect(args.database_url, autocommit=True) as conn:
        fixtures_ensure(conn)
        for size in (int(s) for s in args.sizes.split(",")):
            grow(conn, size * TRACES_1X)
            for statement in REPLACED_INDEXES:
                conn.execute(statement)
            traces = conn.execute("SELECT count(*) FROM traces_trace").fetchone()[0]
            spans = conn.execute("SELECT count(*) FROM traces_span").fetchone()[0]
            before, now = measure_both(before_tree, size, args)
            report(size, traces, spans, before, now)


if __name__ == "__main__":
    main()
