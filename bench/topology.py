"""Several machines on one: deploy/compose.yaml's processes, killed mid-run and counted.

Runs, each a separate process on 127.0.0.1: two web processes (the Compose file's gunicorn
command, one worker each) behind HAProxy, two Celery workers and beat (the Compose file's
commands), PgBouncer in transaction mode (deploy/pgbouncer/pgbouncer.ini, pointed at one
database), Redis (yours, given by URL) and the simulated judge. Each process reaches the database
as its Compose service does: the web straight, the workers and beat through PgBouncer
(--web-through-pgbouncer sends the web's queries through it too). First it measures OTLP ingest
through the balancer with one web process, then with two, before the workers start (on machines
of their own they would not take the web tier's cores), with the cores each kind of process
used; each client sends its own agents' batches one at a time, as an SDK's batch processor does
(--shared-queue: one stream's batches side by side, as a collector's consumers send them).
Then it starts the workers and beat, sends an OTLP burst and starts a judge run together,
SIGKILLs one web process and one worker mid-way, lets the balancer and the stale-pass sweep
route around them, and prints acknowledged / stored / lost spans and
expected / stored / duplicated judgments. It stops everything it started, also on Ctrl-C.

    .venv/bin/python bench/topology.py --database-url postgres://postgres@127.0.0.1:5432/db \\
        --redis-url redis://127.0.0.1:6379/11 --port-base 8600 --pgbouncer-port 6439 \\
        --judge-port 20600
"""

import argparse
import os
import shutil
import signal
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.request import urlopen

import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "bench"))  # judge_throughput imports its neighbours plainly

from bench.benchdb import database_ensure  # noqa: E402
from bench.embedded_memory import tree_pids  # noqa: E402
from bench.faults import WORKER_SETTINGS, judgments_finished, port_free, run_integrity_counts  # noqa: E402
from bench.otlp_burst import Burst, bodies_recorded, failure_reasons, spans_stored  # noqa: E402
from bench.paired_rounds import cpu_seconds  # noqa: E402
from bench.topology_stack import (  # noqa: E402
    Topology,
    compose_commands,
    compose_database_host,
    compose_environment,
    haproxy_command,
    haproxy_config,
    haproxy_wait_up,
    pgbouncer_command,
    pgbouncer_config,
    port_wait,
)

TARGET_SCALING = 1.7
BINARIES = ("haproxy", "pgbouncer", "gunicorn", "celery")


def _args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True, help="a PostgreSQL database of yours")
    parser.add_argument("--redis-url", required=True, help="a Redis database of yours")
    parser.add_argument("--port-base", type=int, default=8600, help="balancer; web at +1, +2")
    parser.add_argument("--pgbouncer-port", type=int, default=6439)
    parser.add_argument("--judge-port", type=int, default=20600)
    parser.add_argument("--traces", type=int, default=1500, help="OTLP traces (11 spans) a phase")
    parser.add_argument("--batch", type=int, default=64, help="spans a request")
    parser.add_argument("--senders", type=int, default=4, help="concurrent OTLP clients")
    parser.add_argument(
        "--shared-queue",
        action="store_true",
        help="the clients send one stream's batches side by side, as a collector's consumers",
    )
    parser.add_argument("--repeat", type=int, default=3, help="one/two web process pairs")
    parser.add_argument(
        "--web-through-pgbouncer",
        action="store_true",
        help="the web processes query through PgBouncer, as the workers do, not straight",
    )
    parser.add_argument("--judge-traces", type=int, default=200, help="traces judged twice")
    parser.add_argument("--latency-ms", type=int, default=300, help="simulated judge latency")
    parser.add_argument("--concurrency", type=int, default=32, help="threads per worker")
    parser.add_argument("--timeout", type=float, default=240, help="bound on the fault phase")
    return parser.parse_args()


# The kind of process each of a run's processes is, for the cores a phase reports.
ROLES = {
    "web1": "web",
    "web2": "web",
    "worker1": "workers",
    "worker2": "workers",
    "beat": "workers",
}


def _cpu_by_role(topology: Topology, database_url: str) -> dict[str, dict[int, float]]:
    """CPU seconds so far of each role's processes, by pid: the web processes, the Celery
    workers and beat (as one), PgBouncer, HAProxy, the simulated judge, the database's backends,
    and this process, whose threads are the OTLP clients."""
    roles: dict[str, list[int]] = {}
    for name, process in topology.processes.items():
        roles.setdefault(ROLES.get(name, name), []).extend(tree_pids(process.pid))
    with psycopg.connect(database_url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid()"
        ).fetchall()
    roles["postgresql"] = [pid for (pid,) in rows]
    by_role = {
        role: {pid: cpu for pid in pids if (cpu := cpu_seconds(pid)) is not None}
        for role, pids in roles.items()
    }
    by_role["clients"] = {os.getpid(): sum(os.times()[:2])}
    return by_role


def cores_by_role(before: dict, after: dict, seconds: float) -> dict[str, float]:
    """Each role's cores over a phase: CPU seconds of the processes alive at its end, less what
    they had at its start (a backend opened meanwhile counts whole)."""
    return {
        role: sum(cpu - before.get(role, {}).get(pid, 0) for pid, cpu in pids.items()) / seconds
        for role, pids in after.items()
    }


def _throughput(args, topology: Topology, token: str, label: str) -> tuple[float, dict]:
    """Spans acknowledged a second through the balancer, and the cores each role used."""
    bodies = bodies_recorded(args.traces, args.batch)
    spans = sum(len(ids) for _, ids in bodies)
    burst = Burst(args.port_base, token, bodies, args.senders, shared=args.shared_queue)
    cpu_before = _cpu_by_role(topology, args.database_url)
    started = time.monotonic()
    burst.run().join()
    elapsed = time.monotonic() - started
    cores = cores_by_role(cpu_before, _cpu_by_role(topology, args.database_url), elapsed)
    rate = len(burst.acknowledged) / elapsed
    print(
        f"{label}: {len(burst.acknowledged)}/{spans} spans acknowledged in {elapsed:.1f}s = "
        f"{rate:,.0f} spans/s ({burst.retries} retries{failure_reasons(burst)}; "
        f"load {os.getloadavg()[0]:.2f}); cores: {cores_text(cores)}",
        flush=True,
    )
    return rate, cores


def cores_text(cores: dict[str, float]) -> str:
    shown = sorted(cores.items(), key=lambda item: -item[1])
    return (
        f"{sum(cores.values()):.2f} in all ("
        + ", ".join(f"{role} {value:.2f}" for role, value in shown if value >= 0.005)
        + ")"
    )


# --- The run -----------------------------------------------------------------------------------


def _environment(args, folder: Path) -> dict:
    name = args.database_url.rsplit("/", 1)[1]
    user = args.database_url.split("://", 1)[1].split("@", 1)[0]
    env = {
        **os.environ,
        **WORKER_SETTINGS,
        **compose_environment("worker"),
        "DATABASE_URL": f"postgres://{user}@127.0.0.1:{args.pgbouncer_port}/{name}",
        "REDIS_URL": args.redis_url,
        "EVALSITE_VAR_DIR": str(folder),
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{args.judge_port}",
        "DJANGO_SETTINGS_MODULE": "evalsite.settings",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        # The burst's traces are not judged online: the run judges its own set.
        "TRACE_SETTLE_SECONDS": "3600",
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
    }
    env.pop("ANTHROPIC_API_KEY", None)
    env.pop("OPENAI_API_KEY", None)
    return env


def web_environment(args, env: dict) -> dict:
    """The workers' environment with the Compose web service's database settings: straight to
    the database as the Compose file has it, or through PgBouncer as the workers."""
    if args.web_through_pgbouncer:
        return {**env, **compose_environment("worker"), "WEB_CONCURRENCY": "1"}
    web = {**env, **compose_environment("web"), "WEB_CONCURRENCY": "1"}
    if compose_database_host("web") == "postgres":
        web["DATABASE_URL"] = args.database_url
    return web


def _setup(args, folder: Path) -> str:
    """Migrate straight to PostgreSQL (as the Compose file's migrate service does), empty the
    trace tables, and make an API token for the OTLP clients."""
    os.environ.update(
        DATABASE_URL=args.database_url,
        REDIS_URL=args.redis_url,
        EVALSITE_VAR_DIR=str(folder),
        DJANGO_SETTINGS_MODULE="evalsite.settings",
        LOG_LEVEL="WARNING",
        JUDGE_SIMULATED="1",
        SIMULATED_JUDGE_PORT=str(args.judge_port),
    )
    import django

    django.setup()
    from django.contrib.auth.models import Group
    from django.core.management import call_command
    from django.db import connection

    from accounts.models import ApiToken
    from accounts.roles import ANNOTATOR
    from judges.models import JudgeRun
    from tests.factories import UserFactory

    call_command("migrate", verbosity=0)
    JudgeRun.objects.all().delete()
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE traces_trace, traces_session, traces_span CASCADE")
    user = UserFactory()
    user.groups.add(Group.objects.get_or_create(name=ANNOTATOR)[0])
    return ApiToken.generate(user, "topology")[1]


def _interrupted(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def main() -> None:
    args = _args()
    signal.signal(signal.SIGTERM, _interrupted)  # stopped like Ctrl-C: everything started goes
    missing = [name for name in BINARIES if not shutil.which(name) and not _in_venv(name)]
    if missing:
        print(f"skipped: {', '.join(missing)} not found (apt-get install -y haproxy pgbouncer)")
        return
    ports = [args.port_base, args.port_base + 1, args.port_base + 2]
    taken = [p for p in [*ports, args.pgbouncer_port, args.judge_port] if not port_free(p)]
    if taken:
        raise SystemExit(f"ports {taken} are in use: stop what listens there or pick others")
    folder = Path(tempfile.mkdtemp(prefix="evalsite-topology-"))
    database_ensure(args.database_url)
    token = _setup(args, folder)
    env = _environment(args, folder)
    topology = Topology(args, env, folder)
    try:
        figures = _run(args, topology, token)
    finally:
        topology.stop()
    _report(args, figures)
    print(f"logs: {folder}")


def _in_venv(name: str) -> bool:
    return (Path(sys.executable).parent / name).exists()


def _run(args, topology: Topology, token: str) -> dict:
    folder, env = topology.folder, topology.env
    web_ports = [args.port_base + 1, args.port_base + 2]
    pgbouncer = topology.start(
        "pgbouncer",
        pgbouncer_command(pgbouncer_config(args.database_url, args.pgbouncer_port, folder)),
    )
    port_wait(args.pgbouncer_port, pgbouncer, "pgbouncer")
    topology.start(
        "judge",
        [sys.executable, "-m", "demo.simulator", "--port", str(args.judge_port)]
        + ["--latency-ms", str(args.latency_ms), "--flip-rate", "0.1"],
    )
    commands = compose_commands(str(folder), "127.0.0.1:0")
    web_env = web_environment(args, env)
    for index, port in enumerate(web_ports, start=1):
        command = [part.replace("127.0.0.1:0", f"127.0.0.1:{port}") for part in commands["web"]]
        # Containers each have their own; on one machine both would share ~/.gunicorn's.
        command += ["--control-socket", str(folder / f"web{index}.ctl")]
        process = topology.start(f"web{index}", command, web_env)
        port_wait(port, process, f"web{index}")
    balancer = topology.start(
        "haproxy", ["haproxy", "-f", str(haproxy_config(args.port_base, web_ports, folder))]
    )
    port_wait(args.port_base, balancer, "haproxy")
    haproxy_wait_up(topology, ["web1", "web2"])
    urlopen(f"http://127.0.0.1:{args.port_base}/login/", timeout=10).read()
    # The web tier is measured before the workers start: on machines of their own, indexing the
    # spans for search and the minutely refreshes would not take the web processes' cores.
    _throughput(args, topology, token, "warm-up, both web processes")
    ones, twos = [], []
    for repetition in range(1, args.repeat + 1):
        haproxy_command(topology, "disable server web/web2")
        ones.append(_throughput(args, topology, token, f"run {repetition}, one web process"))
        haproxy_command(topology, "enable server web/web2")
        haproxy_wait_up(topology, ["web1", "web2"])
        twos.append(_throughput(args, topology, token, f"run {repetition}, two web processes"))
    for index in (1, 2):
        name = f"worker{index}@{socket.gethostname()}"
        command = commands["worker"][:]
        command[command.index("--concurrency") + 1] = str(args.concurrency)
        topology.start(f"worker{index}", command + ["-n", name, "--loglevel", "WARNING"])
    topology.start("beat", commands["beat"] + ["--loglevel", "WARNING"])
    phases = {
        "one": statistics.median(rate for rate, _ in ones),
        "two": statistics.median(rate for rate, _ in twos),
        "cores_one": ones[-1][1],
        "cores_two": twos[-1][1],
    }
    return phases | _faults(args, topology, token)


def _faults(args, topology: Topology, token: str) -> dict:
    from judges.models import JudgeCalibration, JudgeConfig, Rubric
    from judges.services import judge_run_start
    from tests.judges import sample_traces
    from traces.models import Project

    project, _ = Project.objects.get_or_create(slug="topology", defaults={"name": "Topology"})
    traces = sample_traces.traces_mixed(args.judge_traces, project=project)
    version = Rubric.objects.get(name="Tool-call decision accuracy").versions.get(number=1)
    config = JudgeConfig.objects.get(name="default")
    JudgeCalibration.objects.filter(rubric_version=version, config=config).delete()
    expected = len(traces) * config.passes

    bodies = bodies_recorded(args.traces * 2, args.batch)
    burst = Burst(args.port_base, token, bodies, args.senders, shared=args.shared_queue)
    started = time.monotonic()
    run = judge_run_start(rubric_version=version, config=config, traces=traces)
    sending = burst.run()
    events = []
    web_killed = worker_killed = False
    while time.monotonic() - started < args.timeout:
        finished = judgments_finished(run)
        if not web_killed and burst.requests_done >= len(bodies) // 3:
            topology.kill("web2")
            web_killed = True
            events.append(
                f"{time.monotonic() - started:.1f}s SIGKILL web process 2 (master and worker) "
                f"after {burst.requests_done}/{len(bodies)} export requests"
            )
        if not worker_killed and finished >= expected // 4:
            topology.kill("worker1")
            worker_killed = True
            events.append(
                f"{time.monotonic() - started:.1f}s SIGKILL worker 1 at {finished}/{expected} "
                "passes finished (its claimed passes wait for the stale-pass sweep)"
            )
        run.refresh_from_db()
        if run.status == "done" and not sending.is_alive() and web_killed and worker_killed:
            break
        time.sleep(0.5)
    sending.join(timeout=60)
    elapsed = time.monotonic() - started
    acknowledged = list(burst.acknowledged)
    return {
        "events": events,
        "elapsed": elapsed,
        "spans_sent": sum(len(ids) for _, ids in bodies),
        "acknowledged": len(acknowledged),
        "spans_stored": (stored := spans_stored(acknowledged))[0],
        "span_rows": stored[1],
        "given_up": burst.given_up,
        "retries": burst.retries,
        "reasons": failure_reasons(burst),
        **run_integrity_counts(run, expected),
    }


def _report(args, figures: dict) -> None:
    for event in figures["events"]:
        print(f"  {event}")
    lost = figures["acknowledged"] - figures["spans_stored"]
    print(
        f"fault phase: {figures['elapsed']:.1f}s, judge run {figures['run_status']} "
        f"(load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores)"
    )
    print(
        f"spans: sent {figures['spans_sent']}, acknowledged {figures['acknowledged']}, "
        f"stored {figures['spans_stored']} of those, lost {lost}, "
        f"duplicated {figures['span_rows'] - figures['spans_stored']} "
        f"({figures['retries']} requests retried{figures['reasons']}, "
        f"{figures['given_up']} given up)"
    )
    print(
        f"judgments: expected {figures['expected']}, stored {figures['stored']}, "
        f"done {figures['done']}, failed {figures['failed']}, stuck {figures['stuck']}, "
        f"duplicates {figures['duplicates']}; verdicts {figures['verdicts']}"
    )
    scaling = figures["two"] / figures["one"]
    print(
        f"throughput (medians of {args.repeat} alternating runs): two web processes "
        f"{figures['two']:,.0f} spans/s vs one "
        f"{figures['one']:,.0f} = {scaling:.2f}x (target {TARGET_SCALING}x; web "
        f"{'through PgBouncer' if args.web_through_pgbouncer else 'straight to PostgreSQL'}; "
        f"{os.cpu_count()} cores shared with PostgreSQL, PgBouncer, HAProxy and "
        f"these clients; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())})"
    )
    # Two web processes can add only what one leaves idle of the machine's cores.
    print(f"cores in the last one-web-process phase: {cores_text(figures['cores_one'])}")
    print(f"cores in the last two-web-process phase: {cores_text(figures['cores_two'])}")


if __name__ == "__main__":
    main()
