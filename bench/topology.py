"""Several machines on one: deploy/compose.yaml's processes, killed mid-run and counted.

Runs, each a separate process on 127.0.0.1: two web processes (the Compose file's gunicorn
command, one worker each) behind HAProxy, two Celery workers and beat (the Compose file's
commands), PgBouncer in transaction mode (deploy/pgbouncer/pgbouncer.ini, pointed at one
database), Redis (yours, given by URL) and the simulated judge. First it measures OTLP ingest
through the balancer with one web process, then with two. Then it sends an OTLP burst and starts
a judge run together, SIGKILLs one web process and one worker mid-way, lets the balancer and
the stale-pass sweep route around them, and prints acknowledged / stored / lost spans and
expected / stored / duplicated judgments. It stops everything it started, also on Ctrl-C.

    .venv/bin/python bench/topology.py --database-url postgres://postgres@127.0.0.1:5432/db \\
        --redis-url redis://127.0.0.1:6379/11 --port-base 8600 --pgbouncer-port 6439 \\
        --judge-port 20600
"""

import argparse
import collections
import configparser
import contextlib
import http.client
import os
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.request import urlopen

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "bench"))  # judge_throughput imports its neighbours plainly

from bench.benchdb import database_ensure  # noqa: E402
from bench.faults import WORKER_SETTINGS, _counts, _finished, _port_free  # noqa: E402
from bench.ingest import bodies_encode, record_spans  # noqa: E402

COMPOSE = ROOT / "deploy" / "compose.yaml"
PGBOUNCER_INI = ROOT / "deploy" / "pgbouncer" / "pgbouncer.ini"
COMPOSE_VAR_DIR = "/var/lib/evalsite"
COMPOSE_BIND = "0.0.0.0:8000"
TARGET_SCALING = 1.7
BINARIES = ("haproxy", "pgbouncer", "gunicorn", "celery")


def _args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True, help="a PostgreSQL database of yours")
    parser.add_argument("--redis-url", required=True, help="a Redis database of yours")
    parser.add_argument("--port-base", type=int, default=8600, help="balancer; web at +1, +2")
    parser.add_argument("--pgbouncer-port", type=int, default=6439)
    parser.add_argument("--judge-port", type=int, default=20600)
    parser.add_argument("--traces", type=int, default=300, help="OTLP traces (11 spans) a phase")
    parser.add_argument("--batch", type=int, default=64, help="spans a request")
    parser.add_argument("--senders", type=int, default=4, help="concurrent OTLP clients")
    parser.add_argument("--repeat", type=int, default=3, help="one/two web process pairs")
    parser.add_argument("--judge-traces", type=int, default=200, help="traces judged twice")
    parser.add_argument("--latency-ms", type=int, default=300, help="simulated judge latency")
    parser.add_argument("--concurrency", type=int, default=32, help="threads per worker")
    parser.add_argument("--timeout", type=float, default=240, help="bound on the fault phase")
    return parser.parse_args()


# --- The Compose file's processes, as run here -----------------------------------------------


def compose_services() -> dict:
    import yaml

    return yaml.safe_load(COMPOSE.read_text())["services"]


def compose_commands(var_dir: str, bind: str) -> dict[str, list[str]]:
    """web, worker and beat as the Compose file runs them, with this machine's folder and
    address in place of the container's."""
    services = compose_services()
    commands = {}
    for name in ("web", "worker", "beat"):
        command = services[name]["command"]
        command = command.replace(COMPOSE_VAR_DIR, var_dir).replace(COMPOSE_BIND, bind)
        commands[name] = shlex.split(command)
    return commands


def compose_environment(service: str) -> dict[str, str]:
    """The service's environment names with the values that do not point at containers."""
    environment = compose_services()[service]["environment"]
    keep = ("DB_POOL", "DB_TRANSACTION_POOLING", "WEB_CONCURRENCY")
    return {name: str(value) for name, value in environment.items() if name in keep}


def pgbouncer_config(database_url: str, port: int, folder: Path) -> Path:
    """deploy/pgbouncer/pgbouncer.ini's pool settings, pointed at this machine's database;
    local trust authentication instead of the container's password."""
    config = configparser.ConfigParser(interpolation=None)
    config.read(PGBOUNCER_INI)
    name = database_url.rsplit("/", 1)[1]
    config["databases"] = {name: f"host=127.0.0.1 port=5432 dbname={name}"}
    user = database_url.split("://", 1)[1].split("@", 1)[0].split(":")[0]
    (folder / "userlist.txt").write_text(f'"{user}" ""\n')
    config["pgbouncer"].update(
        listen_addr="127.0.0.1",
        listen_port=str(port),
        auth_type="trust",
        auth_file=str(folder / "userlist.txt"),
        unix_socket_dir="",
    )
    path = folder / "pgbouncer.ini"
    with path.open("w") as handle:
        config.write(handle)
    # PgBouncer refuses to run as root; started by root it switches to an ordinary user,
    # which must be able to read its files.
    for each in (folder, path, folder / "userlist.txt"):
        each.chmod(0o755 if each.is_dir() else 0o644)
    return path


def pgbouncer_command(config: Path) -> list[str]:
    user = ["-u", "postgres"] if os.geteuid() == 0 else []
    return ["pgbouncer", *user, str(config)]


def haproxy_config(port: int, web_ports: list[int], folder: Path) -> Path:
    """To the web process with fewer requests open; a dead one is marked down after two failed
    checks a second apart, and a request whose connection is refused goes to the other at once.
    (One failed check is too few: a busy sync worker can miss one.)"""
    servers = "\n".join(
        f"    server web{i + 1} 127.0.0.1:{web} check inter 1s fall 2 rise 1"
        for i, web in enumerate(web_ports)
    )
    path = folder / "haproxy.cfg"
    path.write_text(
        f"""global
    maxconn 256
    stats socket {folder}/haproxy.sock mode 600 level admin

defaults
    mode http
    timeout connect 2s
    timeout client 120s
    timeout server 120s
    timeout check 5s
    retries 3
    option redispatch 1

frontend evalsite
    bind 127.0.0.1:{port}
    default_backend web

backend web
    balance leastconn
    option httpchk GET /login/
{servers}
"""
    )
    return path


def _port_wait(port: int, process: subprocess.Popen, what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{what} exited with {process.returncode}")
        if not _port_free(port):
            return
        time.sleep(0.1)
    raise SystemExit(f"{what} did not listen on {port} within {seconds:.0f}s")


class Topology:
    """Every process this run starts, each in its own process group, all stopped at the end."""

    def __init__(self, args, env: dict, folder: Path):
        self.args, self.env, self.folder = args, env, folder
        self.processes: dict[str, subprocess.Popen] = {}

    def start(self, name: str, command: list[str], env: dict | None = None) -> subprocess.Popen:
        log = (self.folder / f"{name}.log").open("ab")
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env or self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.processes[name] = process
        return process

    def kill(self, name: str) -> None:
        """SIGKILL to the process and its children (a gunicorn master and its worker)."""
        process = self.processes[name]
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)

    def stop(self) -> None:
        alive = [p for p in self.processes.values() if p.poll() is None]
        for process in alive:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 20
        for process in alive:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)


def _haproxy_command(topology: Topology, command: str) -> str:
    with socket.socket(socket.AF_UNIX) as client:
        client.connect(str(topology.folder / "haproxy.sock"))
        client.sendall(command.encode() + b"\n")
        answer = b""
        while chunk := client.recv(65536):  # the answer ends when HAProxy closes the socket
            answer += chunk
        return answer.decode()


def _haproxy_wait_up(topology: Topology, servers: list[str], seconds: float = 30) -> None:
    """Until the balancer's health checks have found every server up."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        rows = _haproxy_command(topology, "show stat").splitlines()
        header = rows[0].lstrip("# ").split(",")
        states = {
            row.split(",")[header.index("svname")]: row.split(",")[header.index("status")]
            for row in rows[1:]
            if row.startswith("web,")
        }
        if all(states.get(name) == "UP" for name in servers):
            return
        time.sleep(0.2)
    raise SystemExit(f"HAProxy did not find {servers} up within {seconds:.0f}s")


# --- OTLP clients ------------------------------------------------------------------------------


class Burst:
    """Export requests sent by several clients; a request that fails is sent again, up to five
    times, as the OpenTelemetry exporter retries a 502/503 or a dropped connection."""

    def __init__(self, port: int, token: str, bodies: list[tuple[bytes, list[str]]], senders: int):
        self.port, self.token, self.senders = port, token, senders
        self.pending = list(reversed(bodies))
        self.lock = threading.Lock()
        self.acknowledged: list[str] = []
        self.given_up = 0
        self.retries = 0
        self.requests_done = 0
        self.failures: collections.Counter[str] = collections.Counter()

    def _next(self):
        with self.lock:
            return self.pending.pop() if self.pending else None

    def _post(self, body: bytes) -> str:
        """ "ok", or why the request failed: an HTTP status or the connection error's name."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            connection.request(
                "POST",
                "/v1/traces",
                body=body,
                headers={
                    "Content-Type": "application/x-protobuf",
                    "Authorization": f"Bearer {self.token}",
                },
            )
            response = connection.getresponse()
            response.read()
            return "ok" if response.status == 200 else str(response.status)
        except (OSError, http.client.HTTPException) as error:
            return type(error).__name__
        finally:
            connection.close()

    def _send(self) -> None:
        while (item := self._next()) is not None:
            body, span_ids = item
            for attempt in range(5):
                outcome = self._post(body)
                if outcome == "ok":
                    with self.lock:
                        self.acknowledged.extend(span_ids)
                        self.requests_done += 1
                    break
                with self.lock:
                    self.retries += 1
                    self.failures[outcome] += 1
                time.sleep(0.2 * (attempt + 1))
            else:
                with self.lock:
                    self.given_up += 1

    def run(self) -> threading.Thread:
        threads = [threading.Thread(target=self._send, daemon=True) for _ in range(self.senders)]
        for thread in threads:
            thread.start()

        def joined():
            for thread in threads:
                thread.join()

        waiter = threading.Thread(target=joined, daemon=True)
        waiter.start()
        return waiter


def _reasons(burst: Burst) -> str:
    return "".join(f", {n} x {reason}" for reason, n in burst.failures.most_common())


def _bodies(traces: int, batch: int) -> list[tuple[bytes, list[str]]]:
    """Freshly recorded spans (new ids each call) as protobuf bodies, with their span ids."""
    spans = record_spans(traces, 0, 0)
    bodies = bodies_encode(spans, batch, "protobuf")
    return [
        (body, [f"{span.context.span_id:016x}" for span in spans[i * batch : (i + 1) * batch]])
        for i, body in enumerate(bodies)
    ]


def _stored(span_ids: list[str]) -> tuple[int, int]:
    """Of these span ids: how many are stored, and how many rows they have (a request sent
    again after its first attempt was stored must not store its spans twice)."""
    from traces.models import Span

    found = rows = 0
    for i in range(0, len(span_ids), 5000):
        spans = Span.objects.filter(span_id__in=span_ids[i : i + 5000])
        found += spans.values("span_id").distinct().count()
        rows += spans.count()
    return found, rows


def _throughput(args, topology: Topology, token: str, label: str) -> float:
    bodies = _bodies(args.traces, args.batch)
    spans = sum(len(ids) for _, ids in bodies)
    burst = Burst(args.port_base, token, bodies, args.senders)
    started = time.monotonic()
    burst.run().join()
    elapsed = time.monotonic() - started
    rate = len(burst.acknowledged) / elapsed
    print(
        f"{label}: {len(burst.acknowledged)}/{spans} spans acknowledged in {elapsed:.1f}s = "
        f"{rate:,.0f} spans/s ({burst.retries} retries{_reasons(burst)}; "
        f"load {os.getloadavg()[0]:.2f})",
        flush=True,
    )
    return rate


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
    taken = [p for p in [*ports, args.pgbouncer_port, args.judge_port] if not _port_free(p)]
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
    _port_wait(args.pgbouncer_port, pgbouncer, "pgbouncer")
    topology.start(
        "judge",
        [sys.executable, "-m", "judges.simulator", "--port", str(args.judge_port)]
        + ["--latency-ms", str(args.latency_ms), "--flip-rate", "0.1"],
    )
    commands = compose_commands(str(folder), "127.0.0.1:0")
    web_env = {**env, **compose_environment("web"), "WEB_CONCURRENCY": "1"}
    for index, port in enumerate(web_ports, start=1):
        command = [part.replace("127.0.0.1:0", f"127.0.0.1:{port}") for part in commands["web"]]
        # Containers each have their own; on one machine both would share ~/.gunicorn's.
        command += ["--control-socket", str(folder / f"web{index}.ctl")]
        process = topology.start(f"web{index}", command, web_env)
        _port_wait(port, process, f"web{index}")
    balancer = topology.start(
        "haproxy", ["haproxy", "-f", str(haproxy_config(args.port_base, web_ports, folder))]
    )
    _port_wait(args.port_base, balancer, "haproxy")
    _haproxy_wait_up(topology, ["web1", "web2"])
    for index in (1, 2):
        name = f"worker{index}@{socket.gethostname()}"
        command = commands["worker"][:]
        command[command.index("--concurrency") + 1] = str(args.concurrency)
        topology.start(f"worker{index}", command + ["-n", name, "--loglevel", "WARNING"])
    topology.start("beat", commands["beat"] + ["--loglevel", "WARNING"])
    urlopen(f"http://127.0.0.1:{args.port_base}/login/", timeout=10).read()
    _throughput(args, topology, token, "warm-up, both web processes")

    ones, twos = [], []
    for repetition in range(1, args.repeat + 1):
        _haproxy_command(topology, "disable server web/web2")
        ones.append(_throughput(args, topology, token, f"run {repetition}, one web process"))
        _haproxy_command(topology, "enable server web/web2")
        _haproxy_wait_up(topology, ["web1", "web2"])
        twos.append(_throughput(args, topology, token, f"run {repetition}, two web processes"))
    return {"one": statistics.median(ones), "two": statistics.median(twos)} | _faults(
        args, topology, token
    )


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

    bodies = _bodies(args.traces * 2, args.batch)
    burst = Burst(args.port_base, token, bodies, args.senders)
    started = time.monotonic()
    run = judge_run_start(rubric_version=version, config=config, traces=traces)
    sending = burst.run()
    events = []
    web_killed = worker_killed = False
    while time.monotonic() - started < args.timeout:
        finished = _finished(run)
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
        "spans_stored": (stored := _stored(acknowledged))[0],
        "span_rows": stored[1],
        "given_up": burst.given_up,
        "retries": burst.retries,
        "reasons": _reasons(burst),
        **_counts(run, expected),
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
        f"{figures['one']:,.0f} = {scaling:.2f}x (target {TARGET_SCALING}x; "
        f"{os.cpu_count()} cores shared with PostgreSQL, PgBouncer, HAProxy, the workers and "
        f"these clients; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())})"
    )


if __name__ == "__main__":
    main()
