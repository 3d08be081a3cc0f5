"""The evalsite endpoints the gate needs, over urllib."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass


class EvalsiteError(Exception):
    """The server refused a request, or could not be reached; `fields` names what was wrong."""

    def __init__(self, message: str, status: int = 0, fields: dict | None = None):
        super().__init__(message)
        self.status = status
        self.fields = fields or {}


@dataclass
class Evalsite:
    url: str
    token: str
    timeout: float = 60.0

    def __post_init__(self):
        if urllib.parse.urlsplit(self.url).scheme not in ("http", "https"):
            raise EvalsiteError(f"{self.url!r} is not an http(s) URL.", fields={"url": ["http"]})

    def _open(self, method: str, path: str, body: dict | None = None) -> bytes:
        request = urllib.request.Request(  # noqa: S310 (the scheme is checked above)
            urllib.parse.urljoin(self.url.rstrip("/") + "/", path.lstrip("/")),
            data=json.dumps(body).encode() if body is not None else None,
            method=method,
            headers={
                "Authorization": f"Bearer {self.token}",
                "Content-Type": "application/json",
                "Accept": "application/json",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310
                return response.read()
        except urllib.error.HTTPError as exc:
            raise _error_from(exc) from exc
        except urllib.error.URLError as exc:
            raise EvalsiteError(f"Cannot reach {self.url}: {exc.reason}") from exc

    def request(self, method: str, path: str, body: dict | None = None):
        """A JSON answer; an error answer raises EvalsiteError with its fields."""
        return json.loads(self._open(method, path, body) or b"null")

    def request_text(self, path: str) -> str:
        return self._open("GET", path).decode()

    def eval_run_create(self, **fields) -> dict:
        return self.request("POST", "/api/eval-runs/", fields)

    def eval_runs(self, limit: int = 50, **filters) -> list[dict]:
        """The newest runs matching `filters` (name, agent_name, dataset_version, is_noop,
        scored), at most `limit`."""
        query = urllib.parse.urlencode({**filters, "limit": limit})
        return self.request("GET", f"/api/eval-runs/?{query}")["results"]

    def eval_run(self, name_or_id: str) -> dict:
        """A run by id, or the newest run of that name."""
        if str(name_or_id).isdigit():
            return self.request("GET", f"/api/eval-runs/{name_or_id}/")
        for run in self.eval_runs(limit=1, name=name_or_id):
            return run
        raise EvalsiteError(f"No eval run named {name_or_id!r}.", 404, {"run": ["not found"]})

    def eval_run_traces(self, run_id: int) -> dict:
        """{"expected", "received", "complete"}: the run's traces so far."""
        return self.request("GET", f"/api/eval-runs/{run_id}/traces/")

    def eval_run_judge(self, run_id: int, config: str) -> list[int]:
        return self.request("POST", f"/api/eval-runs/{run_id}/judge/", {"config": config})[
            "judge_runs"
        ]

    def judge_run(self, judge_run_id: int) -> dict:
        return self.request("GET", f"/api/judge-runs/{judge_run_id}/")

    def eval_run_score(self, run_id: int, *, use_llm: bool, matcher: str) -> dict:
        body = {"use_llm": use_llm, "matcher": matcher}
        return self.request("POST", f"/api/eval-runs/{run_id}/score/", body)

    def tool_worlds_start(self, run_id: int) -> list[dict]:
        """Create every trial of the run; each comes with its tool-world token and endpoints."""
        return self.request("POST", f"/api/eval-runs/{run_id}/tool-worlds/start/")["trials"]

    def tool_worlds_finish(self, run_id: int) -> int:
        """Close the run's tool worlds; returns how many trials had one open."""
        return self.request("POST", f"/api/eval-runs/{run_id}/tool-worlds/finish/")["closed"]

    def gate(self, **fields) -> dict:
        return self.request("POST", "/api/gate/", fields)


def _error_from(exc: urllib.error.HTTPError) -> EvalsiteError:
    try:
        error = json.loads(exc.read() or b"{}").get("error") or {}
    except (ValueError, AttributeError):
        error = {}
    message = error.get("message") or f"HTTP {exc.code} {exc.reason}"
    return EvalsiteError(message, exc.code, error.get("fields") or {})
