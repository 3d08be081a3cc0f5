"""A local OpenAI-compatible embeddings server (POST /v1/embeddings) for tests and benches.

Each text's vector hashes its words (lower-cased, split on anything but letters, digits, `_`)
into DIMENSIONS signed buckets, so texts that share words are near, as with a real model. It
counts requests and texts, and can be told to fail (`fail_status`) to exercise fallbacks.

    server = FakeEmbeddings.start(); ...; server.base_url; ...; server.stop()
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from http.server import ThreadingHTTPServer

from tests.json_http import JsonHandler

DIMENSIONS = 256
WORD = re.compile(r"[a-z0-9_]+")


def text_vector(text: str) -> list[float]:
    vector = [0.0] * DIMENSIONS
    for word in WORD.findall(text.lower()):
        digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
        bucket = int.from_bytes(digest[:3], "big") % DIMENSIONS
        vector[bucket] += 1.0 if digest[3] & 1 else -1.0
    return vector


class _Handler(JsonHandler):
    server: _Server

    def do_POST(self):  # noqa: N802 - the http.server name
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        owner = self.server.owner
        with owner.lock:
            owner.requests += 1
            owner.batch_sizes.append(len(body.get("input") or []))
            fail = owner.fail_status
        if not self.path.endswith("/embeddings"):
            self.send_json(
                404, {"error": {"message": "not found", "type": "invalid_request_error"}}
            )
            return
        if fail:
            self.send_json(
                fail, {"error": {"message": "embeddings unavailable", "type": "api_error"}}
            )
            return
        texts = body.get("input") or []
        if isinstance(texts, str):
            texts = [texts]
        with owner.lock:
            owner.texts += len(texts)
        self.send_json(
            200,
            {
                "object": "list",
                "model": body.get("model", ""),
                "data": [
                    {"object": "embedding", "index": index, "embedding": text_vector(text)}
                    for index, text in enumerate(texts)
                ],
                "usage": {"prompt_tokens": 0, "total_tokens": 0},
            },
        )


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: FakeEmbeddings


class FakeEmbeddings:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = 0
        self.texts = 0
        self.batch_sizes: list[int] = []
        self.fail_status = 0
        self.httpd: _Server | None = None

    @classmethod
    def start(cls) -> FakeEmbeddings:
        fake = cls()
        fake.httpd = _Server(("127.0.0.1", 0), _Handler)
        fake.httpd.owner = fake
        threading.Thread(target=fake.httpd.serve_forever, daemon=True).start()
        return fake

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
