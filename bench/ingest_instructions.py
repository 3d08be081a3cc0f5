"""Instructions a span costs the web process on the OTLP ingest path, counted by callgrind.

CPU seconds on a shared machine move by a third within the hour, so bench/ingest.py cannot
tell a 5% change from noise; instruction counts can: the same code, inputs and database give
the same count within about 1% a whole request (its waits on PostgreSQL move it) and 0.01% for
the mapping alone, whatever else the machine does. This counts the Python side only
(PostgreSQL's share is in bench/ingest.py): OTLP protobuf bodies recorded with the
OpenTelemetry SDK are POSTed through the WSGI application (every middleware, the API view,
mapping and storing), after warm-up requests, in each tree, on a database of its own.

    .venv/bin/python bench/ingest_instructions.py --before c3585fb

With --mapping-only it counts decoding and mapping alone (traces.ingest.otlp.otlp_batch over
the same bodies, no request and no database): the per-span Python of ingest, whose count does
not move with the waits on PostgreSQL that move the whole request's by a few percent.

    .venv/bin/python bench/ingest_instructions.py --before c3585fb --mapping-only --format json

Needs valgrind (`callgrind_control` toggles counting around the measured requests only).
"""

import argparse
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.benchdb import database_ensure  # noqa: E402
from bench.ingest import (  # noqa: E402
    DEFAULT_DB,
    MEDIA,
    SETUP,
    bodies_encode,
    env_for,
    record_spans,
)
from bench.trees import bytecode_compile, tree_at  # noqa: E402

# The end of a driver: warm up with CALL over each warm-up body, then count CALL over the rest.
COUNTED = """
def counting(on):
    flag = "on" if on else "off"
    subprocess.run(["callgrind_control", "-i", flag, str(os.getpid())], check=True,
                   capture_output=True)

gc.set_threshold(50_000, 20, 20)  # as gunicorn.conf.py sets it in each web worker
# The clock stands still from here: what a process remembers for a few seconds (tokens,
# projects, live rules) is looked up once, not again whenever valgrind's slow run passes an
# expiry, which falls at a different request in each tree.
import time
_started = time.monotonic()
time.monotonic = lambda: _started
for body in payload["warm"]:
    CALL
gc.collect()
gc.freeze()
counting(True)
for body in payload["bodies"]:
    CALL
counting(False)
"""

# Run inside a tree: empty its database (bench.ingest's SETUP), warm up, count the rest.
DRIVER = (
    SETUP
    + """
import gc, io, os, pickle, subprocess, sys
from django.core.wsgi import get_wsgi_application
token = ApiToken.generate(user, "instructions")[1]
payload = pickle.load(open(sys.argv[1], "rb"))
app = get_wsgi_application()

def post(body):
    environ = {
        "REQUEST_METHOD": "POST", "PATH_INFO": "/v1/traces", "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000", "HTTP_HOST": "127.0.0.1", "wsgi.input": io.BytesIO(body),
        "CONTENT_LENGTH": str(len(body)), "CONTENT_TYPE": "application/x-protobuf",
        "HTTP_AUTHORIZATION": f"Bearer {token}", "wsgi.url_scheme": "http",
        "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.errors": sys.stderr,
    }
    status = []
    b"".join(app(environ, lambda code, headers, exc_info=None: status.append(code)))
    assert status[0].startswith("200"), status
"""
    + COUNTED.replace("CALL", "post(body)")
)

# Run inside a tree: decode and map each body as the OTLP view does, nothing stored.
MAPPING_DRIVER = """
import django
django.setup()
import gc, os, pickle, subprocess, sys
from traces.ingest.otlp import otlp_batch
payload = pickle.load(open(sys.argv[1], "rb"))
media = payload["media"]
""" + COUNTED.replace("CALL", "otlp_batch(body, media)")


def instructions(
    tree: Path, database_url: str, payload_file: str, out_dir: str, driver: str = DRIVER
) -> int:
    """Instructions callgrind counted over the measured requests in `tree`."""
    database_ensure(database_url)
    env = env_for(database_url, tempfile.mkdtemp(prefix="evalsite-instructions-"))
    env["PYTHONHASHSEED"] = "0"  # dict and set probing otherwise moves the count by about 2%
    command = [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        f"--callgrind-out-file={out_dir}/callgrind.%p",
        sys.executable,
        "-c",
        driver,
        payload_file,
    ]
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"the run in {tree} failed:\n{done.stderr[-2000:]}")
    counted = re.search(r"Collected : (\d+)", done.stderr)
    if counted is None:
        raise SystemExit(f"callgrind counted nothing in {tree}:\n{done.stderr[-2000:]}")
    return int(counted.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="an earlier commit to count the same way")
    parser.add_argument("--traces", type=int, default=400, help="of 11 spans each")
    parser.add_argument("--batch", type=int, default=512, help="spans per export request")
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB))
    parser.add_argument(
        "--mapping-only", action="store_true", help="count decoding and mapping, no requests"
    )
    parser.add_argument(
        "--format", choices=["protobuf", "json"], default="protobuf", help="with --mapping-only"
    )
    args = parser.parse_args()
    if args.format != "protobuf" and not args.mapping_only:
        parser.error("--format json counts the mapping only: add --mapping-only")
    if shutil.which("callgrind_control") is None:
        raise SystemExit("valgrind is not installed: apt-get install valgrind")
    spans = record_spans(args.traces, 600, 0)
    payload = {
        "bodies": bodies_encode(spans, args.batch, args.format),
        "warm": bodies_encode(record_spans(40, 600, 10**6), args.batch, args.format),
        "media": MEDIA[args.format],
    }
    driver = MAPPING_DRIVER if args.mapping_only else DRIVER
    with tempfile.TemporaryDirectory(prefix="evalsite-instructions-") as work:
        payload_file = f"{work}/payload.pickle"
        Path(payload_file).write_bytes(pickle.dumps(payload))
        bytecode_compile(ROOT)
        trees = [("now", ROOT, args.database_url)]
        if args.before:
            trees.append(("before", tree_at(args.before), args.database_url + "_before"))
        counts = {}
        for name, tree, database_url in trees:
            counted = instructions(tree, database_url, payload_file, work, driver)
            counts[name] = counted / len(spans)
            print(f"{name:>6}: {counts[name]:,.0f} instructions a span ({len(spans)} spans)")
    if args.before:
        print(f"now/before: {counts['now'] / counts['before']:.3f}x (before = {args.before})")


if __name__ == "__main__":
    main()
