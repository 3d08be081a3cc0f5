"""An agent process as CI runs it: reads its tagging variables and sends its traces.

Usage: python fake_agent.py PAYLOADS.json — each payload is a span-tree trace whose
`evalsite.eval_run` tag is filled from $EVALSITE_EVAL_RUN, as a real agent would.
"""

import json
import os
import sys
import urllib.request


def main() -> None:
    run = os.environ["EVALSITE_EVAL_RUN"]
    if f"evalsite.eval_run={run}" not in os.environ["OTEL_RESOURCE_ATTRIBUTES"].split(","):
        sys.exit("OTEL_RESOURCE_ATTRIBUTES does not tag the run")
    with open(sys.argv[1], encoding="utf-8") as source:
        payloads = json.load(source)
    for payload in payloads:
        payload["context"]["evalsite.eval_run"] = run
        request = urllib.request.Request(
            os.environ["EVALSITE_URL"].rstrip("/") + "/api/traces/",
            data=json.dumps(payload).encode(),
            headers={
                "Authorization": f"Bearer {os.environ['EVALSITE_TOKEN']}",
                "Content-Type": "application/json",
            },
        )
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
            assert response.status == 201


if __name__ == "__main__":
    main()
