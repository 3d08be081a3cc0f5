"""PostgreSQL's CPU a OTLP ingest request, statement by statement, read from its backend.

bench/ingest.py gives PostgreSQL's CPU a span as a whole; this says which statement of a
request spends it. The request bodies are bench/ingest.py's (travel-agent traces recorded with
the OpenTelemetry SDK, split into exports of --batch spans, so most requests finish traces the
one before began), stored in this process through traces.ingest.services.ingest_otlp after the
same warm-up and ANALYZE (also as the session table grows, as in
bench/ingest.py). Each statement's cost is the CPU its backend was charged while it ran
(/proc/<backend pid>/schedstat: PostgreSQL must run on this machine); the span COPY and COMMIT
are timed around their calls. With --phases, PostgreSQL's own log_*_stats split the backend's
CPU over some requests into parsing, planning and execution.

    .venv/bin/python bench/ingest_statements.py --traces 1200 --batch 64 [--phases]
"""

import argparse
import os
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.benchdb import django_setup  # noqa: E402
from bench.ingest import (  # noqa: E402
    ANALYZE_SCALE_FACTOR,
    ANALYZE_THRESHOLD_ROWS,
    GROWN,
    WARM_UP_REQUESTS,
    bodies_encode,
    record_spans,
)

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/evalsite_t_statements"
SENDERS = 2  # bench/ingest.py's default: its warm-up stores this many senders' traces
PHASES = ("PARSER", "PARSE ANALYSIS", "REWRITER", "PLANNER", "EXECUTOR")
# Requests whose phases are logged (PostgreSQL reports each as a notice; a few tens suffice).
PHASE_REQUESTS = 40


class BackendClock:
    """CPU nanoseconds the connection's backend has run, and what each statement added."""

    def __init__(self, connection):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            self.path = f"/proc/{cursor.fetchone()[0]}/schedstat"
        self.spent: dict[str, int] = defaultdict(int)
        # PostgreSQL's usage reports (log_*_stats) arrive as notices while a statement runs.
        self.notices: list[tuple[str, str]] = []
        self.phases: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        connection.connection.add_notice_handler(self._noticed)

    def _noticed(self, diagnostic) -> None:
        self.notices.append((diagnostic.message_primary or "", diagnostic.message_detail or ""))

    def now(self) -> int:
        with open(self.path) as stat:
            return int(stat.read().split()[0])

    def charge(self, label: str, call):
        began, reported = self.now(), len(self.notices)
        try:
            return call()
        finally:
            self.spent[label] += self.now() - began
            for title, detail in self.notices[reported:]:
                usage = re.search(r"([\d.]+) s user, ([\d.]+) s system", detail)
                if usage and title.endswith(" STATISTICS"):
                    phase = title.removesuffix(" STATISTICS")
                    self.phases[label][phase] += float(usage[1]) + float(usage[2])


def statement_label(sql: str) -> str:
    return re.sub(r"\s+", " ", sql)[:72]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=1200, help="of 11 spans")
    parser.add_argument("--batch", type=int, default=64, help="spans a request")
    parser.add_argument("--padding", type=int, default=600, help="chars of tool output a span")
    parser.add_argument("--phases", action="store_true", help="split by parse, plan, execute")
    parser.add_argument("--analyze", choices=["once", "growing"], default="growing")
    parser.add_argument(
        "--alternate-unprepared",
        action="store_true",
        help="every other request sends core/prepared_sql.py's statements unprepared; each half"
        " reported apart (the same machine's load for both)",
    )
    parser.add_argument("--database-url", default=DEFAULT_DB)
    parser.add_argument("--var-dir", default="/tmp/evalsite-t-statements")
    args = parser.parse_args()

    django_setup(args.database_url, args.var_dir)
    from django.db import connection

    import traces.ingest.bulk_sql
    from traces.ingest.services import ingest_otlp

    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE traces_trace, traces_session, traces_span CASCADE")
    bodies = bodies_encode(record_spans(args.traces, args.padding, 0), args.batch, "protobuf")
    for sender in range(SENDERS):
        warm = record_spans(WARM_UP_REQUESTS, args.padding, 10**6 + sender)
        for body in bodies_encode(warm, 11, "protobuf"):
            ingest_otlp(body=body, content_type="application/x-protobuf")
    with connection.cursor() as cursor:  # as bench/ingest.py does after its warm-up
        cursor.execute("ANALYZE traces_trace, traces_session, traces_span")

    clock = BackendClock(connection)
    copy_rows = traces.ingest.bulk_sql.rows_copy
    traces.ingest.bulk_sql.rows_copy = lambda *rows: clock.charge(
        "COPY (spans)", lambda: copy_rows(*rows)
    )
    commit = connection.commit  # what transaction.atomic calls at the end of a request
    connection.commit = lambda: clock.charge("COMMIT", commit)

    def charged(execute, sql, params, many, context):
        return clock.charge(statement_label(sql), lambda: execute(sql, params, many, context))

    unprepared = [False]
    if args.alternate_unprepared:
        _unprepared_switch(unprepared)
    halves = {False: (defaultdict(list), []), True: (defaultdict(list), [])}
    phase_start = len(bodies) // 2
    autovacuum = psycopg.connect(args.database_url, autocommit=True)
    with connection.execute_wrapper(charged):
        for index, body in enumerate(bodies):
            if args.phases and index in (phase_start, phase_start + PHASE_REQUESTS):
                _phase_logging(connection, on=index == phase_start)
            if args.analyze == "growing":
                _grown_analyze(autovacuum)
            unprepared[0] = args.alternate_unprepared and index % 2 == 1
            by_statement, totals = halves[unprepared[0]]
            clock.spent.clear()
            began = clock.now()
            ingest_otlp(body=body, content_type="application/x-protobuf")
            totals.append(clock.now() - began)
            for label, spent in clock.spent.items():
                by_statement[label].append(spent)
    for half, (by_statement, totals) in halves.items():
        if totals:
            if args.alternate_unprepared:
                print("unprepared (every other request):" if half else "prepared:")
            _report(args, len(bodies), totals, by_statement)
    if args.phases:
        _phases_report(clock.phases)


def _unprepared_switch(unprepared: list[bool]) -> None:
    """Have prepared cursors send their statements unprepared while unprepared[0] is set."""
    from core.prepared_sql import preparing_cursor_class

    cursor_class = preparing_cursor_class()
    execute = cursor_class.execute

    def switched(self, query, params=None, *, prepare=None, binary=None):
        prepare = False if unprepared[0] else prepare
        return execute(self, query, params, prepare=prepare, binary=binary)

    cursor_class.execute = switched


def _grown_analyze(conn) -> None:
    """ANALYZE the session table when grown past autovacuum's threshold, from another
    connection (its CPU is not the request's)."""
    conn.execute("SELECT pg_stat_clear_snapshot()")
    grown = conn.execute(GROWN, [ANALYZE_THRESHOLD_ROWS, ANALYZE_SCALE_FACTOR]).fetchall()
    if grown:
        conn.execute("ANALYZE " + ", ".join(name for (name,) in grown))


def _phase_logging(connection, on: bool) -> None:
    value = "on" if on else "off"
    with connection.cursor() as cursor:
        cursor.execute(f"SET client_min_messages = {'log' if on else 'notice'}")
        for setting in ("log_parser_stats", "log_planner_stats", "log_executor_stats"):
            cursor.execute(f"SET {setting} = {value}")


def _report(args, all_requests, totals, by_statement) -> None:
    requests = len(totals)
    spans = args.traces * 11 * requests / all_requests
    print(
        f"{requests} requests of {args.batch} spans; PostgreSQL CPU a request: mean "
        f"{statistics.mean(totals) / 1e3:,.0f} us, median {statistics.median(totals) / 1e3:,.0f}"
        f" us; a span {sum(totals) / 1e3 / spans:.1f} us; load {os.getloadavg()[0]:.1f}"
    )
    print("us a request (mean over all requests) | runs | median of its runs | statement")
    unaccounted = sum(totals) - sum(sum(spent) for spent in by_statement.values())
    rows = [(sum(s) / requests, len(s), statistics.median(s), k) for k, s in by_statement.items()]
    rows.append((unaccounted / requests, requests, 0, "(rest: BEGIN, between statements)"))
    for mean, runs, median, label in sorted(rows, reverse=True):
        print(f"{mean / 1e3:8.0f} | {runs:5d} | {median / 1e3:8.0f} | {label}")


def _phases_report(phases: dict[str, dict[str, float]]) -> None:
    """PostgreSQL's usage reports (user + system CPU) by statement and phase, us a request."""
    print(f"by phase, us a request over {PHASE_REQUESTS} requests: " + " | ".join(PHASES).lower())
    total = defaultdict(float)
    for label, spent in sorted(phases.items(), key=lambda item: -sum(item[1].values())):
        figures = [spent[phase] * 1e6 / PHASE_REQUESTS for phase in PHASES]
        print(" | ".join(f"{figure:6.0f}" for figure in figures) + f" | {label}")
        for phase, figure in zip(PHASES, figures, strict=True):
            total[phase] += figure
    print(" | ".join(f"{total[phase]:6.0f}" for phase in PHASES) + " | all statements")


if __name__ == "__main__":
    main()
