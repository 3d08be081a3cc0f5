"""OTLP export requests for bench/topology.py: freshly recorded spans, sent by several clients
that send a failed request again, and counted in the database afterwards."""

import collections
import http.client
import threading
import time

from bench.ingest import bodies_encode, record_spans


class Burst:
    """Export requests sent by several clients; a request that fails is sent again, up to five
    times, as the OpenTelemetry exporter retries a 502/503 or a dropped connection.

    Each client sends its own run of the bodies in order, one request at a time, as an SDK's
    batch processor exports its process's spans. With `shared`, the clients take the next body
    from one queue, as a collector's parallel consumers export one stream: neighbouring
    batches, which share traces, are then in flight together and wait on each other's trace
    rows."""

    def __init__(
        self,
        port: int,
        token: str,
        bodies: list[tuple[bytes, list[str]]],
        senders: int,
        *,
        shared: bool = False,
    ):
        self.port, self.token, self.senders = port, token, senders
        if shared:
            queue = list(reversed(bodies))
            self.pending = [queue] * senders
        else:
            shares = [
                bodies[k * len(bodies) // senders : (k + 1) * len(bodies) // senders]
                for k in range(senders)
            ]
            self.pending = [list(reversed(share)) for share in shares]
        self.lock = threading.Lock()
        self.acknowledged: list[str] = []
        self.given_up = 0
        self.retries = 0
        self.requests_done = 0
        self.failures: collections.Counter[str] = collections.Counter()

    def next_body(self, sender: int):
        with self.lock:
            pending = self.pending[sender]
            return pending.pop() if pending else None

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

    def _send(self, sender: int) -> None:
        while (item := self.next_body(sender)) is not None:
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
        threads = [
            threading.Thread(target=self._send, args=(sender,), daemon=True)
            for sender in range(self.senders)
        ]
        for thread in threads:
            thread.start()

        def joined():
            for thread in threads:
                thread.join()

        waiter = threading.Thread(target=joined, daemon=True)
        waiter.start()
        return waiter


def failure_reasons(burst: Burst) -> str:
    return "".join(f", {n} x {reason}" for reason, n in burst.failures.most_common())


def bodies_recorded(traces: int, batch: int) -> list[tuple[bytes, list[str]]]:
    """Freshly recorded spans (new ids each call) as protobuf bodies, with their span ids."""
    spans = record_spans(traces, 0, 0)
    bodies = bodies_encode(spans, batch, "protobuf")
    return [
        (body, [f"{span.context.span_id:016x}" for span in spans[i * batch : (i + 1) * batch]])
        for i, body in enumerate(bodies)
    ]


def spans_stored(span_ids: list[str]) -> tuple[int, int]:
    """Of these span ids: how many are stored, and how many rows they have (a request sent
    again after its first attempt was stored must not store its spans twice)."""
    from traces.models import Span

    found = rows = 0
    for i in range(0, len(span_ids), 5000):
        spans = Span.objects.filter(span_id__in=span_ids[i : i + 5000])
        found += spans.values("span_id").distinct().count()
        rows += spans.count()
    return found, rows
