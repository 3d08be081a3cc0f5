"""deploy/compose.yaml's processes on one machine (bench/topology.py): their commands and
settings read from the Compose file and deploy/pgbouncer/pgbouncer.ini, HAProxy's
configuration, and the process groups, started and stopped."""

import configparser
import contextlib
import os
import re
import shlex
import signal
import socket
import subprocess
import time
from pathlib import Path
from urllib.parse import urlsplit

from bench.faults import port_free

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "deploy" / "compose.yaml"
PGBOUNCER_INI = ROOT / "deploy" / "pgbouncer" / "pgbouncer.ini"
COMPOSE_VAR_DIR = "/var/lib/evalsite"
COMPOSE_BIND = "0.0.0.0:8000"


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
    keep = ("DB_POOL", "DB_POOL_MAX_SIZE", "DB_TRANSACTION_POOLING", "WEB_CONCURRENCY")
    return {name: str(value) for name, value in environment.items() if name in keep}


def compose_database_host(service: str) -> str:
    """The container the service's DATABASE_URL names: "pgbouncer" or "postgres"."""
    url = compose_services()[service]["environment"]["DATABASE_URL"]
    # Compose's ${VARIABLE...} references (the password) filled in, as Compose would.
    return urlsplit(re.sub(r"\$\{[^}]*\}", "secret", url)).hostname


def pgbouncer_config(database_url: str, port: int, folder: Path) -> Path:
    """deploy/pgbouncer/pgbouncer.ini's pool settings, pointed at this machine's database;
    local trust authentication instead of the container's password."""
    config = configparser.ConfigParser(interpolation=None)
    config.read(PGBOUNCER_INI)
    name = database_url.rsplit("/", 1)[1]
    entry = config["databases"]["evalsite"]
    config["databases"] = {
        name: entry.replace("host=postgres", "host=127.0.0.1").replace(
            "dbname=evalsite", f"dbname={name}"
        )
    }
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


def port_wait(port: int, process: subprocess.Popen, what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{what} exited with {process.returncode}")
        if not port_free(port):
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


def haproxy_command(topology: Topology, command: str) -> str:
    with socket.socket(socket.AF_UNIX) as client:
        client.connect(str(topology.folder / "haproxy.sock"))
        client.sendall(command.encode() + b"\n")
        answer = b""
        while chunk := client.recv(65536):  # the answer ends when HAProxy closes the socket
            answer += chunk
        return answer.decode()


def haproxy_wait_up(topology: Topology, servers: list[str], seconds: float = 30) -> None:
    """Until the balancer's health checks have found every server up."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        rows = haproxy_command(topology, "show stat").splitlines()
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
