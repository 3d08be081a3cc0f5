"""The simulated judge speaks the Messages API through the real SDK and scores by visible rules."""

import json
import time

import anthropic
import pytest

from demo.simulator.server import start_simulator

SYSTEM = [
    {
        "type": "text",
        "text": 'Reply {"evaluation_summary": {"score", "explanation"}} with a score from 0 to 1.',
        "cache_control": {"type": "ephemeral"},
    }
]


def _trace(children, answer="Your order A1042 has been cancelled."):
    tree = {
        "name": "support-agent",
        "type": "agent",
        "input": "Cancel order A1042 for customer C-77",
        "output": answer,
        "children": children,
    }
    return f"<untrusted_trace>\n{json.dumps(tree)}\n</untrusted_trace>"


def _tool(name, inputs, output, error=None):
    node = {"name": name, "type": "tool", "input": inputs, "output": output, "children": []}
    if error:
        node["error"] = error
    return node


GOOD = _trace([_tool("cancel_order", {"order_id": "A1042"}, {"status": "cancelled"})])


@pytest.fixture
def simulator():
    handle = start_simulator()
    yield handle
    handle.stop()


def _client(simulator, timeout=5.0):
    return anthropic.Anthropic(
        api_key="simulated", base_url=simulator.base_url, max_retries=0, timeout=timeout
    )


def _ask(client, user_text, system=SYSTEM):
    reply = client.messages.create(
        model="claude-sonnet-4-5",
        max_tokens=256,
        system=system,
        messages=[{"role": "user", "content": user_text}],
    )
    return reply, json.loads(reply.content[0].text)["evaluation_summary"]


def test_a_grounded_trajectory_passes_and_usage_reports_the_cache(simulator):
    client = _client(simulator)

    first, summary = _ask(client, GOOD)
    second, _ = _ask(client, GOOD)

    assert summary["score"] == 1
    assert first.usage.cache_creation_input_tokens > 0
    assert first.usage.cache_read_input_tokens == 0
    assert second.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens
    assert simulator.request_count == 2


@pytest.mark.parametrize(
    "children",
    [
        [_tool("cancel_order", {"order_id": "A1042"}, None, error="timeout from orders-db")],
        [
            _tool("cancel_order", {"order_id": "A1042"}, {"status": "pending"}),
            _tool("cancel_order", {"order_id": "A1042"}, {"status": "pending"}),
        ],
        [_tool("cancel_order", {"order_id": "B7781"}, {"status": "cancelled"})],
    ],
    ids=["confident-after-error", "repeated-call", "parameter-from-nowhere"],
)
def test_each_visible_failure_fails_and_cites_the_span(simulator, children):
    _, summary = _ask(_client(simulator), _trace(children))

    assert summary["score"] == 0
    assert "cancel_order" in summary["explanation"]


def test_a_hedged_answer_after_an_error_is_not_a_failure(simulator):
    children = [_tool("cancel_order", {"order_id": "A1042"}, None, error="orders-db down")]
    trace = _trace(children, answer="Sorry, I could not cancel the order; please try again.")

    _, summary = _ask(_client(simulator), trace)

    assert summary["score"] == 1


@pytest.mark.parametrize(
    ("status", "error_class"),
    [
        ("429", anthropic.RateLimitError),
        ("500", anthropic.InternalServerError),
        ("529", anthropic.OverloadedError),
    ],
)
def test_scripted_errors_arrive_as_the_sdk_exceptions(simulator, status, error_class):
    simulator.set(script=[status], retry_after_s=3)

    with pytest.raises(error_class) as caught:
        _ask(_client(simulator), GOOD)

    if status != "500":
        assert caught.value.response.headers["retry-after"] == "3"
    _, summary = _ask(_client(simulator), GOOD)
    assert summary["score"] == 1


def test_a_hung_request_times_out_on_the_client(simulator):
    simulator.set(script=["timeout"], timeout_hang_s=2)

    started = time.monotonic()
    with pytest.raises(anthropic.APITimeoutError):
        _ask(_client(simulator, timeout=0.5), GOOD)

    assert time.monotonic() - started < 1.5


def test_every_second_answer_flips_at_flip_rate_one(simulator):
    simulator.set(flip_rate=1.0)
    client = _client(simulator)

    scores = [_ask(client, GOOD)[1]["score"] for _ in range(4)]

    assert scores == [1, 0, 1, 0]


def test_malformed_replies_are_not_valid_summaries(simulator):
    simulator.set(malformed_rate=1.0)

    reply = _client(simulator).messages.create(
        model="claude-sonnet-4-5",
        max_tokens=256,
        system=SYSTEM,
        messages=[{"role": "user", "content": GOOD}],
    )

    text = reply.content[0].text
    with pytest.raises((ValueError, KeyError, TypeError)):
        assert isinstance(json.loads(text)["evaluation_summary"]["score"], int | float)


@pytest.mark.parametrize(
    ("instruction", "expected"),
    [
        ("End with a last line `Score: N`, N from 1 to 5.", "Score: 5"),
        ('Reply {"score", "reason"} with a score between 0 and 10.', '"score": 10'),
        ("Answer with a bare number: 1.0, 0.5 or 0.0.", "1.0"),
        (
            'Reply {"criteria": [{"question", "met"}]} for each:\nQ1: Was order A1042 cancelled?',
            # a pass names the step it rests on, as a fail does
            '{"question": "Was order A1042 cancelled?", "met": true, "span": "cancel_order"}',
        ),
    ],
)
def test_it_answers_in_the_format_the_prompt_asks_for(simulator, instruction, expected):
    system = [{"type": "text", "text": instruction}]

    reply = _client(simulator).messages.create(
        model="claude-sonnet-4-5",
        max_tokens=256,
        system=system,
        messages=[{"role": "user", "content": GOOD}],
    )

    assert expected in reply.content[0].text


def test_the_batches_api_returns_results_when_ended(simulator):
    simulator.set(batch_latency_ms=50)
    client = _client(simulator)
    params = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 256,
        "system": SYSTEM,
        "messages": [{"role": "user", "content": GOOD}],
    }

    batch = client.messages.batches.create(requests=[{"custom_id": "j-1", "params": params}])
    for _ in range(50):
        batch = client.messages.batches.retrieve(batch.id)
        if batch.processing_status == "ended":
            break
        time.sleep(0.05)
    results = list(client.messages.batches.results(batch.id))

    assert batch.request_counts.succeeded == 1
    assert results[0].custom_id == "j-1"
    assert json.loads(results[0].result.message.content[0].text)["evaluation_summary"]["score"] == 1


def test_the_command_line_server_takes_knobs_as_flags_and_at_run_time():
    import socket
    import subprocess
    import sys
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "demo.simulator",
            "--port",
            str(port),
            "--latency-ms",
            "0",
            "--flip-rate",
            "0",
        ],
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                knobs = json.loads(urllib.request.urlopen(f"{base}/_simulator/knobs").read())
                break
            except OSError:
                time.sleep(0.1)
        change = urllib.request.Request(
            f"{base}/_simulator/knobs",
            data=json.dumps({"script": ["429"]}).encode(),
            headers={"Content-Type": "application/json"},
        )
        urllib.request.urlopen(change)
        client = anthropic.Anthropic(api_key="simulated", base_url=base, max_retries=0)
        with pytest.raises(anthropic.RateLimitError):
            _ask(client, GOOD)
        _, summary = _ask(client, GOOD)
        stats = json.loads(urllib.request.urlopen(f"{base}/_simulator/stats").read())
    finally:
        server.terminate()
        server.wait(timeout=10)

    assert (knobs["latency_ms"], knobs["flip_rate"]) == (0, 0.0)
    assert summary["score"] == 1
    assert (stats["requests"], stats["errors_429"], stats["answers"]) == (2, 1, 1)


@pytest.mark.parametrize(
    "children",
    [
        # Free text and dates are rephrased by agents; only ids must come from somewhere.
        [
            _tool(
                "cancel_order",
                {"order_id": "A1042", "reason": "customer changed their mind"},
                {"status": "cancelled"},
            )
        ],
        [_tool("search_flights", {"origin": "SFO", "date": "2026-12-18"}, {"flights": ["UA1532"]})],
        # Re-running the tests after an edit is not a loop; back-to-back identical calls are.
        [
            _tool("run_tests", {"path": "tests/"}, {"failed": 1}),
            _tool("edit_file", {"path": "timeutil.py"}, {"ok": True}),
            _tool("run_tests", {"path": "tests/"}, {"failed": 0}),
        ],
    ],
    ids=["free-text-parameter", "date-parameter", "rerun-after-edit"],
)
def test_ordinary_trajectories_are_not_failed(simulator, children):
    _, summary = _ask(_client(simulator), _trace(children, answer="Done: cancelled A1042."))

    assert summary["score"] == 1, summary["explanation"]


def test_a_file_path_found_nowhere_earlier_fails(simulator):
    children = [_tool("read_file", {"path": "src/orders/handlers.py"}, {"content": "def create()"})]

    _, summary = _ask(_client(simulator), _trace(children, answer="Fixed the handler."))

    assert summary["score"] == 0
    assert "src/orders/handlers.py" in summary["explanation"]
