"""The audit page's server time as the log grows, on PostgreSQL.

Fills a database of its own with audit events up to each size (INSERT ... SELECT over
generate_series: seven actions, one person, 30 s apart), then serves the page through Django's
test client as a curator: the newest page, an old `?page=300` link, one action, one review
item. Prints the median of --repeat requests and the queries of each. To compare with an
earlier commit, run this file from a worktree of that commit against the same database.

    .venv/bin/python bench/audit_page.py [--sizes 10000,300000] [--repeat 9]
        [--database-url postgres://postgres@127.0.0.1:5432/evalsite_audit_bench]
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from benchdb import django_setup  # noqa: E402

PAGES = [
    ("newest", "/reviews/audit/"),
    ("old ?page=300 link", "/reviews/audit/?page=300"),
    ("one action", "/reviews/audit/?action=trace_delete"),
    ("one review item", "/reviews/audit/?item=123"),
]
ACTIONS = (
    "review_item.resolve",
    "review_item.claim",
    "annotation.undo",
    "review_item.bulk_close",
    "golden_example_create",
    "trace_delete",
    "review_item.promote",
)


def _grow(to: int, actor_id: int) -> int:
    from django.db import connection

    from reviews.models import AuditEvent

    have = AuditEvent.objects.count()
    if have >= to:
        return have
    table = connection.ops.quote_name(AuditEvent._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (action, object_type, object_id, before, after, created_at,"  # noqa: S608
            " actor_id) SELECT (%s::text[])[1 + (g %% 7)], 'reviews.reviewitem',"
            ' (g %% 50000)::text, \'{"status": "open"}\'::jsonb,'
            ' \'{"status": "resolved", "resolved_score": 1.0}\'::jsonb,'
            " now() - make_interval(secs => g * 30), %s FROM generate_series(%s, %s) g",
            [list(ACTIONS), actor_id, have + 1, to],
        )
        cursor.execute(f"ANALYZE {table}")
    return to


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,300000")
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/evalsite_audit_bench"
    )
    args = parser.parse_args()
    django_setup(args.database_url, tempfile.mkdtemp(prefix="audit-bench-"))

    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from accounts.roles import CURATOR
    from tests.factories import UserFactory

    curator = get_user_model().objects.filter(username="bench-curator").first()
    curator = curator or UserFactory(username="bench-curator", roles=[CURATOR])
    client = Client()
    client.force_login(curator)
    for size in (int(s) for s in args.sizes.split(",")):
        events = _grow(size, curator.pk)
        print(f"{events:,} audit events")
        for name, url in PAGES:
            client.get(url)
            times = []
            for _ in range(args.repeat):
                started = time.perf_counter()
                response = client.get(url)
                times.append((time.perf_counter() - started) * 1000)
            with CaptureQueriesContext(connection) as queries:
                client.get(url)
            print(
                f"  {name:20} {response.status_code}  median {statistics.median(times):6.1f} ms"
                f"  ({len(queries)} queries)"
            )


if __name__ == "__main__":
    main()
