"""`serve --demo` runs the demo agent once the web server listens; when it cannot, the server
keeps serving and its output says how to run the agent by hand."""

import contextlib
import socket
import threading
from io import StringIO

import pytest

from evalsite.management.commands import serve
from golden.models import EvalRun

pytestmark = pytest.mark.django_db


def _agent(addr: str, stopping: threading.Event) -> str:
    """Run the demo agent's thread as `serve` starts it; returns what it wrote."""
    out = StringIO()
    thread = threading.Thread(target=serve._demo_agent, args=(addr, stopping, out))
    thread.start()
    thread.join(timeout=120)
    assert not thread.is_alive()
    return out.getvalue()


def _accept_and_close(listener: socket.socket, stopping: threading.Event) -> None:
    """Close each connection `listener` takes at once, until `stopping` is set; the short
    timeout lets the loop see the event before the test closes the listener."""
    listener.settimeout(0.05)
    while not stopping.is_set():
        with contextlib.suppress(TimeoutError):
            listener.accept()[0].close()


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_agent_gives_up_quietly_when_nothing_listens(monkeypatch, settings):
    monkeypatch.setattr(serve, "DEMO_AGENT_WAIT_SECONDS", 0.5)
    settings.JUDGE_SIMULATED = False
    assert _agent(f"127.0.0.1:{_closed_port()}", threading.Event()) == ""
    assert not EvalRun.objects.exists()


def test_a_stop_while_waiting_ends_the_wait(monkeypatch, settings):
    settings.JUDGE_SIMULATED = False
    stopping = threading.Event()
    stopping.set()
    assert _agent(f"127.0.0.1:{_closed_port()}", stopping) == ""


def test_an_agent_that_fails_leaves_a_line_saying_how_to_run_it_again(settings):
    # given something that accepts connections but is no evalsite
    settings.JUDGE_SIMULATED = False
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        stop_closing = threading.Event()
        closer = threading.Thread(target=_accept_and_close, args=(listener, stop_closing))
        closer.start()
        # when the agent starts against it
        try:
            text = _agent(f"0.0.0.0:{port}", threading.Event())  # noqa: S104
        finally:
            stop_closing.set()
            closer.join()
    # then the line names the failure and the command, at the address it can reach
    assert "The demo agent stopped:" in text and "could not reach" in text
    assert f"`python manage.py demo_agent --url http://127.0.0.1:{port}`" in text
    assert not EvalRun.objects.exists()
