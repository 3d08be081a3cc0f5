"""List pages' server time and query count at 10x and 100x the data, this code against an
earlier commit's, in the same run, on PostgreSQL.

1x is 22,000 traces with 220,000 spans (small ones) in 4,400 sessions, plus per 1x: 60% of
traces with a verdict, 5% with an open review item, 220 golden examples, 20 eval runs and 20
judge runs. The data are written with INSERT ... SELECT over generate_series, so 100x (2.2
million traces, 22 million spans, about 9 GB with indexes) takes a quarter of an hour on two
cores. Each size has a database of its own ("{size}" in --database-url), kept between runs: a
run grows a database only up to its size, so a filled one is measured again at once.

At each size both versions serve every page through Django's test client, each in a process of
its own, taking turns round by round so both meet the same machine load. The earlier commit's
rounds run inside a transaction that drops the indexes this code added, rolled back after each
round, so it meets the schema it had (the index this code replaced stays for both).

    .venv/bin/python bench/list_pages.py [--sizes 10,100] [--before main] [--repeat 15]
        [--before-lacks trace_list_newest,...] [--pages "by ,default"]
        [--database-url postgres://postgres@127.0.0.1:5432/evalsite_lists_{size}x]
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from benchdb import database_ensure  # noqa: E402
from list_data import TRACES_1X, fixtures_ensure, grow  # noqa: E402
from trees import short_commit, tree_at  # noqa: E402

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/evalsite_lists_{size}x"
TARGET_MS = 100.0
# An index the earlier commit's migrations made that this code replaced: made again for both, as
# the newer code's planner prefers its own.
REPLACED_INDEXES = {
    "trace_project_started": 'CREATE INDEX IF NOT EXISTS "trace_project_started" '
    'ON "traces_trace" ("project_id", "started_at" DESC)',
}
# An index's name in a migration: models.Index(..., name="...") or CREATE INDEX in SQL.
INDEX_NAME = re.compile(
    r"Index\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*?(?<!\w)name=['\"](\w+)['\"]"
    r"|CREATE (?:UNIQUE )?INDEX (?:CONCURRENTLY )?(?:IF NOT EXISTS )?\"?(?!IF\b)(\w+)",
    re.S,
)
# The trace list's sorts other than the default (traces.filters.SORT_CHOICES).
SORTS = [
    ("oldest", "started_at"),
    ("spans", "-span_count"),
    ("errors", "-error_count"),
    ("cost", "-cost_usd"),
    ("input tokens", "-input_tokens"),
    ("agent", "agent_name"),
]
PAGES = [
    ("traces, default (newest first)", "/traces/"),
    ("traces, one project", "/traces/?project=bench-1"),
    ("traces, page 40", "/traces/?page=40"),
    ("traces, with errors", "/traces/?status=error"),
    ("traces, disputed verdict", "/traces/?verdict=disputed"),
    ("golden examples", "/golden/"),
    ("golden examples, page 40", "/golden/?page=40"),
    ("eval runs", "/golden/evals/"),
    ("eval runs, page 4", "/golden/evals/?page=4"),
    ("review queue", "/reviews/queues/{queue}/"),
    ("review queue, page 20", "/reviews/queues/{queue}/?page=20"),
    ("judge runs", "/judges/runs/"),
    ("sessions", "/traces/sessions/"),
    ("sessions, one project", "/traces/sessions/?project=bench-1"),
    ("sessions API", "/api/sessions/"),
    ("traces, page 40, sorted by spans", "/traces/?sort=-span_count&page=40"),
    *[
        page
        for name, sort in SORTS
        for page in (
            (f"traces, by {name}", f"/traces/?sort={sort}"),
            (f"traces, by {name}, page 40", f"/traces/?sort={sort}&page=40"),
            (f"traces, one project, by {name}", f"/traces/?project=bench-1&sort={sort}"),
        )
    ],
    ("traces API", "/api/traces/"),
    ("traces API, page 40", "/api/traces/?page=40"),
    ("sessions API, page 40", "/api/sessions/?page=40"),
    ("golden examples API, page 40", "/api/golden/examples/?page=40"),
    ("judge runs API, page 40", "/api/judge-runs/?page=40"),
    ("queue items API, page 20", "/api/reviews/queues/{queue}/items/?page=20"),
    ("scores API, page 40", "/api/scores/?page=40"),
]
# API lists reached at page N: by offset (limit 50) in code from before cursor pages, else by the
# cursor of page N-1's last row; "?page=N" in PAGES above only names N.
API_PER_PAGE = 50


def index_names(tree: Path) -> set[str]:
    """The indexes a tree's migrations make, by name."""
    names = set()
    for path in tree.glob("*/migrations/*.py"):
        for match in INDEX_NAME.finditer(path.read_text()):
            names.add(match.group(1) or match.group(2))
    return names


def migrate(database_url: str) -> None:
    env = {**os.environ, "DATABASE_URL": database_url, "LOG_LEVEL": "WARNING"}
    env.setdefault("SECRET_KEY", "bench-only")
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    # The fill writes today's spans with SQL, so today's partition must be there (on PostgreSQL
    # the hourly retention task makes them ahead).
    ahead = "from traces.span_partitions import span_partitions_create_ahead as a; a()"
    subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", ahead], cwd=ROOT, env=env, check=True
    )


def pages_chosen(names: str) -> list[tuple[str, str]]:
    """PAGES whose name holds one of the comma-separated `names` (all when empty)."""
    wanted = [name for name in names.split(",") if name]
    return [(n, url) for n, url in PAGES if not wanted or any(w in n for w in wanted)]


def serve_rounds(
    code: Path, label: str, before: bool, lacks: tuple[str, ...], chosen: str = ""
) -> None:
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

    annotator = UserFactory(username=f"bench-lists-{label}", roles=["annotator", "curator"])
    client = Client()
    client.force_login(annotator)
    with connection.cursor() as cursor:
        cursor.execute("SELECT min(id) FROM reviews_queue")
        queue_id = cursor.fetchone()[0]
    pages = [(name, url.format(queue=queue_id)) for name, url in pages_chosen(chosen)]
    # Code from before cursor pages (core/keyset.py) reaches page N by offset.
    if before and not (code / "core" / "keyset.py").exists():
        pages = [(name, offset_url(url)) for name, url in pages]
    else:
        pages = [(name, cursor_url(url, annotator)) for name, url in pages]
    for command in sys.stdin:
        command = command.strip()
        if command == "exit":
            break
        result: dict = {}
        with transaction.atomic():
            if before:
                with connection.cursor() as cursor:
                    for name in lacks:
                        cursor.execute(f'DROP INDEX IF EXISTS "{name}"')
            for name, url in pages:
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


def offset_url(url: str) -> str:
    """An API list's page N as the earlier code served it: limit and offset."""
    from urllib.parse import parse_qs, urlsplit

    parts = urlsplit(url)
    if not parts.path.startswith("/api/"):
        return url
    number = int(parse_qs(parts.query).get("page", ["1"])[0])
    return f"{parts.path}?limit={API_PER_PAGE}&offset={(number - 1) * API_PER_PAGE}"


def cursor_url(url: str, user) -> str:
    """Deep pages of the lists that page by cursor: the link the reader gets on page N-1
    (the cursor of the page's last row), instead of ?page=N. Run in this code's process."""
    from urllib.parse import parse_qs, urlsplit

    from django.db.models import F

    from core.keyset import cursor_encode
    from golden.evals.selectors import EVAL_RUN_ORDER, eval_run_list
    from golden.selectors import EXAMPLE_ORDER, golden_example_list
    from judges.models import JudgeRun
    from reviews.models import Queue
    from reviews.selectors import CLAIM_ORDER, queue_items
    from traces.filters import trace_list_ordering
    from traces.selectors import traces_visible
    from traces.session_selectors import SESSION_ORDER, sessions_visible

    parts = urlsplit(url)
    query = parse_qs(parts.query)
    number = int(query.get("page", ["1"])[0])
    if number == 1:
        return url if not parts.path.startswith("/api/") else f"{parts.path}?limit=50"
    sort = query.get("sort", [""])[0]
    kept = f"sort={sort}&" if sort else ""
    if parts.path in ("/traces/", "/api/traces/", "/api/scores/"):
        rows, ordering = traces_visible(user), trace_list_ordering(sort)
    elif parts.path == "/api/sessions/":
        rows, ordering = sessions_visible(user), SESSION_ORDER
    elif parts.path == "/api/judge-runs/":
        rows, ordering = JudgeRun.objects.all(), ("-id",)
    elif parts.path in ("/golden/", "/api/golden/examples/"):
        rows, ordering = golden_example_list(user), EXAMPLE_ORDER
    elif parts.path == "/golden/evals/":
        rows, ordering = eval_run_list(), EVAL_RUN_ORDER
    elif "/queues/" in parts.path:
        queue = Queue.objects.get(
            pk=int(parts.path.rstrip("/").split("/")[-2 if "/items" in parts.path else -1])
        )
        rows, ordering = queue_items(queue, {}, user), CLAIM_ORDER
    else:
        return url  # a list still paged by number
    # The lists' order: a nullable first field (a start time) lists its nulls last.
    first = ordering[0].lstrip("-")
    column = F(first).desc if ordering[0].startswith("-") else F(first).asc
    rows = rows.order_by(column(nulls_last=True), *ordering[1:])
    last_shown = rows[(number - 1) * 50 - 1 : (number - 1) * 50]
    row = last_shown[0] if last_shown else rows.last()
    limit = "limit=50&" if parts.path.startswith("/api/") else ""
    return f"{parts.path}?{kept}{limit}after={cursor_encode(ordering, row)}"


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

    def __init__(
        self, code: Path, label: str, database_url: str, before: bool, lacks: str, pages: str
    ):
        env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "DJANGO_SETTINGS_MODULE": "evalsite.settings",
            "EVALSITE_VAR_DIR": tempfile.mkdtemp(prefix="evalsite-lists-var-"),
            "LOG_LEVEL": "WARNING",
            "ALLOWED_HOSTS": "testserver",
            "SECRET_KEY": os.environ.get("SECRET_KEY", "bench-only"),
        }
        env.pop("REDIS_URL", None)
        command = [sys.executable, __file__, "--serve-rounds", str(code), "--label", label]
        command += ["--pages", pages]
        self.process = subprocess.Popen(
            command + (["--as-before", "--before-lacks", lacks] if before else []),
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


def measure_both(before_tree: Path, size: int, database_url: str, args) -> tuple[dict, dict]:
    """Median server time and query count per page for both versions, rounds alternating."""
    versions = {
        "before": Version(
            before_tree, f"before-{size}", database_url, True, args.before_lacks, args.pages
        ),
        "now": Version(ROOT, f"now-{size}", database_url, False, "", args.pages),
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


def report(size: int, traces: int, spans: int, before: dict, now: dict, pages: str) -> None:
    load = os.getloadavg()
    print(
        f"\n{size}x: {traces:,} traces, {spans:,} spans; load average {load[0]:.1f} "
        f"{load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores"
    )
    print(
        f"  {'page':<38} {'before ms':>9} {'q':>3} {'blocks':>7} {'now ms':>8} {'q':>3} "
        f"{'blocks':>7} {'before/now':>10}"
    )
    for name, _ in pages_chosen(pages):
        b, n = before[name], now[name]
        verdict = "ok" if n["median"] < TARGET_MS else "over target"
        print(
            f"  {name:<38} {b['median']:9.1f} {b['queries']:3d} {b['blocks']:7d} "
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
    parser.add_argument(
        "--pages", default="", help="only the pages whose name holds one of these (comma-separated)"
    )
    parser.add_argument("--serve-rounds", help=argparse.SUPPRESS)
    parser.add_argument("--label", help=argparse.SUPPRESS)
    parser.add_argument("--as-before", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--before-lacks",
        help="indexes the earlier commit did not have, comma-separated ('' for none; by default "
        "those this tree's migrations make and its migrations do not)",
    )
    args = parser.parse_args()
    if args.serve_rounds:
        lacks = tuple(name for name in (args.before_lacks or "").split(",") if name)
        serve_rounds(Path(args.serve_rounds), args.label, args.as_before, lacks, args.pages)
        return

    import psycopg

    before_tree = tree_at(args.before)
    commit = short_commit(args.before)
    before_indexes, now_indexes = index_names(before_tree), index_names(ROOT)
    if args.before_lacks is None:
        args.before_lacks = ",".join(sorted(now_indexes - before_indexes))
    replaced = [
        sql for name, sql in REPLACED_INDEXES.items() if name in before_indexes - now_indexes
    ]
    print(f"before = {args.before} ({commit}); target < {TARGET_MS:.0f} ms server time per page")
    print(f"indexes dropped while the earlier code is measured: {args.before_lacks or 'none'}")
    for size in (int(s) for s in args.sizes.split(",")):
        database_url = args.database_url.format(size=size)
        database_ensure(database_url)
        migrate(database_url)
        with psycopg.connect(database_url, autocommit=True) as conn:
            fixtures_ensure(conn)
            grow(conn, size * TRACES_1X)
            for statement in replaced:
                conn.execute(statement)
            traces = conn.execute("SELECT count(*) FROM traces_trace").fetchone()[0]
            spans = conn.execute("SELECT count(*) FROM traces_span").fetchone()[0]
        before, now = measure_both(before_tree, size, database_url, args)
        report(size, traces, spans, before, now, args.pages)


if __name__ == "__main__":
    main()
