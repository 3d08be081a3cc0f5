"""Golden examples for a test: from a dataset file the server exported (JSONL, one example a
line, so the tests run offline), or from the server itself (the same export, fetched once a
session with a token)."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass
from difflib import get_close_matches
from pathlib import Path

TIMEOUT_SECONDS = 30


class ExamplesUnavailable(Exception):
    """The examples could not be read: a wrong file, line, URL, token or version."""


@dataclass(frozen=True)
class GoldenExamples:
    """A dataset version's examples by key, and where they came from (for messages)."""

    by_key: dict[str, dict]
    source: str

    def get(self, key: str) -> dict:
        """The example of that key; an unknown key names the closest ones and the source."""
        if key in self.by_key:
            return self.by_key[key]
        close = get_close_matches(key, list(self.by_key), n=3)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        raise LookupError(f"no golden example {key!r} in {self.source}{hint}")


def examples_from_lines(lines: Iterable[str], source: str) -> GoldenExamples:
    """Examples from export lines; a line that is not an example names its number."""
    by_key: dict[str, dict] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            example = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ExamplesUnavailable(f"{source} line {number}: not JSON: {exc.msg}") from exc
        if not (isinstance(example, dict) and isinstance(example.get("key"), str)):
            raise ExamplesUnavailable(f"{source} line {number}: an example needs a 'key'")
        by_key[example["key"]] = example
    return GoldenExamples(by_key, source)


def examples_from_file(path: str | Path) -> GoldenExamples:
    """Examples from a dataset version's JSONL export (the page's or the API's download)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ExamplesUnavailable(f"cannot read the dataset file {path}: {exc}") from exc
    return examples_from_lines(text.splitlines(), str(path))


def _get(url: str, token: str) -> bytes:
    request = urllib.request.Request(  # noqa: S310 - the URL is the user's evalsite server
        url, headers={"Authorization": f"Bearer {token}", "Accept": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:  # noqa: S310
            return response.read()
    except urllib.error.HTTPError as exc:
        detail = exc.read().decode("utf-8", errors="replace")[:300]
        raise ExamplesUnavailable(f"GET {url} answered {exc.code}: {detail}") from exc
    except urllib.error.URLError as exc:
        raise ExamplesUnavailable(f"GET {url} failed: {exc.reason}") from exc


def _version_id(base: str, token: str, version: str) -> int:
    """The id of the version named `version` (an id is taken as it is)."""
    if version.isdigit():
        return int(version)
    url: str | None = f"{base}/api/golden/versions/"
    names = []
    while url:
        page = json.loads(_get(url, token))
        # A plain list, or a page of one ({"results", "next"}).
        rows = page if isinstance(page, list) else page.get("results", [])
        for row in rows:
            if row.get("name") == version:
                return int(row["id"])
            names.append(row.get("name"))
        url = None if isinstance(page, list) else page.get("next")
    shown = ", ".join(map(repr, names[:10])) or "none"
    raise ExamplesUnavailable(f"no dataset version {version!r} on {base}; there are: {shown}")


def examples_from_server(url: str, token: str, version: str) -> GoldenExamples:
    """A version's open examples, as the server exports them (an annotator's token will do)."""
    base = url.rstrip("/")
    version_id = _version_id(base, token, version)
    query = urllib.parse.urlencode({"part": "open"})
    body = _get(f"{base}/api/golden/versions/{version_id}/export/?{query}", token)
    source = f"dataset version {version!r} on {base}"
    return examples_from_lines(body.decode("utf-8").splitlines(), source)
